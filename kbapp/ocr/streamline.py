"""The pinned OCR models rewritten in memory into fewer, equivalent operations before a session is built.

The PP-OCRv4 ONNX exports keep each PP-LCNet block as ``Conv → Mul(a) → Add(b)`` (a scalar
"learnable affine" step) followed by hard-swish spelled out as ``Add(3) → Clip(0, 6) → Mul → Div(6)``.
onnxruntime fuses neither (its Conv–Mul fusion wants the constant as the Mul's second input), so
about half of the recogniser's time went to elementwise passes over full feature maps. Here:

* a scalar ``Mul``/``Add`` right after a ``Conv`` is folded into that Conv's weights and bias
  (``a·(W∗x + B) + b = (a·W)∗x + (a·B + b)``, exact up to float rounding), and
* hard-swish becomes ``x · HardSigmoid(x)`` with ``alpha = 1/6, beta = 0.5`` (``clip(x + 3, 0, 6) / 6``
  is the same function), two passes instead of four.

The files on disk are untouched and still hash-checked; only the graph given to onnxruntime changes.
``tests/ocr/test_streamline.py`` checks the rewritten models give the original outputs.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper


def streamlined(path: Path) -> bytes:
    """The model at ``path`` with Conv-affine folding and fused hard-swish, serialised for onnxruntime."""
    model = onnx.load(str(path))
    graph = model.graph
    constants = {
        node.output[0]: numpy_helper.to_array(node.attribute[0].t)
        for node in graph.node
        if node.op_type == "Constant" and len(node.attribute) == 1 and node.attribute[0].name == "value"
    }
    protected = {output.name for output in graph.output}
    _fold_conv_affine(graph, constants, protected)
    _fuse_hard_swish(graph, constants, protected)
    _drop_unused_constants(graph)
    data: bytes = model.SerializeToString()
    return data


def _consumers(nodes: list[onnx.NodeProto]) -> dict[str, list[int]]:
    users: dict[str, list[int]] = defaultdict(list)
    for index, node in enumerate(nodes):
        for name in node.input:
            users[name].append(index)
    return users


def _scalar_operand(node: onnx.NodeProto, value: str, constants: dict[str, np.ndarray]) -> float | None:
    """The scalar constant ``node`` combines with ``value`` (its other input), if that is what it does."""
    if len(node.input) != 2 or value not in node.input:
        return None
    other = node.input[1] if node.input[0] == value else node.input[0]
    array = constants.get(other)
    if array is None or array.size != 1 or array.dtype != np.float32:
        return None
    return float(array.reshape(()))


def _only_user(
    nodes: list[onnx.NodeProto], users: dict[str, list[int]], name: str, op: str, protected: set[str]
) -> int | None:
    """The index of the one node reading ``name``, if it is an ``op`` and ``name`` is no graph output."""
    found = users.get(name, [])
    if len(found) != 1 or nodes[found[0]].op_type != op or name in protected:
        return None
    return found[0]


def _fold_conv_affine(graph: onnx.GraphProto, constants: dict[str, np.ndarray], protected: set[str]) -> None:
    nodes = list(graph.node)
    users = _consumers(nodes)
    removed: set[int] = set()
    added: list[onnx.NodeProto] = []
    for conv in nodes:
        if conv.op_type != "Conv" or conv.input[1] not in constants:
            continue
        has_bias = len(conv.input) > 2 and bool(conv.input[2])
        if has_bias and conv.input[2] not in constants:
            continue
        at_mul = _only_user(nodes, users, conv.output[0], "Mul", protected)
        if at_mul is None or (scale := _scalar_operand(nodes[at_mul], conv.output[0], constants)) is None:
            continue
        mul = nodes[at_mul]
        at_add = _only_user(nodes, users, mul.output[0], "Add", protected)
        if at_add is None or (shift := _scalar_operand(nodes[at_add], mul.output[0], constants)) is None:
            continue
        weight = constants[conv.input[1]]
        bias = constants[conv.input[2]] if has_bias else np.zeros(weight.shape[0], np.float32)
        folded = ((weight * scale).astype(np.float32), (bias * scale + shift).astype(np.float32))
        names = (f"{conv.output[0]}.folded_w", f"{conv.output[0]}.folded_b")
        for name, array in zip(names, folded, strict=True):
            constants[name] = array
            added.append(helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array, name)))
        del conv.input[1:]
        conv.input.extend(names)
        conv.output[0] = nodes[at_add].output[0]
        removed.update((at_mul, at_add))
    _replace_nodes(graph, nodes, removed, added)


def _fuse_hard_swish(graph: onnx.GraphProto, constants: dict[str, np.ndarray], protected: set[str]) -> None:
    nodes = list(graph.node)
    users = _consumers(nodes)
    removed: set[int] = set()
    for add in nodes:
        if add.op_type != "Add" or len(add.input) != 2:
            continue
        x = next((name for name in add.input if _scalar_operand(add, name, constants) == 3.0), None)
        if x is None:
            continue
        at_clip = _only_user(nodes, users, add.output[0], "Clip", protected)
        if at_clip is None or [_constant_value(constants, n) for n in nodes[at_clip].input[1:]] != [0.0, 6.0]:
            continue
        clip = nodes[at_clip]
        at_mul = _only_user(nodes, users, clip.output[0], "Mul", protected)
        if at_mul is None or sorted(nodes[at_mul].input) != sorted([x, clip.output[0]]):
            continue
        mul = nodes[at_mul]
        at_div = _only_user(nodes, users, mul.output[0], "Div", protected)
        if at_div is None:
            continue
        div = nodes[at_div]
        if div.input[0] != mul.output[0] or _constant_value(constants, div.input[1]) != 6.0:
            continue
        gate = f"{add.output[0]}.hard_sigmoid"
        # The Add and Div slots are reused, so the graph stays in topological order.
        add.CopyFrom(helper.make_node("HardSigmoid", [x], [gate], alpha=1 / 6, beta=0.5))
        div.CopyFrom(helper.make_node("Mul", [x, gate], [div.output[0]]))
        removed.update((at_clip, at_mul))
    _replace_nodes(graph, nodes, removed, [])


def _constant_value(constants: dict[str, np.ndarray], name: str) -> float | None:
    array = constants.get(name)
    return float(array.reshape(())) if array is not None and array.size == 1 else None


def _replace_nodes(
    graph: onnx.GraphProto, nodes: list[onnx.NodeProto], removed: set[int], added: list[onnx.NodeProto]
) -> None:
    kept = [node for index, node in enumerate(nodes) if index not in removed]
    del graph.node[:]
    graph.node.extend([*added, *kept])


def _drop_unused_constants(graph: onnx.GraphProto) -> None:
    used = {name for node in graph.node for name in node.input} | {output.name for output in graph.output}
    kept = [node for node in graph.node if node.op_type != "Constant" or node.output[0] in used]
    del graph.node[:]
    graph.node.extend(kept)
