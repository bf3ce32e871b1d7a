"""The keyword index's queries: FTS5's BM25 ranking of a MATCH expression, and its vocabulary (how
many passages hold a term, how many terms the library holds).

The MATCH expressions themselves are built by ``kbapp.search`` from the question's terms; this
module runs them, so the ``chunk_fts`` table is read only from here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlalchemy.engine import Connection

# Title and heading path count less than the passage itself: they are shared by many chunks.
_BM25 = "bm25(chunk_fts, 1.0, 0.35)"


def bm25_ranking(
    conn: Connection, expression: str, limit: int, document_ids: Sequence[int] | None, also: Sequence[int]
) -> list[tuple[int, float]]:
    """``(chunk_id, score)`` of the best ``limit`` matches of ``expression`` (only among
    ``document_ids`` when given), then the matches of ``also`` below them; all in score order.
    The score is BM25, higher is better."""
    within, params = _within(document_ids)
    sql = f"SELECT rowid, -{_BM25} AS score FROM chunk_fts WHERE chunk_fts MATCH ?{within}"
    params.insert(0, expression)
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


def matching(conn: Connection, expression: str, document_ids: Sequence[int] | None) -> set[int]:
    """The chunk ids that match ``expression`` (only among ``document_ids`` when given), unscored:
    finding the matches is a fraction of what ranking them costs."""
    within, params = _within(document_ids)
    rows = conn.exec_driver_sql(
        f"SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ?{within}", (expression, *params)
    )
    return {int(row[0]) for row in rows}


def _within(document_ids: Sequence[int] | None) -> tuple[str, list[object]]:
    """The condition that keeps the matches to some documents' passages, and its parameters."""
    if document_ids is None:
        return "", []
    marks = ",".join("?" * len(document_ids)) or "NULL"
    return f" AND rowid IN (SELECT id FROM chunks WHERE document_id IN ({marks}))", list(document_ids)


def passage_count(conn: Connection) -> int:
    """Passages in the library: the N of the IDF that term counts are weighed against."""
    return int(conn.exec_driver_sql("SELECT count(*) FROM chunks").scalar_one())


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
