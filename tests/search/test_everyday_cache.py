"""The everyday yardstick's vectors are embedded once per model and then read from the user cache;
a cache that does not fit the model is never used."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from kbapp.search.everyday import EVERYDAY_PASSAGES, everyday_vectors


class CountingEmbedder:
    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.texts = 0

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        rng = np.random.default_rng(len(texts))
        return rng.standard_normal((len(texts), self.dimension)).astype(np.float32)


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path


def test_embedded_once_then_read_back() -> None:
    first = CountingEmbedder(8)
    vectors = everyday_vectors("pack@1", 8, first)
    assert first.texts == sum(len(t) for t in EVERYDAY_PASSAGES.values())
    again = CountingEmbedder(8)
    cached = everyday_vectors("pack@1", 8, again)
    assert again.texts == 0
    assert all(np.array_equal(cached[s], vectors[s]) for s in EVERYDAY_PASSAGES)


def test_another_model_or_width_embeds_afresh() -> None:
    everyday_vectors("pack@1", 8, CountingEmbedder(8))
    other_pack = CountingEmbedder(8)
    everyday_vectors("other@1", 8, other_pack)
    assert other_pack.texts > 0
    wider = CountingEmbedder(16)
    assert everyday_vectors("pack@1", 16, wider)[next(iter(EVERYDAY_PASSAGES))].shape[1] == 16
    assert wider.texts > 0


def test_a_damaged_cache_is_embedded_afresh(cache_home: Path) -> None:
    everyday_vectors("pack@1", 8, CountingEmbedder(8))
    (cached,) = (cache_home / "kbapp").glob("everyday-*.npz")
    cached.write_bytes(cached.read_bytes()[:100])
    fresh = CountingEmbedder(8)
    vectors = everyday_vectors("pack@1", 8, fresh)
    assert fresh.texts > 0 and all(np.isfinite(v).all() for v in vectors.values())
