"""The per-fold fit hook: fusion methods that learn from labelled queries.

A method registered here is trained before it is scored, and only ever on the queries the
tuner allows: a fold's training queries when a held-out fold is scored, the inner training part
when a training score is needed for selection. A fitter returns the config with what it learnt
written into it (so an exported preset carries the model), and never reads the queries it
is not given.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence

from eval.data.shapes import Qrels
from eval.runs.candidates import QueryLists
from rag.config import PipelineConfig, with_overrides
from rag.index import Collection
from rag.paths import cache_dir
from rag.pipeline import head_key

# (config, the training queries' cached heads, their qrels, collection) -> the fitted config
Fitter = Callable[[PipelineConfig, Sequence[QueryLists], Qrels, Collection], PipelineConfig]

FITTERS: dict[str, Fitter] = {}  # fusion.method -> how it is trained


def fitter_for(config: PipelineConfig) -> Fitter | None:
    """The fitter of the config's fusion method, or None when it needs no training."""
    return FITTERS.get(config.fusion.method)


def _fit_learned(config: PipelineConfig, heads: Sequence[QueryLists], qrels: Qrels,
                 collection: Collection) -> PipelineConfig:
    """The learned fusion (rag/retrieve/fusion/learned.py) trained by its own trainer on these
    heads; the model file is keyed by the training queries, the lists and the depth."""
    from eval.runs.learned_fusion import fit_learned_fusion  # loads scikit-learn

    depths = json.dumps(config.fusion.depths, sort_keys=True)
    parts = [collection.name, collection.manifest.updated_at, head_key(config),
             str(config.retrieval.depth), depths, *sorted(item.qid for item in heads)]
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]
    path = cache_dir("learned-fusion") / f"{key}.json"
    if not path.exists():
        fit_learned_fusion(heads, qrels, path, depth=config.retrieval.depth,
                           depths=config.fusion.depths)
    return with_overrides(config, {"fusion.model": str(path)})


FITTERS["learned"] = _fit_learned
