"""What a semantic cache hit serves with its answer: the cited context, the generate and ground
outputs of the run that stored it. The understand stage (rag.query.stage) stores them; it sits at
the root of rag/ because it reads the context and generate stages' outputs, and the context stage
reads the query package (a circle between the two packages otherwise)."""

from __future__ import annotations

from dataclasses import replace

from rag.context.base import BuiltContext
from rag.generate.stage import GenerateOutput
from rag.stages import PipelineState

CACHED_STAGES = ("context", "generate", "ground")  # what a cache hit serves with the answer


def cited_outputs(state: PipelineState) -> dict[str, object]:
    """The context (its cited blocks only, numbers kept), generate and ground outputs of a run."""
    outputs = {stage: state.artifacts[stage] for stage in CACHED_STAGES if stage in state.artifacts}
    context, generated = outputs.get("context"), outputs.get("generate")
    if isinstance(context, BuiltContext) and isinstance(generated, GenerateOutput) \
            and generated.answer.cited:
        cited = set(generated.answer.cited)
        outputs["context"] = replace(context, blocks=tuple(b for b in context.blocks if b.n in cited))
    return outputs
