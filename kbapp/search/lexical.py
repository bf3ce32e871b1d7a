"""Keyword retrieval: the query's terms ORed in FTS5 and ranked by its BM25.

Only chunks that contain at least one query term come back, so a query that matches nothing
returns nothing — never "the first N chunks".
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy.engine import Connection

from kbapp.text.terms import Term, fts_match_expression

# Title and heading path count less than the passage itself: they are shared by many chunks.
_BM25 = "bm25(chunk_fts, 1.0, 0.35)"
_QUOTED_MARGIN = 0.01


def lexical_search(
    conn: Connection,
    terms: list[Term],
    limit: int,
    document_ids: Sequence[int] | None = None,
    phrases: Sequence[str] = (),
    also: Sequence[int] = (),
) -> list[tuple[int, float]]:
    """``(chunk_id, score)`` best first; the score is BM25 (higher is better).

    ``phrases`` (see ``quoted_phrases``) are what the user quoted: passages containing all of
    them come first, each group in BM25 order; without such passages the ranking is plain BM25.
    Quoted matches have their BM25 lifted just above the best other passage, so scores still
    fall with rank.

    The first ``limit`` entries are the ranking. Chunks in ``also`` (the vector candidates) that
    match a term but rank below the cut follow them, so fusion can weigh their BM25 too. They are
    scored in the same pass over the matches: FTS5 scores a lookup by rowid no cheaper.
    """
    if not terms:
        return []
    anything = fts_match_expression(terms)
    if not phrases:
        return _ranked(conn, anything, limit, document_ids, also)
    quoted = _ranked(conn, f"({' AND '.join(phrases)}) AND ({anything})", limit, document_ids, ())
    first = {chunk_id for chunk_id, _ in quoted}
    rest = [hit for hit in _ranked(conn, anything, limit, document_ids, also) if hit[0] not in first]
    if quoted and rest:
        lift = max(0.0, rest[0][1] - quoted[-1][1]) + _QUOTED_MARGIN
        quoted = [(chunk_id, score + lift) for chunk_id, score in quoted]
    ranked = (quoted + rest)[:limit]
    shown = {chunk_id for chunk_id, _ in ranked}
    wanted = set(also)
    return ranked + [hit for hit in rest if hit[0] in wanted and hit[0] not in shown]


def _ranked(
    conn: Connection, expression: str, limit: int, document_ids: Sequence[int] | None, also: Sequence[int]
) -> list[tuple[int, float]]:
    """The best ``limit`` matches, then those of ``also`` below them; all in score order."""
    sql = f"SELECT rowid, -{_BM25} AS score FROM chunk_fts WHERE chunk_fts MATCH ?"
    params: list[object] = [expression]
    if document_ids is not None:
        marks = ",".join("?" * len(document_ids)) or "NULL"
        sql += f" AND rowid IN (SELECT id FROM chunks WHERE document_id IN ({marks}))"
        params.extend(document_ids)
    # ``also`` sorts first, so the LIMIT keeps all of it plus at least ``limit`` others: a
    # superset of the true best ``limit``, which sorting by score recovers.
    forced = f"rowid NOT IN ({','.join('?' * len(also))}), " if also else ""
    params.extend(also)
    sql += f" ORDER BY {forced}score DESC LIMIT ?"
    params.append(limit + len(also))
    rows = conn.exec_driver_sql(sql, tuple(params))
    hits = sorted(((int(r[0]), float(r[1])) for r in rows), key=lambda hit: -hit[1])
    wanted = set(also)
    return hits[:limit] + [hit for hit in hits[limit:] if hit[0] in wanted]


@dataclass(frozen=True, slots=True)
class TermStats:
    """How many passages the library has, and how many of them contain each exact query term."""

    passages: int
    containing: dict[str, int]

    def weights(self, terms: list[Term]) -> dict[str, float]:
        """IDF of each query term, so "how much of the query a passage covers" can count a rare
        part number for more than a common word. Prefix terms (a lone CJK character) get 1."""
        weights = {}
        for t in terms:
            n = self.containing.get(t.text)
            weights[t.text] = (
                1.0 if t.prefix or n is None else math.log(1 + (self.passages - n + 0.5) / (n + 0.5))
            )
        return weights

    def rankable(self, terms: list[Term], limit: int) -> list[Term]:
        """The terms worth matching for the best ``limit`` passages.

        FTS5 clamps the IDF of a term found in half the passages or more to ~0, so it only widens
        the match set, and it is the costliest term to match: its doclist is the longest (at 100k
        passages such a query took 80-100 ms instead of 2). It is left out when another term
        alone fills the ``limit``, since every passage with a rankable term outscores one with
        only near-zero terms, so the best ``limit`` stay the same.
        """
        common = {t for t, n in self.containing.items() if 2 * n >= self.passages}
        kept = [t for t in terms if t.text not in common]
        if common and any(self.containing.get(t.text, 0) >= limit for t in kept):
            return kept
        return terms


def _vocabulary_table(conn: Connection) -> None:
    conn.exec_driver_sql(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_terms USING fts5vocab(main, chunk_fts, 'row')"
    )


def indexed_terms(conn: Connection) -> int:
    """Keyword terms in the index, every occurrence counted (a full scan of the vocabulary)."""
    _vocabulary_table(conn)
    return int(conn.exec_driver_sql("SELECT coalesce(sum(cnt), 0) FROM temp.chunk_terms").scalar_one())


def term_counts(conn: Connection, texts: Collection[str]) -> dict[str, int]:
    """How many passages contain each exact index term (0 for a term the library never saw)."""
    counts = dict.fromkeys(texts, 0)
    if not counts:
        return counts
    _vocabulary_table(conn)
    marks = ",".join("?" * len(counts))
    for term, docs in conn.exec_driver_sql(
        f"SELECT term, doc FROM temp.chunk_terms WHERE term IN ({marks})", tuple(counts)
    ):
        counts[term] = docs
    return counts


def term_stats(conn: Connection, terms: list[Term]) -> TermStats:
    if not terms:
        return TermStats(0, {})
    total = conn.exec_driver_sql("SELECT count(*) FROM chunks").scalar_one()
    return TermStats(total, term_counts(conn, [t.text for t in terms if not t.prefix]))
