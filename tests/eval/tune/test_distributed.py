"""Tuning on Optuna's distributed mode: two worker processes pull trials of one SQLite-backed
study, each process reads back the same trials; `eval tune --storage --workers 2` end to end."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import optuna
import pytest

from eval.cli import main
from eval.runs.history import list_rows
from eval.runs.store import load_run
from eval.tune.distributed import StudySpec, open_storage, shared_trials
from rag.paths import PROJECT_ROOT

WORKER = textwrap.dedent("""
    import json, sys, time
    from eval.tune.distributed import StudySpec, record_point, shared_trials
    spec = StudySpec(sys.argv[1], "shared", worker=int(sys.argv[2]))
    def run(trial):
        x = trial.suggest_int("x", 0, 100)
        time.sleep(0.15)  # a trial takes long enough for both processes to take some
        record_point(trial, {"x": x}, None)
        return -abs(x - 42)
    found = shared_trials(spec, "fold 1/2", 16, 0, run)
    print(json.dumps(found))
""")


def test_two_processes_pull_trials_of_one_sqlite_study(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tune.db'}"
    open_storage(url)  # create the schema once, before two processes race to
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, url, str(k)], cwd=PROJECT_ROOT,
                              stdout=subprocess.PIPE, text=True) for k in (1, 2)]
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    seen = [json.loads(out.strip().splitlines()[-1]) for out in outputs]
    assert seen[0] == seen[1] and len(seen[0]) == 16  # both read the same 16 trials back
    study = optuna.load_study(study_name="shared-fold1of2", storage=url)
    processes = {t.user_attrs["process"] for t in study.trials}
    assert len(processes) == 2 and len(study.trials) >= 16
    # a third process joining a finished study pulls nothing and reads the same trials
    again = shared_trials(StudySpec(url, "shared", 3), "fold 1/2", 16, 0,
                          lambda _t: pytest.fail("the study is full"))
    assert [list(map(str, r)) for r in again] == [list(map(str, r)) for r in seen[0]]


@pytest.mark.usefixtures("hashing_presets")
def test_tune_with_storage_and_two_workers_stores_one_run(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tune.db'}"
    out, runs = tmp_path / "out", tmp_path / "runs"
    argv = ["tune", "--dataset", str(PROJECT_ROOT / "datasets" / "beir_sample"), "--preset",
            "hybrid", "--folds", "2", "--trials", "4", "--resamples", "50", "--out", str(out),
            "--storage", url, "--workers", "2", "--runs-dir", str(runs)]
    assert main(argv) == 0
    report = json.loads((out / "tune.json").read_text())
    assert report["distributed"]["local_workers"] == 2 and report["protocol"]["search"] == "tpe"
    assert "done with study" in (out / "worker-1.log").read_text()
    name = report["distributed"]["study"]
    for part in ("fold1of2", "fold2of2", "all"):
        assert len(optuna.load_study(study_name=f"{name}-{part}", storage=url).trials) >= 4
    [row] = list_rows(runs)  # the worker stored nothing; the folds' scores are one run
    stored = load_run(row.path)
    assert row.data["kind"] == "tune" and sorted(stored.per_query["fold"].unique()) == [0, 1]
    assert len(stored.per_query) == 20


def test_workers_need_a_storage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tune", "--dataset", str(PROJECT_ROOT / "datasets" / "beir_sample"), "--preset",
            "bm25", "--out", str(tmp_path), "--workers", "2"]
    assert main(argv) == 2
    assert "need --storage URL" in capsys.readouterr().err
    with pytest.raises(ValueError, match="give an RDB URL"):
        open_storage("redis://nowhere")
