"""Whether this CPU runs our int8 MiniLM graphs right, and faster than fp32: measured once, kept.

onnxruntime's dynamic int8 products multiply uint8 activations by int8 weights (u8s8). With
AVX-512 VNNI or AVX-VNNI each product is accumulated exactly in 32 bits; without them (e.g. an
AMD EPYC with AVX2 only) the kernel adds pairs of products in 16 bits, which saturates. There
the `int8-smooth` build reaches only cosine 0.995-0.997 to fp32 and is no faster (issue 25).
Which CPU a machine gets is not ours to choose, so an int8 graph is used only after this check:

1. embed PROBE_TEXTS with the int8 graph and with the fp32 graph in this process; the lowest
   cosine between the two must reach the variant's floor (FLOORS);
2. time both on the same texts, interleaved, best of ROUNDS: int8 must take at most
   1 / MIN_SPEEDUP of fp32's time;
3. a tiny MatMulInteger with products that overflow 16-bit pair sums says whether u8s8
   products are exact here (it names the cause in the verdict; the decision rests on 1 and 2).

The measurement (not the verdict) is kept on disk per CPU identity (model name + the int8
instruction flags of /proc/cpuinfo), onnxruntime version and both graphs' build keys, beside
the builds; the verdict is re-derived from it, so a changed floor needs no new measurement.

`int8-smooth-u8` is `int8-smooth` with uint8 weights: its u8u8 products are exact without VNNI
too (measured under emulation: benchmarks/int8_novnni.py), so `auto` tries it where
`int8-smooth` fails this check (rag/embed/variant.py); step 3 then probes u8u8 products.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rag.embed.onnx_build import BuiltVariant

_log = logging.getLogger(__name__)

CHECK_VERSION = "3"  # bump when PROBE_TEXTS or the measurement change (2: token-sorted slices,
# 3: slices of 4)
# min cosine to fp32 over the probe texts; -u8 and -rows are held to int8-smooth's: they stand
# in for it
FLOORS = {"int8": 0.99, "int8-smooth": 0.998, "int8-smooth-u8": 0.998, "int8-smooth-rows": 0.998}
UNSIGNED_WEIGHTS = frozenset({"int8-smooth-u8"})  # u8u8 products; the others are u8s8
MIN_SPEEDUP = 1.2  # int8 must be at least this much faster than fp32 to be worth its error
ROUNDS = 5
_MEASURE_WAIT_S = 1800.0  # the first measurement may include two builds on a loaded machine
# the /proc/cpuinfo flags that decide which int8 kernels onnxruntime (MLAS) runs
INT8_FLAGS = ("avx2", "avx512bw", "avx512_vnni", "avx_vnni", "amx_int8")
# fixed probe texts, none from any evaluation set: short and long, prose, commands, lists
PROBE_TEXTS = (
    "How do I restart the network service after editing the interfaces file?",
    "The kernel logs a warning when a USB device draws more current than the port allows.",
    "tar -xzf archive.tar.gz -C /opt extracts a gzip-compressed archive into /opt.",
    "Fonts installed under /usr/local/share/fonts are found by fontconfig after fc-cache runs.",
    "A cron job that runs every five minutes: */5 * * * * /usr/bin/backup --quiet",
    ("The package manager keeps a local list of available versions, refreshed from each "
     "configured repository; an upgrade compares the installed version with the candidate, "
     "resolves the new dependencies, downloads what is missing and unpacks it, then runs each "
     "package's configuration scripts in dependency order. ") * 3,
    ("Privacy settings: documents marked private are visible to their owner only; shared "
     "documents list the groups that may read them; public documents are visible to everyone "
     "who can open the collection. Changing a document's visibility takes effect at once. ") * 2,
    "Q: why is my laptop fan always on? A: check which process keeps a core busy with top.",
    "systemd-resolved caches DNS answers; resolvectl flush-caches empties the cache.",
    ("Chapter 3. Configuring the mail server. Postfix reads main.cf for global settings and "
     "master.cf for the services it runs; after a change, postfix reload applies it without "
     "dropping connections. Relay restrictions, TLS certificates and aliases follow. ") * 2,
    "Raspberry Pi GPIO pins deliver 3.3 volts; 5 V on an input pin can damage the board.",
    "ssh-keygen -t ed25519 creates a key pair; ssh-copy-id installs the public key remotely.",
)


@dataclass(frozen=True)
class CpuIdentity:
    """What the int8 kernels depend on: the CPU model and its int8 instruction flags."""

    model: str
    flags: tuple[str, ...]

    @property
    def has_vnni(self) -> bool:
        return "avx512_vnni" in self.flags or "avx_vnni" in self.flags

    def describe(self) -> str:
        vnni = "with VNNI" if self.has_vnni else "no AVX-512 VNNI / AVX-VNNI"
        return f"{self.model} ({vnni})"


def cpu_identity(cpuinfo: str | None = None) -> CpuIdentity:
    """This machine's CPU (from /proc/cpuinfo; elsewhere the platform's processor string)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            cpuinfo = ""
    model, flags = platform.processor() or platform.machine(), set()
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "model name" and value.strip():
            model = value.strip()
        elif name.strip() == "flags":
            flags.update(value.split())
            break  # every core lists the same flags
    return CpuIdentity(model, tuple(f for f in INT8_FLAGS if f in flags))


@dataclass(frozen=True)
class Probe:
    """One measurement of an int8 graph against fp32 on this CPU."""

    cosine_min: float  # lowest cosine between the two graphs' vectors of PROBE_TEXTS
    int8_s: float  # best-of-ROUNDS seconds to embed PROBE_TEXTS
    fp32_s: float
    products_exact: bool  # the graph's kind of MatMulInteger agreed with numpy (products_exact)

    @property
    def speedup(self) -> float:
        return self.fp32_s / self.int8_s if self.int8_s > 0 else 0.0


@dataclass(frozen=True)
class Verdict:
    """Whether `variant` may be used on this CPU, and why (one line a user can read)."""

    variant: str
    accepted: bool
    reason: str  # the whole line: finding, CPU, and what is used
    probe: Probe
    cpu: CpuIdentity
    finding: str = ""  # what was measured against the rule, e.g. "cosine 0.9941 < 0.998 to fp32"

    @property
    def cause(self) -> str:
        return saturation_cause(self.variant, self.probe)


def saturation_cause(variant: str, probe: Probe) -> str:
    """Why the products may be wrong here ("" where the direct probe found them exact)."""
    kind = "u8u8" if variant in UNSIGNED_WEIGHTS else "u8s8"
    return "" if probe.products_exact else f"{kind} int8 products saturate here"


def on_this_cpu(cpu: CpuIdentity, causes: list[str]) -> str:
    """'on this CPU (<model> (<VNNI or not>); <cause>…)': where a verdict was measured."""
    return f"on this CPU ({'; '.join([cpu.describe(), *filter(None, causes)])})"


def decide(variant: str, probe: Probe, cpu: CpuIdentity, *, floor: float | None = None,
           min_speedup: float = MIN_SPEEDUP) -> Verdict:
    """The rule: the probe cosine reaches the floor and int8 is at least `min_speedup` faster."""
    floor = FLOORS[variant] if floor is None else floor
    where = on_this_cpu(cpu, [saturation_cause(variant, probe)])
    if probe.cosine_min < floor:
        finding = f"cosine {probe.cosine_min:.4f} < {floor} to fp32"
    elif probe.speedup < min_speedup:
        finding = f"{probe.speedup:.2f}x fp32's speed < {min_speedup}x"
    else:
        finding = f"cosine {probe.cosine_min:.4f} ≥ {floor}, {probe.speedup:.2f}x fp32's speed"
        return Verdict(variant, True, f"{variant} used: {finding} {where}", probe, cpu, finding)
    return Verdict(variant, False, f"{variant} not used: {finding} {where}; using fp32", probe,
                   cpu, finding)


def u8s8_products_exact() -> bool:
    """A 1x64 uint8 by 64x8 int8 MatMulInteger whose pairwise products (2 x 255 x 127) overflow
    int16, against numpy: False where onnxruntime's kernel saturates (CPUs without VNNI)."""
    return products_exact(unsigned_weights=False)


def products_exact(*, unsigned_weights: bool) -> bool:
    """u8s8_products_exact, or with uint8 weights (u8u8: 255 x 255 pair sums need 17 bits, so a
    kernel that added u8u8 pairs in int16 would fail here too; onnxruntime's doesn't)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    k, n = 64, 8
    rng = np.random.default_rng(0)
    a = np.full((1, k), 255, dtype=np.uint8)
    high = rng.random((k, n)) < 0.8
    b = (np.where(high, 255, 0).astype(np.uint8) if unsigned_weights
         else np.where(high, 127, -128).astype(np.int8))
    weight_type = TensorProto.UINT8 if unsigned_weights else TensorProto.INT8
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "b"], ["y"])],
        "u8u8" if unsigned_weights else "u8s8",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [1, k]),
         helper.make_tensor_value_info("b", weight_type, [k, n])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [1, n])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {"a": a, "b": b})
    return bool(np.array_equal(got, a.astype(np.int64) @ b.astype(np.int64)))


def measure(variant: BuiltVariant) -> Probe:
    """Embed PROBE_TEXTS with `variant`'s graph and with fp32's, then time both (module doc)."""
    from rag.embed.embedder import l2_normalize
    from rag.embed.onnx_minilm import OnnxMiniLMBackend
    from rag.settings.embedding import EmbeddingConfig

    texts = list(PROBE_TEXTS)
    fast = OnnxMiniLMBackend(EmbeddingConfig(backend="onnx", onnx_variant=variant))
    exact = OnnxMiniLMBackend(EmbeddingConfig(backend="onnx", onnx_variant="fp32"))
    cosines = (l2_normalize(fast.encode(texts)) * l2_normalize(exact.encode(texts))).sum(axis=1)
    best = {"int8": float("inf"), "fp32": float("inf")}
    for _ in range(ROUNDS):  # interleaved, so a busy moment of a shared machine hits both
        for name, backend in (("fp32", exact), ("int8", fast)):
            started = time.perf_counter()
            backend.encode(texts)
            best[name] = min(best[name], time.perf_counter() - started)
    kind_exact = products_exact(unsigned_weights=variant in UNSIGNED_WEIGHTS)
    return Probe(float(cosines.min()), best["int8"], best["fp32"], kind_exact)


def _probe_file(variant: BuiltVariant, cpu: CpuIdentity) -> Path:
    import onnxruntime

    from rag.embed.onnx_build import build_key, models_dir

    identity = json.dumps([CHECK_VERSION, cpu.model, cpu.flags, onnxruntime.__version__,
                           build_key(variant), build_key("fp32")])
    digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return models_dir() / "cpu-check" / f"{variant}-{digest}.json"


_VERDICTS: dict[str, Verdict] = {}
_LOCK = threading.Lock()


def known(variant: str) -> Verdict | None:
    """The verdict on `variant` this process holds already (None: not checked yet here)."""
    return _VERDICTS.get(variant)


def checked(variant: BuiltVariant) -> Verdict:
    """The verdict on `variant` for this CPU: measured on first use per machine, then read."""
    with _LOCK:
        if variant in _VERDICTS:
            return _VERDICTS[variant]
        cpu = cpu_identity()
        path = _probe_file(variant, cpu)
        probe = _read_probe(path) or _measure_once(variant, cpu, path)
        verdict = decide(variant, probe, cpu)
        _log.info("%s", verdict.reason)  # the caller says a fallback where it applies (variant.py)
        _VERDICTS[variant] = verdict
        return verdict


def _measure_once(variant: BuiltVariant, cpu: CpuIdentity, path: Path) -> Probe:
    """Measure under a lock: other processes (test workers, the app beside an ingest) wait and
    read this one's measurement instead of timing the graphs while it does."""
    import portalocker

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with portalocker.Lock(path.with_suffix(".lock"), "a", timeout=_MEASURE_WAIT_S,
                              flags=portalocker.LOCK_EX | portalocker.LOCK_NB):
            return _read_probe(path) or _measure_and_keep(variant, cpu, path)
    except portalocker.LockException:  # another process has measured for too long: measure too
        return _measure_and_keep(variant, cpu, path)


def _measure_and_keep(variant: BuiltVariant, cpu: CpuIdentity, path: Path) -> Probe:
    print(f"checking {variant} against fp32 on this CPU (once per machine) …", file=sys.stderr)
    probe = measure(variant)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"cpu": asdict(cpu), **asdict(probe)}, indent=2))
    tmp.replace(path)  # atomic: a reader sees no measurement or a whole one
    return probe


def _read_probe(path: Path) -> Probe | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Probe(float(raw["cosine_min"]), float(raw["int8_s"]), float(raw["fp32_s"]),
                     bool(raw["products_exact"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # none yet, or unreadable: measure again
