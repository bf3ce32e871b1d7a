"""One search: parse the query, run the retrievers the mode asks for, fuse, assemble, apply the floor.

The floor is what makes "nothing relevant found" honest. A question gets results only if at
least one passage covers enough of its keywords (IDF-weighted, so a rare part number counts for
more than "time") or has a vector close enough to the question's that it plausibly answers it:
above a floor that grows with the library, and closer to the question than any of a set of
everyday sentences is (``unrelated.py``: that yardstick moves with the question). Then the
ranking is shown as fused, since pruning individual passages cost recall on every development
set. The thresholds are calibrated against questions no document answers
(``bench/calibrate_floor.py``). Lexical mode has no floor beyond "matches at least one term".
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence

import numpy as np
from sqlalchemy.engine import Connection, Engine

from kbapp.contract import (
    DENSE_DEPTH,
    LEXICAL_DEPTH,
    MODES,
    NOTHING_FOUND,
    NOTHING_RELEVANT,
    SearchResponse,
    SearchResult,
)
from kbapp.search.assemble import Candidate, assemble
from kbapp.search.fusion import score_blend
from kbapp.search.lexical import lexical_search, term_stats
from kbapp.search.semantic import SemanticRetriever
from kbapp.text.terms import query_terms, quoted_phrases

# When is a passage relevant on meaning alone? multilingual-e5 places unrelated text at levels
# that depend on the language pair (unrelated Chinese↔Chinese pairs reach 0.82 in a ten-passage
# library, English↔English 0.77, across the two 0.74) and, like the maximum of any noisy score,
# the best unrelated passage creeps up with the size of the library, about as sqrt(2 ln N).
# The floor is that expected best unrelated similarity plus a margin: mean and spread per
# (query script, passage script) were fitted on a small bilingual library and on the 134-page
# SDCC manual against 40 everyday questions neither can answer (bench/calibrate_floor.py).
UNRELATED_COSINE = {  # (mean, spread) of a query's cosine with unrelated passages
    ("latin", "latin"): (0.679, 0.043),
    ("cjk", "cjk"): (0.732, 0.043),
    ("cjk", "latin"): (0.632, 0.048),
    ("latin", "cjk"): (0.632, 0.048),
}
FLOOR_MARGIN = 0.005
FLOOR_RANGE = (0.76, 0.83)
COVERAGE_FLOOR = 0.5  # share of the query's keyword weight that makes it relevant on words alone


def _allowed_chunks(conn: Connection, document_ids: Sequence[int]) -> np.ndarray:
    marks = ",".join("?" * len(document_ids)) or "NULL"
    rows = conn.exec_driver_sql(f"SELECT id FROM chunks WHERE document_id IN ({marks})", tuple(document_ids))
    return np.fromiter((r[0] for r in rows), dtype=np.int64)


def _candidates(
    lexical: list[tuple[int, float]],
    dense: list[tuple[int, float]],
    semantic: SemanticRetriever | None,
    vector: np.ndarray | None,
) -> list[Candidate]:
    """Fused candidates; in hybrid mode each is scored by both retrievers, and ``why`` says so.

    ``lexical`` is the keyword ranking (its first ``LEXICAL_DEPTH``) followed by the BM25 of
    vector candidates that ranked below that cut.
    """
    ranked, bm25 = lexical[:LEXICAL_DEPTH], dict(lexical)
    why: dict[int, dict[str, float | int]] = {c: {"bm25": round(score, 4)} for c, score in lexical}
    for rank, (chunk_id, _) in enumerate(ranked, start=1):
        why[chunk_id]["lexical_rank"] = rank
    for rank, (chunk_id, sim) in enumerate(dense, start=1):
        why.setdefault(chunk_id, {}).update(dense_rank=rank, similarity=round(sim, 4))
    if semantic is None or vector is None:
        return [Candidate(c, s, dict(why[c])) for c, s in ranked]
    if not ranked:
        return [Candidate(c, sim, dict(why[c])) for c, sim in dense]
    cosine = dict(dense)
    for chunk_id, sim in semantic.similarities(vector, [c for c, _ in ranked if c not in cosine]).items():
        cosine[chunk_id] = sim
        why[chunk_id]["similarity"] = round(sim, 4)
    fused = score_blend(ranked, dense, bm25, cosine)
    return [Candidate(c, round(score, 6), dict(why[c])) for c, score in fused]


_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def script_of(text: str) -> str:
    """ "cjk" when CJK characters make up a fair share of the letters, else "latin"."""
    sample = text[:400]
    letters = sum(ch.isalpha() for ch in sample) or 1
    return "cjk" if len(_CJK_RE.findall(sample)) / letters >= 0.3 else "latin"


def dense_floor(query_script: str, passage_script: str, passages: int) -> float:
    mean, spread = UNRELATED_COSINE[query_script, passage_script]
    floor = mean + spread * math.sqrt(2 * math.log(max(passages, 2))) + FLOOR_MARGIN
    return min(max(floor, FLOOR_RANGE[0]), FLOOR_RANGE[1])


def _relevant(result: SearchResult, query_script: str, passages: int, unrelated: dict[str, float]) -> bool:
    """Relevant on words (enough of the query's keyword weight), or on meaning: above the floor
    for the library's size and closer to the question than any everyday sentence in the
    passage's script is."""
    similarity = result.why.get("similarity")
    script = script_of(result.text)
    if (
        similarity is not None
        and similarity >= dense_floor(query_script, script, passages)
        and similarity > unrelated[script]
    ):
        return True
    return result.why.get("keyword_coverage", 0.0) >= COVERAGE_FLOOR


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
        semantic = self.semantic if mode != "lexical" and query.strip() else None
        message = None
        if mode != "lexical" and self.semantic is None:
            message = f"Semantic search unavailable ({self.semantic_unavailable}); showing keyword matches."
        with self._engine.connect() as conn:
            dense: list[tuple[int, float]] = []
            vector = None
            if semantic is not None:
                vector = semantic.embed(query)
                allowed = _allowed_chunks(conn, document_ids) if document_ids is not None else None
                dense = semantic.retrieve(vector, DENSE_DEPTH, allowed)
            stats = term_stats(conn, terms)
            lexical: list[tuple[int, float]] = []
            if mode != "dense" or not semantic:
                # Document frequencies are library-wide; within a few documents every term may count.
                rankable = stats.rankable(terms, LEXICAL_DEPTH) if document_ids is None else terms
                phrases, also = quoted_phrases(query), [c for c, _ in dense]
                lexical = lexical_search(conn, rankable, LEXICAL_DEPTH, document_ids, phrases, also)
            weights = stats.weights(terms)
            results = assemble(conn, _candidates(lexical, dense, semantic, vector), terms, weights, k)
        if semantic is not None and vector is not None:
            results = self._apply_floor(query, results, semantic, vector)
        if not results and message is None:
            message = NOTHING_RELEVANT if semantic is not None else NOTHING_FOUND
        took = (time.perf_counter() - started) * 1000
        return SearchResponse(query, mode, results, message, took)

    @staticmethod
    def _apply_floor(
        query: str, results: list[SearchResult], semantic: SemanticRetriever, vector: np.ndarray
    ) -> list[SearchResult]:
        script, passages = script_of(query), semantic.index.count
        unrelated = semantic.unrelated_similarity(vector)
        return results if any(_relevant(r, script, passages, unrelated) for r in results) else []
