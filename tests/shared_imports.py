"""Scheduling for pytest-xdist: test files that load the same heavy library run on one worker."""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling

# Test files that load the same heavy library go to one worker as one unit, so only that worker
# pays for importing it and loading its models (sentence-transformers: ~7 s of CPU to import here,
# ragas ~4 s); every other file is its own unit, as with --dist loadfile.
SHARED_IMPORT_GROUPS: dict[str, tuple[str, ...]] = {
    "sentence-transformers": (
        "tests/eval/diagnostics/test_reference_agreement.py",
        "benchmarks/tests/test_bench_embed.py",
        "benchmarks/tests/test_bench_retrieval.py",
        "tests/pages/test_rerank_page.py",
        "tests/rag/embed/test_embed_backends.py",
        "tests/rag/rerank/test_rerank_cross_encoder.py",
        "tests/rag/rerank/test_rerank_preset_missing_model.py",
        "tests/rag/rerank/test_rerank_stage.py",
    ),
    "ragas": (
        "tests/eval/scoring/test_answers.py",
        "tests/eval/test_cli_run_own_corpus.py",
        "tests/pages/test_evaluate_answers_section.py",
    ),
}
_GROUP_OF = {path: group for group, paths in SHARED_IMPORT_GROUPS.items() for path in paths}
# Folders whose files form one unit: the browser tests share one app server and one chromium
# (tests/browser/conftest.py), and their later files read what the earlier ones built.
SHARED_FOLDERS = ("tests/browser/",)


class SharedImportScheduling(LoadFileScheduling):
    """--dist loadfile, except that the files of one shared-import group form one unit."""

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        folder = next((f for f in SHARED_FOLDERS if path.startswith(f)), None)
        return folder or _GROUP_OF.get(path, path)
