"""One search: parse the query, run the retrievers the mode asks for, fuse, floor, assemble.

The floor is what makes "nothing relevant found" honest: a passage is only shown if the
keyword index matched it or its vector is close enough to the query's that it plausibly
answers it; the thresholds are calibrated on the development sets (see ``bench/``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from sqlalchemy.engine import Connection, Engine

from kbapp.search.assemble import Candidate, assemble
from kbapp.search.fusion import reciprocal_rank_fusion
from kbapp.search.lexical import lexical_search
from kbapp.search.results import SearchResponse
from kbapp.search.semantic import SemanticRetriever
from kbapp.text.terms import query_terms

MODES = ("hybrid", "lexical", "dense")
NOTHING_FOUND = "Nothing in the library matches this query."
NOTHING_RELEVANT = "Nothing relevant found: no passage in the library is close to this question."

LEXICAL_DEPTH = 50
DENSE_DEPTH = 50
# Cosine below which a passage the keyword index did not match is treated as unrelated
# (multilingual-e5 puts unrelated text around 0.70–0.78; answers usually score above 0.80).
DENSE_FLOOR = 0.80


def _allowed_chunks(conn: Connection, document_ids: Sequence[int]) -> np.ndarray:
    marks = ",".join("?" * len(document_ids)) or "NULL"
    rows = conn.exec_driver_sql(f"SELECT id FROM chunks WHERE document_id IN ({marks})", tuple(document_ids))
    return np.fromiter((r[0] for r in rows), dtype=np.int64)


class Searcher:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.semantic: SemanticRetriever | None = None
        self.semantic_unavailable = "the embedding model is not loaded"

    def search(
        self, query: str, k: int = 10, mode: str = "hybrid", document_ids: Sequence[int] | None = None
    ) -> SearchResponse:
        if mode not in MODES:
            raise ValueError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
        started = time.perf_counter()
        terms = query_terms(query)
        semantic = self.semantic
        message = None
        use_dense = mode != "lexical" and semantic is not None and bool(query.strip())
        use_lexical = mode != "dense" or semantic is None
        if mode != "lexical" and semantic is None:
            message = f"Semantic search unavailable ({self.semantic_unavailable}); showing keyword matches."
        with self._engine.connect() as conn:
            lexical = lexical_search(conn, terms, LEXICAL_DEPTH, document_ids) if use_lexical else []
            dense: list[tuple[int, float]] = []
            if use_dense:
                assert semantic is not None
                allowed = _allowed_chunks(conn, document_ids) if document_ids is not None else None
                dense = semantic.retrieve(query, DENSE_DEPTH, allowed)
            candidates = self._candidates(lexical, dense)
            results = assemble(conn, candidates, terms, k)
        if not results and message is None:
            message = NOTHING_RELEVANT if use_dense else NOTHING_FOUND
        took = (time.perf_counter() - started) * 1000
        return SearchResponse(query, mode, results, message, took)

    @staticmethod
    def _candidates(lexical: list[tuple[int, float]], dense: list[tuple[int, float]]) -> list[Candidate]:
        why: dict[int, dict[str, float | int]] = {}
        for rank, (chunk_id, score) in enumerate(lexical, start=1):
            why.setdefault(chunk_id, {}).update(lexical_rank=rank, bm25=round(score, 4))
        for rank, (chunk_id, sim) in enumerate(dense, start=1):
            why.setdefault(chunk_id, {}).update(dense_rank=rank, similarity=round(sim, 4))
        if not dense:
            return [Candidate(c, s, dict(why[c])) for c, s in lexical]
        # Dense hits below the floor only count if the keyword index found them too.
        kept_dense = [c for c, sim in dense if sim >= DENSE_FLOOR or "lexical_rank" in why[c]]
        if not lexical:
            return [Candidate(c, why[c]["similarity"], dict(why[c])) for c in kept_dense]
        fused = reciprocal_rank_fusion([[c for c, _ in lexical], kept_dense])
        return [Candidate(c, round(score, 6), dict(why[c])) for c, score in fused]
