"""The per-fold fit hook: fusion methods that learn from labelled queries.

A method registered here is trained before it is scored, and only ever on the queries the
tuner allows: a fold's training queries when a held-out fold is scored, the inner training part
when a training score is needed for selection. A fitter returns the config with what it learnt
written into it (so an exported preset carries the model), and never reads the queries it
is not given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from eval.data.shapes import Qrels
from eval.runs.candidates import QueryLists
from rag.config import PipelineConfig
from rag.index import Collection

# (config, the training queries' cached heads, their qrels, collection) -> the fitted config
Fitter = Callable[[PipelineConfig, Sequence[QueryLists], Qrels, Collection], PipelineConfig]

FITTERS: dict[str, Fitter] = {}  # fusion.method -> how it is trained


def fitter_for(config: PipelineConfig) -> Fitter | None:
    """The fitter of the config's fusion method, or None when it needs no training."""
    return FITTERS.get(config.fusion.method)
