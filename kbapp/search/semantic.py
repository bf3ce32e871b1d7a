"""Dense retrieval: the query embedded by the active pack, matched against that pack's vectors,
one language pool at a time (see ``pools``).

Some passages sit close to every question: lists of part numbers, register dumps, index pages,
code. A small model puts them near questions on any subject (the "hubness" of nearest-neighbour
search in high dimensions), so the best cosine a question reaches says less when a hub reached
it. ``hubness`` measures each passage's pull as its mean cosine with everyday questions
(``everyday``'s sentences, embedded as questions) above its pool's average, the local scaling of
cross-domain similarity (CSLS) used in bilingual word retrieval; the relevance decision subtracts it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np
from sqlalchemy.engine import Engine

from kbapp.index.dense import DenseIndex
from kbapp.search.everyday import everyday_vectors
from kbapp.search.pools import LanguagePools, PoolStats
from kbapp.search.scripts import DocumentScripts
from kbapp.text.script import Script


class QueryEncoder(Protocol):
    @property
    def pack_id(self) -> str: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def word_boundaries(self, text: str) -> frozenset[int]: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


class SemanticRetriever:
    def __init__(
        self, encoder: QueryEncoder, index: DenseIndex, engine: Engine, scripts: DocumentScripts
    ) -> None:
        if encoder.pack_id != index.pack_id:
            raise ValueError("the vector index and the encoder must use the same model pack")
        self.encoder = encoder
        self.index = index
        self._pools = LanguagePools(engine, index, scripts)
        self._everyday: dict[Script, np.ndarray] | None = None
        self._questions: np.ndarray | None = None  # mean of the everyday sentences embedded as questions
        self._everyday_lock = threading.Lock()

    def embed(self, query: str) -> np.ndarray:
        return self.encoder.embed_query(query)

    def embed_many(self, queries: Sequence[str]) -> np.ndarray:
        """One row per query, embedded in one batch."""
        return self.encoder.embed_queries(queries)

    def has_pool(self, script: Script) -> bool:
        return script in self._pools.current().scripts

    def retrieve(
        self, vector: np.ndarray, limit: int, within_chunks: Sequence[int] | None = None
    ) -> tuple[list[tuple[int, float]], dict[int, Script]]:
        """``(chunk_id, cosine)`` best first, up to ``limit`` from each language pool, and each
        one's pool; only ``within_chunks`` when given. Searching the pools separately keeps the
        question's own language from filling every place."""
        allowed = None if within_chunks is None else np.array(within_chunks, dtype=np.int64)
        self.index.sync()
        pools = self._pools.current()
        if len(pools.scripts) <= 1:
            hits = self.index.search(vector, limit, allowed)
            return hits, {c: pools.scripts[0] for c, _ in hits} if pools.scripts else {}
        found: list[tuple[int, float]] = []
        script: dict[int, Script] = {}
        for s, members in pools.members.items():
            within = members if allowed is None else np.intersect1d(members, allowed, assume_unique=True)
            if len(within):
                hits = self.index.search(vector, limit, within)
                found += hits
                script.update((c, s) for c, _ in hits)
        return sorted(found, key=lambda hit: -hit[1]), script

    def pool_stats(self, vector: np.ndarray) -> dict[Script, PoolStats]:
        """How the question relates to each pool (see ``PoolStats``)."""
        return self._pools.current().stats(vector)

    def script_of_chunk(self, chunk_id: int) -> Script | None:
        return self._pools.current().script_of_chunk(chunk_id)

    def everyday_similarity(self, vector: np.ndarray) -> dict[Script, float]:
        """Per script, the question's highest cosine with everyday text no library is about
        (``EVERYDAY_PASSAGES``, embedded once per model, on first use)."""
        query = np.asarray(vector, np.float32).ravel()
        with self._everyday_lock:
            if self._everyday is None:
                encoder = self.encoder
                self._everyday = everyday_vectors(encoder.pack_id, query.size, encoder.embed_passages)
        return {script: float(np.max(matrix @ query)) for script, matrix in self._everyday.items()}

    def hubness(self, pool_of: dict[int, Script]) -> dict[int, float]:
        """For each chunk of ``pool_of`` (chunk -> pool), how much closer it sits to everyday
        questions than its pool's passages do on average. The mean cosine with the questions is
        the cosine with their mean vector, one product per passage."""
        with self._everyday_lock:
            if self._questions is None:
                encoder = self.encoder
                questions = everyday_vectors(
                    encoder.pack_id,
                    self.index.dimension,
                    lambda texts: np.stack([encoder.embed_query(t) for t in texts]),
                    kind="questions",
                )
                self._questions = np.concatenate([questions[s] for s in sorted(questions)]).mean(axis=0)
        baselines = self._pools.current().baselines(self._questions)
        pull = self.index.similarities(self._questions, list(pool_of))
        return {c: p - baselines[pool_of[c]] for c, p in pull.items()}

    def similarities(self, vector: np.ndarray, chunk_ids: list[int]) -> dict[int, float]:
        """Cosine of the query with each given chunk (those without a vector yet are left out)."""
        return self.index.similarities(vector, chunk_ids)
