"""The seed systems: one home for everything about comparing presets.

- `matrix`: the presets listed (SYSTEMS, BASELINES) and their generated feature matrix.
- `side_by_side`: one query through several presets, and what each did differently.
"""

from rag.systems.matrix import (
    BASELINES,
    FEATURE_KEYS,
    FEATURES,
    SYSTEMS,
    Cell,
    CellStatus,
    Feature,
    FeatureMatrix,
    Probe,
    features_matrix,
    preset_mappings,
)
from rag.systems.side_by_side import (
    CollectionFor,
    Comparison,
    Source,
    SystemRun,
    compare,
    differences,
    sources_of,
    system_run,
    trace_facts,
)

__all__ = [
    "BASELINES", "FEATURES", "FEATURE_KEYS", "SYSTEMS", "Cell", "CellStatus", "CollectionFor",
    "Comparison", "Feature", "FeatureMatrix", "Probe", "Source", "SystemRun", "compare",
    "differences", "features_matrix", "preset_mappings", "sources_of", "system_run",
    "trace_facts",
]
