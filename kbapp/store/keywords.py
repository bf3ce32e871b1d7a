"""The keyword index's queries: FTS5's BM25 ranking of a MATCH expression, and its vocabulary (how
many passages hold a term, how many terms the library holds).

The MATCH expressions themselves are built by ``kbapp.search`` from the question's terms; this
module runs them, so the ``chunk_fts`` table is read only from here.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence

from sqlalchemy.engine import Connection

# Title and heading path count less than the passage itself: they are shared by many chunks.
BODY_WEIGHT, CONTEXT_WEIGHT = 1.0, 0.35
_BM25 = f"bm25(chunk_fts, {BODY_WEIGHT}, {CONTEXT_WEIGHT})"
# FTS5's own BM25 parameters (fts5_aux.c), which ``kbapp.index.postings`` scores with too.
BM25_K1, BM25_B = 1.2, 0.75


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


def bm25_scores(
    conn: Connection, expression: str, document_ids: Sequence[int] | None, after: int = 0
) -> list[tuple[int, float]]:
    """``(chunk_id, score)`` of every match of ``expression`` with an id above ``after``, unordered:
    the share of the BM25 sum that its phrases add (or that passages newer than a copy of the
    postings add), for a ranking that scores the other terms (or passages) itself."""
    within, params = _within(document_ids)
    rows = conn.exec_driver_sql(
        f"SELECT rowid, -{_BM25} FROM chunk_fts WHERE chunk_fts MATCH ? AND rowid > ?{within}",
        (expression, after, *params),
    )
    return [(int(r[0]), float(r[1])) for r in rows]


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


def fts_totals(conn: Connection) -> tuple[int, int]:
    """The rows FTS5 holds and their tokens, all columns together, as its BM25 reads them (the
    table's averages record): what a copy of its postings must match to score as it does."""
    blob = conn.exec_driver_sql("SELECT block FROM chunk_fts_data WHERE id = 1").scalar()
    if not blob:
        return 0, 0
    values = _varints(bytes(blob))
    return values[0], sum(values[1:])


def _varints(blob: bytes) -> list[int]:
    """SQLite's variable-length integers (big-endian, 7 bits a byte, the ninth byte whole)."""
    out, i = [], 0
    while i < len(blob):
        value = 0
        for n in range(9):
            byte = blob[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def last_id(conn: Connection) -> int:
    """The highest passage id the keyword index holds (0 when empty)."""
    return int(conn.exec_driver_sql("SELECT coalesce(max(rowid), 0) FROM chunk_fts").scalar_one())


def passage_ids(conn: Connection, last: int) -> list[int]:
    """The ids of the passages up to ``last``, in order."""
    return [
        int(r[0]) for r in conn.exec_driver_sql("SELECT id FROM chunks WHERE id <= ? ORDER BY id", (last,))
    ]


ID_FLOOR = "chunk_id_floor"  # the meta key of the largest passage id ever given


def id_floor(conn: Connection) -> int:
    """The largest passage id ever given (0 in a library whose imports predate the key)."""
    value = conn.exec_driver_sql("SELECT value FROM meta WHERE key = ?", (ID_FLOOR,)).scalar()
    return int(value or 0)


def set_id_floor(conn: Connection, last: int) -> None:
    conn.exec_driver_sql(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (ID_FLOOR, str(last)),
    )


def epoch(conn: Connection) -> int:
    """How often the keyword rows were rewritten in place (``repair``); 0 if never."""
    value = conn.exec_driver_sql("SELECT value FROM meta WHERE key = 'keyword_epoch'").scalar()
    return int(value or 0)


def vocabulary_counts(conn: Connection) -> list[tuple[str, int]]:
    """Every indexed term with the number of passages holding it, in the index's (code point) order."""
    _vocabulary_table(conn)
    return [(str(t), int(d)) for t, d in conn.exec_driver_sql("SELECT term, doc FROM temp.chunk_terms")]


def keyword_rows(conn: Connection) -> Iterator[tuple[int, str, str]]:
    """``(chunk_id, body terms, context terms)`` of every passage, in id order."""
    for rowid, body, context in conn.exec_driver_sql(
        "SELECT rowid, body, context FROM chunk_fts ORDER BY rowid"
    ):
        yield int(rowid), str(body), str(context)
