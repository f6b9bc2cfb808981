"""The int8 self-check's decision, from injected measurements (so every processor runs every
case): a graph below its cosine floor or not faster than fp32 is rejected with one line saying
why, the measurement is kept per CPU and runtime, and `auto` / a collection's recorded graph are
chosen by it. The real measurement on this CPU: test_onnx_build.py (slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.embed import EmbeddingConfig, cpu_check, variant
from rag.embed.cpu_check import CpuIdentity, Probe, Verdict, cpu_identity, decide

EPYC = CpuIdentity("AMD EPYC 7B13 64-Core Processor", ("avx2",))
XEON = CpuIdentity("Intel(R) Xeon(R) Processor", ("avx2", "avx512bw", "avx512_vnni"))
GOOD = Probe(cosine_min=0.9993, int8_s=0.10, fp32_s=0.25, products_exact=True)


def test_a_graph_below_its_floor_is_rejected_and_the_line_says_why() -> None:
    saturated = Probe(cosine_min=0.996, int8_s=0.10, fp32_s=0.25, products_exact=False)
    verdict = decide("int8-smooth", saturated, EPYC)
    assert not verdict.accepted
    assert "cosine 0.9960 < 0.998" in verdict.reason and "no AVX-512 VNNI" in verdict.reason
    assert "saturate" in verdict.reason and verdict.reason.endswith("using fp32")


def test_a_graph_that_is_not_faster_is_rejected() -> None:
    slow = Probe(cosine_min=0.9995, int8_s=0.24, fp32_s=0.25, products_exact=True)
    verdict = decide("int8-smooth", slow, XEON)
    assert not verdict.accepted and "1.04x fp32's speed < 1.2x" in verdict.reason


def test_a_close_and_faster_graph_is_accepted_each_variant_at_its_own_floor() -> None:
    assert decide("int8-smooth", GOOD, XEON).accepted
    rough = Probe(cosine_min=0.993, int8_s=0.1, fp32_s=0.3, products_exact=True)
    assert decide("int8", rough, XEON).accepted and not decide("int8-smooth", rough, XEON).accepted


def test_the_cpu_identity_names_the_int8_flags() -> None:
    cpuinfo = ("processor\t: 0\nmodel name\t: AMD EPYC 7B13 64-Core Processor\n"
               "flags\t\t: fpu sse avx avx2 fma bmi2\n")
    assert cpu_identity(cpuinfo) == EPYC and not EPYC.has_vnni and XEON.has_vnni


def test_the_measurement_is_kept_per_cpu_and_read_instead_of_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_MODELS", str(tmp_path))
    measured: list[str] = []
    monkeypatch.setattr(cpu_check, "_VERDICTS", {})
    monkeypatch.setattr(cpu_check, "measure", lambda v: measured.append(v) or GOOD)
    monkeypatch.setattr(cpu_check, "cpu_identity", lambda: XEON)
    assert cpu_check.checked("int8-smooth").accepted and measured == ["int8-smooth"]
    monkeypatch.setattr(cpu_check, "_VERDICTS", {})  # a new process on the same machine
    assert cpu_check.checked("int8-smooth").probe == GOOD and measured == ["int8-smooth"]
    monkeypatch.setattr(cpu_check, "_VERDICTS", {})
    monkeypatch.setattr(cpu_check, "cpu_identity", lambda: EPYC)  # the folder moved machines
    cpu_check.checked("int8-smooth")
    assert measured == ["int8-smooth", "int8-smooth"]
    assert len(list((tmp_path / "cpu-check").glob("int8-smooth-*.json"))) == 2


def _verdicts(monkeypatch: pytest.MonkeyPatch, probe: Probe, cpu: CpuIdentity) -> None:
    monkeypatch.setattr(cpu_check, "checked", lambda v: decide(v, probe, cpu))


def test_auto_picks_the_fast_graph_only_where_the_check_accepts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _verdicts(monkeypatch, GOOD, XEON)
    assert variant.choose_variant("auto") == variant.Choice("int8-smooth-rows")
    _verdicts(monkeypatch, Probe(0.996, 0.25, 0.25, False), EPYC)
    fallback = variant.choose_variant("auto")
    assert fallback.variant == "fp32" and "int8-smooth not used: cosine 0.9960" in fallback.note
    assert variant.choose_variant("int8").variant == "fp32"  # asked for by name: checked too
    assert variant.choose_variant("fp32") == variant.Choice("fp32")  # no int8 products: unchecked
    assert variant.choose_variant("int8-weights") == variant.Choice("int8-weights")


def test_a_collection_keeps_its_recorded_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(v: str) -> Verdict:
        raise AssertionError("a recorded graph needs no check")

    monkeypatch.setattr(cpu_check, "checked", never)
    kept = variant.choose_variant("auto", recorded="int8-smooth")
    assert kept.variant == "int8-smooth" and "keeps the int8-smooth graph" in kept.note
    assert variant.choose_variant("auto", recorded="fp32").variant == "fp32"
    assert variant.choose_variant("int8-smooth", recorded="int8-smooth") == variant.Choice("int8-smooth")
    assert variant.choose_variant("fp32", recorded="int8-smooth") == variant.Choice("fp32")


# The `auto` chain through the real check (its cache file, its lock, its rule): only what depends
# on the CPU is fed, the CPU's identity and the measurements. The int8-smooth and u8 cosines are
# the probe minima recorded without VNNI under emulation
# (benchmarks/results/int8_quant_novnni_emulated.json); the timings are made up: no CPU without
# VNNI was at hand to time them.
SATURATED = Probe(cosine_min=0.9941, int8_s=0.10, fp32_s=0.25, products_exact=False)
U8 = Probe(cosine_min=0.9993, int8_s=0.13, fp32_s=0.25, products_exact=True)
ROWS = "int8-smooth-rows"  # int8 u8s8 products like int8-smooth's: it saturates where they do
U8_SLOW = Probe(cosine_min=0.9993, int8_s=0.24, fp32_s=0.25, products_exact=True)


def _measured_as(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cpu: CpuIdentity,
                 probes: dict[str, Probe]) -> list[str]:
    """This CPU is `cpu` and measuring a graph gives `probes[graph]`; returns what was measured."""
    monkeypatch.setenv("RAG_WORKBENCH_MODELS", str(tmp_path))
    monkeypatch.setattr(cpu_check, "_VERDICTS", {})
    monkeypatch.setattr(cpu_check, "cpu_identity", lambda: cpu)
    measured: list[str] = []

    def measure(graph: str) -> Probe:
        measured.append(graph)
        return probes[graph]

    monkeypatch.setattr(cpu_check, "measure", measure)
    return measured


def test_auto_uses_the_rows_graph_where_accepted_and_checks_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured = _measured_as(monkeypatch, tmp_path, XEON, {ROWS: GOOD, "int8-smooth": GOOD,
                                                          "int8-smooth-u8": U8})
    assert variant.choose_variant("auto") == variant.Choice(ROWS)
    assert measured == [ROWS] and variant.checked_already()  # no other build, no other timing


def test_auto_uses_int8_smooth_where_only_the_rows_graph_is_rejected_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rough = Probe(cosine_min=0.9975, int8_s=0.08, fp32_s=0.25, products_exact=True)
    measured = _measured_as(monkeypatch, tmp_path, XEON, {ROWS: rough, "int8-smooth": GOOD,
                                                          "int8-smooth-u8": U8})
    choice = variant.choose_variant("auto")
    assert choice.variant == "int8-smooth" and measured == [ROWS, "int8-smooth"]
    assert choice.note.startswith("int8-smooth-rows not used: cosine 0.9975 < 0.998 to fp32 on "
                                  "this CPU (Intel(R) Xeon(R) Processor (with VNNI)); using "
                                  "int8-smooth: cosine 0.9993")


def test_auto_falls_back_to_the_u8_graph_where_int8_smooth_is_rejected_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured = _measured_as(monkeypatch, tmp_path, EPYC,
                            {ROWS: SATURATED, "int8-smooth": SATURATED, "int8-smooth-u8": U8})
    choice = variant.choose_variant("auto")
    assert choice.variant == "int8-smooth-u8" and measured == [ROWS, "int8-smooth", "int8-smooth-u8"]
    assert choice.note == (  # the cause shared by both rejected graphs is said once
        "int8-smooth-rows not used: cosine 0.9941 < 0.998 to fp32; int8-smooth not used: cosine "
        "0.9941 < 0.998 to fp32 on this CPU (AMD EPYC 7B13 64-Core "
        "Processor (no AVX-512 VNNI / AVX-VNNI); u8s8 int8 products saturate here); using "
        "int8-smooth-u8: cosine 0.9993 ≥ 0.998, 1.92x fp32's speed")
    # a new collection records the graph that embeds, and a new process reads both measurements
    assert variant.concrete(EmbeddingConfig()).onnx_variant == "int8-smooth-u8"
    monkeypatch.setattr(cpu_check, "_VERDICTS", {})
    assert not variant.checked_already()
    assert variant.choose_variant("auto") == choice
    assert measured == [ROWS, "int8-smooth", "int8-smooth-u8"] and variant.checked_already()
    # asked for by name, int8-smooth is checked alone: rejected means fp32, not the u8 graph
    assert variant.choose_variant("int8-smooth").variant == "fp32"
    assert variant.choose_variant("int8-smooth-u8") == variant.Choice("int8-smooth-u8")


def test_auto_is_fp32_where_both_graphs_are_rejected_and_the_line_names_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured = _measured_as(monkeypatch, tmp_path, EPYC,
                            {ROWS: SATURATED, "int8-smooth": SATURATED, "int8-smooth-u8": U8_SLOW})
    choice = variant.choose_variant("auto")
    assert choice.variant == "fp32" and measured == [ROWS, "int8-smooth", "int8-smooth-u8"]
    assert choice.note.startswith("int8-smooth-rows not used: cosine 0.9941 < 0.998 to fp32; "
                                  "int8-smooth not used: cosine 0.9941 < 0.998 to fp32; "
                                  "int8-smooth-u8 not used: 1.04x fp32's speed < 1.2x on this CPU")
    assert "u8s8 int8 products saturate here" in choice.note and "u8u8" not in choice.note
    assert choice.note.endswith("; using fp32") and variant.checked_already()


def test_each_graph_is_measured_and_kept_under_its_own_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _measured_as(monkeypatch, tmp_path, EPYC, {ROWS: SATURATED, "int8-smooth": SATURATED,
                                               "int8-smooth-u8": U8})
    variant.choose_variant("auto")
    kept = sorted(p.name.rsplit("-", 1)[0] for p in (tmp_path / "cpu-check").glob("*.json"))
    assert kept == ["int8-smooth", "int8-smooth-rows", "int8-smooth-u8"]
    assert cpu_check.known("int8-smooth-u8") == decide("int8-smooth-u8", U8, EPYC)


def test_the_u8_graph_names_its_own_products_and_floor() -> None:
    wrong = Probe(cosine_min=0.9975, int8_s=0.1, fp32_s=0.25, products_exact=False)
    verdict = decide("int8-smooth-u8", wrong, EPYC)
    assert not verdict.accepted and "cosine 0.9975 < 0.998" in verdict.reason
    assert "u8u8 int8 products saturate here" in verdict.reason
