"""A plain numpy BERT forward pass over the dequantised weights: the yardstick for the ONNX graph.

It is written to be read, one sentence at a time and without padding, so that it shares no
tricks (fused ops, fused Q/K/V, padding masks) with the graph it checks. Computation is float64 to
keep the reference's own rounding out of the comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from math import erf, sqrt

import numpy as np

from kbapp.embedding.weights import BertWeights, LayerWeights, Q4Tensor, as_float

_erf = np.vectorize(erf, otypes=[np.float64])


class ReferenceBert:
    """Dequantises each layer once, then embeds token-id sequences one at a time."""

    def __init__(self, weights: BertWeights, *, position_offset: int = 0) -> None:
        """``position_offset`` exists only so tests can show a wrong offset (XLM-R's 2) is caught."""
        self._w = weights
        self._offset = position_offset
        self._layers = [_Dense.of(layer) for layer in weights.layers]

    def embed(self, token_ids: Sequence[int]) -> np.ndarray:
        """L2-normalised mean-pooled embedding of one sequence (special tokens included by caller)."""
        hidden = self.hidden_states(token_ids)
        pooled = hidden.mean(axis=0)
        return (pooled / np.linalg.norm(pooled)).astype(np.float32)

    def hidden_states(self, token_ids: Sequence[int]) -> np.ndarray:
        w, cfg = self._w, self._w.config
        ids = np.asarray(token_ids)
        word = w.word.dequantize(ids) if isinstance(w.word, Q4Tensor) else w.word[ids]
        positions = np.arange(len(ids)) + self._offset
        x = word.astype(np.float64) + w.position[positions] + w.token_type0
        x = _layer_norm(x, w.emb_ln_w, w.emb_ln_b, cfg.layer_norm_eps)
        for layer in self._layers:
            x = layer.forward(x, cfg.heads, cfg.layer_norm_eps)
        return x


class _Dense:
    """One layer as float64 arrays, matrices transposed to ``[in, out]`` for ``x @ w``."""

    def __init__(self, params: dict[str, np.ndarray]) -> None:
        self.p = params

    @classmethod
    def of(cls, layer: LayerWeights) -> _Dense:
        params = {}
        for f in fields(layer):
            value = getattr(layer, f.name)
            if isinstance(value, Q4Tensor) or value.ndim == 2:
                value = as_float(value).T
            params[f.name] = value.astype(np.float64)
        return cls(params)

    def forward(self, x: np.ndarray, heads: int, eps: float) -> np.ndarray:
        p = self.p
        q = x @ p["q_w"] + p["q_b"]
        k = x @ p["k_w"] + p["k_b"]
        v = x @ p["v_w"] + p["v_b"]
        ctx = _attention(q, k, v, heads)
        x = _layer_norm(x + ctx @ p["attn_out_w"] + p["attn_out_b"], p["attn_ln_w"], p["attn_ln_b"], eps)
        mid = _gelu(x @ p["ffn_in_w"] + p["ffn_in_b"])
        return _layer_norm(x + mid @ p["ffn_out_w"] + p["ffn_out_b"], p["out_ln_w"], p["out_ln_b"], eps)


def _attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: int) -> np.ndarray:
    seq, hidden = q.shape
    d = hidden // heads

    def split(t: np.ndarray) -> np.ndarray:
        return t.reshape(seq, heads, d).transpose(1, 0, 2)

    scores = split(q) @ split(k).transpose(0, 2, 1) / sqrt(d)
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs = scores / scores.sum(axis=-1, keepdims=True)
    return (probs @ split(v)).transpose(1, 0, 2).reshape(seq, hidden)


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as BERT uses; the tanh approximation would bias the comparison."""
    return 0.5 * x * (1.0 + _erf(x / sqrt(2.0)))
