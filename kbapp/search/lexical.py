"""Keyword retrieval: the query's terms ORed in FTS5 and ranked by its BM25.

Only chunks that contain at least one query term come back, so a query that matches nothing
returns nothing — never "the first N chunks".
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.engine import Connection

from kbapp.text.terms import Term, fts_match_expression

# Title and heading path count less than the passage itself: they are shared by many chunks.
_BM25 = "bm25(chunk_fts, 1.0, 0.35)"


def lexical_search(
    conn: Connection, terms: list[Term], limit: int, document_ids: Sequence[int] | None = None
) -> list[tuple[int, float]]:
    """``(chunk_id, score)`` best first; the score is BM25 (higher is better)."""
    if not terms:
        return []
    sql = f"SELECT rowid, -{_BM25} AS score FROM chunk_fts WHERE chunk_fts MATCH ?"
    params: list[object] = [fts_match_expression(terms)]
    if document_ids is not None:
        marks = ",".join("?" * len(document_ids)) or "NULL"
        sql += f" AND rowid IN (SELECT id FROM chunks WHERE document_id IN ({marks}))"
        params.extend(document_ids)
    sql += f" ORDER BY {_BM25} LIMIT ?"
    params.append(limit)
    return [(int(r[0]), float(r[1])) for r in conn.exec_driver_sql(sql, tuple(params))]
