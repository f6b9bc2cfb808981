"""Research benchmarks that write JSON (timings never live in tests): speed, scale, roofline,
LLM replies. `eval/` is what a user runs to score configurations; this package measures the
workbench itself. Layers: benchmarks -> eval -> rag."""

from benchmarks.retrieval import BenchSettings, RetrievalBench, run_retrieval_bench

__all__ = ["BenchSettings", "RetrievalBench", "run_retrieval_bench"]
