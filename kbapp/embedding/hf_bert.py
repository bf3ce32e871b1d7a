"""Read a Hugging Face BERT directory (``config.json`` + ``model.safetensors``) into ``BertWeights``.

Weights stay float32, exactly as published, so a pack built from them matches the original
model rather than a re-quantised copy. Only absolute (BERT-style, from 0) position embeddings
and the exact GELU are supported; anything else is refused rather than silently mis-run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import load_file

from kbapp.embedding.weights import BertConfig, BertWeights, LayerWeights


class HFModelError(ValueError):
    """The directory is not a BERT model this reader can convert faithfully."""


_REQUIRED = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "vocab_size",
    "max_position_embeddings",
)


def read_hf_config(src_dir: Path) -> BertConfig:
    cfg = _read_json(src_dir / "config.json")
    if cfg.get("model_type") != "bert":
        raise HFModelError(f"model_type {cfg.get('model_type')!r} is not 'bert'")
    missing = [key for key in _REQUIRED if key not in cfg]
    if missing:
        raise HFModelError(f"config.json lacks {', '.join(missing)}")
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise HFModelError(f"position_embedding_type {cfg['position_embedding_type']!r} unsupported")
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise HFModelError(f"hidden_act {cfg['hidden_act']!r} unsupported (need exact 'gelu')")
    return BertConfig(
        hidden=cfg["hidden_size"],
        layers=cfg["num_hidden_layers"],
        heads=cfg["num_attention_heads"],
        intermediate=cfg["intermediate_size"],
        vocab=cfg["vocab_size"],
        max_positions=cfg["max_position_embeddings"],
        layer_norm_eps=float(cfg.get("layer_norm_eps", 1e-12)),
    )


def read_hf_bert(src_dir: Path) -> BertWeights:
    config = read_hf_config(src_dir)
    try:
        tensors = load_file(str(src_dir / "model.safetensors"))
    except Exception as err:  # safetensors raises its own error type as well as OSError
        raise HFModelError(f"model.safetensors cannot be read ({err})") from err
    # BertForX checkpoints prefix the encoder with "bert."; a bare BertModel does not.
    tensors = {name.removeprefix("bert."): value for name, value in tensors.items()}

    def t(name: str) -> np.ndarray:
        try:
            return tensors[name].astype(np.float32)
        except KeyError:
            raise HFModelError(f"tensor {name!r} missing from model.safetensors") from None

    layers = []
    for i in range(config.layers):
        p = f"encoder.layer.{i}."
        layers.append(
            LayerWeights(
                q_w=t(p + "attention.self.query.weight"),
                q_b=t(p + "attention.self.query.bias"),
                k_w=t(p + "attention.self.key.weight"),
                k_b=t(p + "attention.self.key.bias"),
                v_w=t(p + "attention.self.value.weight"),
                v_b=t(p + "attention.self.value.bias"),
                attn_out_w=t(p + "attention.output.dense.weight"),
                attn_out_b=t(p + "attention.output.dense.bias"),
                attn_ln_w=t(p + "attention.output.LayerNorm.weight"),
                attn_ln_b=t(p + "attention.output.LayerNorm.bias"),
                ffn_in_w=t(p + "intermediate.dense.weight"),
                ffn_in_b=t(p + "intermediate.dense.bias"),
                ffn_out_w=t(p + "output.dense.weight"),
                ffn_out_b=t(p + "output.dense.bias"),
                out_ln_w=t(p + "output.LayerNorm.weight"),
                out_ln_b=t(p + "output.LayerNorm.bias"),
            )
        )
    return BertWeights(
        config=config,
        word=t("embeddings.word_embeddings.weight"),
        position=t("embeddings.position_embeddings.weight"),
        token_type0=t("embeddings.token_type_embeddings.weight")[0],
        emb_ln_w=t("embeddings.LayerNorm.weight"),
        emb_ln_b=t("embeddings.LayerNorm.bias"),
        layers=tuple(layers),
    )


def read_token_limit(src_dir: Path, config: BertConfig) -> int:
    """The sequence limit the model was meant to run with; refuses non-mean pooling.

    sentence-transformers directories state it (``max_seq_length``) and their pooling mode;
    a bare BERT directory is limited only by its position table.
    """
    pooling = src_dir / "1_Pooling" / "config.json"
    if pooling.is_file() and not _read_json(pooling).get("pooling_mode_mean_tokens"):
        raise HFModelError(f"{pooling}: the model was trained with a pooling other than mean")
    st_config = src_dir / "sentence_bert_config.json"
    if st_config.is_file():
        limit = _read_json(st_config).get("max_seq_length")
        if limit:
            return min(int(limit), config.max_positions)
    return config.max_positions


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise HFModelError(f"{path.name} cannot be read ({err})") from err
    if not isinstance(data, dict):
        raise HFModelError(f"{path.name} is not a JSON object")
    return data
