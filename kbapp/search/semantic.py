"""Dense retrieval: the query embedded by the active pack, matched against that pack's vectors."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from kbapp.index.dense import DenseIndex


class QueryEncoder(Protocol):
    @property
    def pack_id(self) -> str: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class SemanticRetriever:
    def __init__(self, encoder: QueryEncoder, index: DenseIndex) -> None:
        if encoder.pack_id != index.pack_id:
            raise ValueError("the vector index and the encoder must use the same model pack")
        self.encoder = encoder
        self.index = index

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
