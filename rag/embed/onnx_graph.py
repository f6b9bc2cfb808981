"""Editing an ONNX graph's node list in place (the int8 builds: onnx_smooth.py, onnx_rowquant.py)."""

from __future__ import annotations

from typing import Any


def replace_nodes(model: Any, nodes: list[Any]) -> None:
    """`model`'s node list replaced by `nodes`, in that order (copies: a node may come from it)."""
    copies = [type(node).FromString(node.SerializeToString()) for node in nodes]
    del model.graph.node[:]
    model.graph.node.extend(copies)
