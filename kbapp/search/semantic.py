"""Dense retrieval: the query embedded by the active pack, matched against that pack's vectors."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from kbapp.index.dense import DenseIndex
from kbapp.search.unrelated import UNRELATED_PASSAGES


class QueryEncoder(Protocol):
    @property
    def pack_id(self) -> str: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


class SemanticRetriever:
    def __init__(self, encoder: QueryEncoder, index: DenseIndex) -> None:
        if encoder.pack_id != index.pack_id:
            raise ValueError("the vector index and the encoder must use the same model pack")
        self.encoder = encoder
        self.index = index
        self._unrelated: dict[str, np.ndarray] | None = None
        self._unrelated_lock = threading.Lock()

    def embed(self, query: str) -> np.ndarray:
        return self.encoder.embed_query(query)

    def retrieve(
        self, vector: np.ndarray, limit: int, allowed: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """``(chunk_id, cosine)`` best first."""
        return self.index.search(vector, limit, allowed)

    def similarities(self, vector: np.ndarray, chunk_ids: list[int]) -> dict[int, float]:
        """Cosine of the query with each given chunk (those without a vector yet are left out)."""
        return self.index.similarities(vector, chunk_ids)

    def unrelated_similarity(self, vector: np.ndarray) -> dict[str, float]:
        """Per script, the query's highest cosine with everyday text no library is about
        (``UNRELATED_PASSAGES``, embedded once, on first use): a passage in that script less
        similar than that is not evidence of anything."""
        with self._unrelated_lock:
            if self._unrelated is None:
                self._unrelated = {
                    script: self.encoder.embed_passages(texts) for script, texts in UNRELATED_PASSAGES.items()
                }
        query = np.asarray(vector, np.float32).ravel()
        return {script: float(np.max(matrix @ query)) for script, matrix in self._unrelated.items()}
