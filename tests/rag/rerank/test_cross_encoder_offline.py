"""A cross-encoder that cannot be on this machine is reported before sentence-transformers (and
torch) are imported: presets that name a hub model skip their rerank stage at once, offline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag.rerank.base import RerankUnavailable
from rag.rerank.cross_encoder import available_offline, load_cross_encoder

ROOT = Path(__file__).resolve().parents[3]


def _run(script: str, **env: str) -> str:
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env={**os.environ, **env},
                            capture_output=True, text=True, check=True, timeout=120)
    return result.stdout.strip()


def test_an_uncached_hub_name_fails_without_importing_torch(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from rag.rerank.base import RerankUnavailable\n"
        "from rag.rerank.cross_encoder import load_cross_encoder\n"
        "try:\n"
        "    load_cross_encoder('cross-encoder/ms-marco-MiniLM-L-6-v2', 512)\n"
        "except RerankUnavailable as exc:\n"
        "    print('rerank.model' in str(exc), 'could not be loaded' in str(exc))\n"
        "print('sentence_transformers' in sys.modules, 'torch' in sys.modules)\n"
    )
    out = _run(script, HF_HUB_CACHE=str(tmp_path / "empty-cache"))
    assert out.splitlines() == ["True True", "False False"]


@pytest.mark.parametrize("model", ["datasets/build/no-such-model", "/no/such/folder", "a/b/c"])
def test_neither_a_folder_nor_a_hub_name_is_unavailable(model: str) -> None:
    assert not available_offline(model)
    with pytest.raises(RerankUnavailable, match=r"rerank\.model"):
        load_cross_encoder(model, 512)


def test_a_folder_or_a_cached_hub_name_is_available(tmp_path: Path) -> None:
    assert available_offline(str(tmp_path))
    snapshot = tmp_path / "hub" / "models--org--tiny-ce" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (tmp_path / "hub" / "models--org--tiny-ce" / "refs").mkdir()
    (tmp_path / "hub" / "models--org--tiny-ce" / "refs" / "main").write_text("abc123")
    script = (
        "from rag.rerank.cross_encoder import available_offline\n"
        "print(available_offline('org/tiny-ce'), available_offline('org/other'))\n"
    )
    assert _run(script, HF_HUB_CACHE=str(tmp_path / "hub")) == "True False"
