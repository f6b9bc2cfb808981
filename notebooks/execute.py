"""Re-execute the notebooks in place, so they are committed with their outputs (tables, plotly
figures) for a reader who does not run them: `python notebooks/execute.py [NAME.ipynb …]`.

Runs each kernel in a fresh data folder with the real presets (MiniLM, no overrides), offline;
plotly figures are stored as the plotly mime bundle (JupyterLab, VS Code) and HTML (nbviewer);
progress bars on stderr are dropped.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


def execute(path: Path) -> float:
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(notebook, timeout=1200, kernel_name="python3",
                   resources={"metadata": {"path": str(HERE)}}).execute()
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs
                            if not (o.output_type == "stream" and o.get("name") == "stderr")]
    nbformat.write(notebook, path)
    return time.perf_counter() - started


def main(names: list[str]) -> None:
    os.environ["RAG_WORKBENCH_DATA"] = tempfile.mkdtemp(prefix="notebooks-")
    os.environ.pop("RAG_WORKBENCH_PRESET_OVERRIDES", None)
    os.environ["PLOTLY_RENDERER"] = "plotly_mimetype+notebook_connected"
    for key in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ[key] = "1"
    for path in [HERE / n for n in names] or sorted(HERE.glob("*.ipynb")):
        print(f"{path.name}: {execute(path):.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
