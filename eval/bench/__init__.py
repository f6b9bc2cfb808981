"""Speed benchmarks that write JSON (timings never live in tests)."""

from eval.bench.retrieval import BenchSettings, RetrievalBench, run_retrieval_bench

__all__ = ["BenchSettings", "RetrievalBench", "run_retrieval_bench"]
