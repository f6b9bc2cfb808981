"""Which ONNX graph of all-MiniLM-L6-v2 embeds: `auto` is the first graph of AUTO_CHAIN this CPU
computes right and fast (rag/embed/cpu_check.py), else fp32; a collection keeps the graph it
recorded.

A concrete variant (fp32, int8, int8-smooth, int8-smooth-u8, int8-smooth-rows, int8-weights) in a
config is used as written — that is what a collection's recorded settings pin and what
benchmarks ask for; collection entry points choose with `choose_variant`, which checks an int8
variant first (rag/index/embedding_pin.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from rag.embed.local_models import MINILM_NAMES
from rag.settings.embedding import AUTO_VARIANT, EmbeddingConfig, OnnxVariant

if TYPE_CHECKING:
    from rag.embed.onnx_build import BuiltVariant

_log = logging.getLogger(__name__)
_SAID: set[str] = set()
# what `auto` tries first: int8-smooth with its FFN output in int8 too (per-row activation
# scales), 1.4x less embedding CPU than int8-smooth at its retrieval quality (docs/results.md)
FAST_VARIANT = "int8-smooth-rows"
# then int8-smooth, then the same graph with uint8 weights: its u8u8 products are exact on CPUs
# without VNNI, where u8s8 products saturate (docs/embedding-cpu-check.md); slower with VNNI
AUTO_CHAIN = (FAST_VARIANT, "int8-smooth", "int8-smooth-u8")
CHECKED_VARIANTS = ("int8", "int8-smooth", "int8-smooth-u8", "int8-smooth-rows")  # checked per CPU


@dataclass(frozen=True)
class Choice:
    """The graph to embed with, and one line saying why when it is not what was asked for."""

    variant: OnnxVariant
    note: str = ""


def picks_a_graph(cfg: EmbeddingConfig) -> bool:
    """The onnx backend's built MiniLM: the only embedder whose graph `onnx_variant` picks."""
    return cfg.backend == "onnx" and not cfg.model_path and cfg.model in MINILM_NAMES


def choose_variant(requested: str, recorded: str | None = None) -> Choice:
    """The graph for a config asking for `requested`, reading a collection whose first ingest
    recorded `recorded` (None: a new collection, or none at hand).

    A collection keeps its recorded graph when the config asks for `auto` or for that graph (its
    vectors were made by it); otherwise an int8 graph must pass this CPU's check, else fp32;
    `auto` tries each graph of AUTO_CHAIN in turn.
    """
    if recorded is not None and requested in (AUTO_VARIANT, recorded):
        return Choice(cast(OnnxVariant, recorded), "" if requested == recorded else kept_note(recorded))
    if requested == AUTO_VARIANT:
        return _first_accepted(AUTO_CHAIN)
    if requested not in CHECKED_VARIANTS:
        return Choice(cast(OnnxVariant, requested))
    from rag.embed.cpu_check import checked  # late: loads onnxruntime, may measure once

    verdict = checked(cast("BuiltVariant", requested))
    if verdict.accepted:
        return Choice(cast(OnnxVariant, requested))
    return Choice("fp32", verdict.reason)


def kept_note(recorded: str) -> str:
    """What `auto` says on a collection that keeps the graph it recorded."""
    return f"the collection keeps the {recorded} graph it was built with"


def _first_accepted(chain: tuple[str, ...]) -> Choice:
    """The first graph of `chain` this CPU's check accepts (a later one is checked only where
    the ones before it are rejected), else fp32; the note names every rejected graph and why."""
    from rag.embed.cpu_check import Verdict, checked, on_this_cpu

    rejected: list[Verdict] = []
    used: Verdict | None = None
    for name in chain:
        verdict = checked(cast("BuiltVariant", name))
        if verdict.accepted:
            used = verdict
            break
        rejected.append(verdict)
    if used is not None and not rejected:
        return Choice(cast(OnnxVariant, used.variant))
    why = "; ".join(f"{v.variant} not used: {v.finding}" for v in rejected)
    where = on_this_cpu(rejected[0].cpu, list(dict.fromkeys(v.cause for v in rejected)))
    instead = f"using {used.variant}: {used.finding}" if used is not None else "using fp32"
    return Choice(cast(OnnxVariant, used.variant if used is not None else "fp32"),
                  f"{why} {where}; {instead}")


def checked_already() -> bool:
    """`auto` is decided in this process (deciding it again costs nothing)."""
    from rag.embed.cpu_check import known

    for name in AUTO_CHAIN:
        verdict = known(name)
        if verdict is None:
            return False
        if verdict.accepted:
            return True
    return True


def concrete(cfg: EmbeddingConfig) -> EmbeddingConfig:
    """`cfg` with `auto` replaced by this CPU's choice (any other variant as written)."""
    if cfg.onnx_variant != AUTO_VARIANT:
        return cfg
    if not picks_a_graph(cfg):  # the variant picks nothing here: say fp32, check nothing
        return cfg.model_copy(update={"onnx_variant": "fp32"})
    choice = choose_variant(AUTO_VARIANT)
    if choice.note and choice.note not in _SAID:  # once per process: this CPU's fallback
        _SAID.add(choice.note)
        _log.warning("%s", choice.note)
    return cfg.model_copy(update={"onnx_variant": choice.variant})
