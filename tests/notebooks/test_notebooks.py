"""The worked analyses in notebooks/ run top to bottom on the bundled sample data, and are kept
in git executed (notebooks/execute.py), so a reader sees their tables and figures without
running them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hashing_presets import use_hashing_presets

if TYPE_CHECKING:
    from jupyter_client.manager import KernelManager

# nbformat, nbclient and jupyter_client are imported by the tests that use them: every test worker
# collects this file, and nbformat's schema validator alone takes 1.5-4 s to import here

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_at_least_three_analyses() -> None:
    assert [p.name[:2] for p in NOTEBOOKS][:3] == ["01", "02", "03"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_are_stored_executed_with_tables_and_figures(path: Path) -> None:
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and [c.execution_count for c in code] == list(range(1, len(code) + 1))
    kinds = {kind for c in code for o in c.outputs for kind in o.get("data", {})}
    assert {"text/html", "application/vnd.plotly.v1+json"} <= kinds  # a table and a figure
    outputs = [o for c in code for o in c.outputs]
    assert not any(o.output_type == "error" for o in outputs)
    assert not any(o.get("name") == "stderr" for o in outputs)  # no progress-bar noise


@pytest.fixture(scope="module")
def kernel_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data folder of the notebooks' own, shared by them (one kernel at a time): Qdrant's
    local mode lets one process hold a folder, and this test process may hold the tests' one.
    The test checks that the analyses run, not their numbers, so presets embed with the hashing
    backend (kernels inherit the environment) instead of loading MiniLM in every kernel."""
    folder = tmp_path_factory.mktemp("notebooks-data")
    with pytest.MonkeyPatch.context() as patch:
        use_hashing_presets(patch, folder)
        yield folder


@pytest.fixture(scope="module")
def kernel(kernel_data: Path) -> Iterator[KernelManager]:
    """One kernel runs the notebooks in turn, its namespace reset between them (`%reset -f`), so
    each notebook still needs its own imports and names; only the modules stay loaded, which
    saves a kernel start and the imports per notebook (34.7 -> 16.9 s for the four, idle)."""
    from jupyter_client.manager import KernelManager

    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(cwd=str(NOTEBOOKS[0].parent))
    try:
        yield manager
    finally:
        manager.shutdown_kernel(now=True)


@pytest.mark.slow  # each notebook indexes the samples or the BEIR sample
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path: Path, kernel_data: Path, kernel: KernelManager) -> None:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, km=kernel, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute(cleanup_kc=False)  # raises CellExecutionError naming the cell that failed
    finally:  # the next notebook starts from an empty namespace in the notebooks folder
        assert client.kc is not None
        client.kc.execute_interactive(
            f"%reset -f\nimport os\nos.chdir({str(path.parent)!r})", timeout=60)
        client.kc.stop_channels()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code)
    assert code[-1].outputs, "the last cell shows the analysis' final result"
    assert (kernel_data / "collections").is_dir()  # it indexed into its own data folder
