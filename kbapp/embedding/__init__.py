"""Multilingual sentence embeddings from self-built, hash-verified ONNX model packs.

Typical use::

    from kbapp.embedding import Encoder, default_pack_dir, load_pack

    encoder = Encoder(load_pack(default_pack_dir()))
    vectors = encoder.embed_passages(chunks)  # (n, 384) float32, L2-normalised
    query = encoder.embed_query("曝光时间")

Building packs (``kbapp.embedding.build``) needs only PyPI wheels; running them needs only
onnxruntime, tokenizers and numpy.

``Encoder`` is imported on first use: onnxruntime and numpy take a noticeable part of a second to
import, which the parse workers (they only count tokens) and a keyword-only import must not pay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbapp.contract import Cancelled
from kbapp.embedding.pack import ModelPack, PackError, default_pack_dir, load_pack

if TYPE_CHECKING:
    from kbapp.embedding.encoder import Encoder

__all__ = ["Cancelled", "Encoder", "ModelPack", "PackError", "default_pack_dir", "load_pack"]


def __getattr__(name: str) -> Any:
    if name == "Encoder":
        from kbapp.embedding.encoder import Encoder

        return Encoder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
