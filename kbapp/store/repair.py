"""Fixing what a full check finds inside a readable library file, in one transaction.

Everything here is derived data or debris: keyword-index rows are recomputed from the passages,
rows that belong to nothing are dropped, damaged vectors are dropped (their passages simply wait
for embedding again). A document listed as imported without passages cannot be fixed in place;
it is removed and handed back to the caller to import again from its file or kept copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from kbapp.text.terms import index_terms

_BATCH = 2000


@dataclass(slots=True)
class DatabaseRepair:
    actions: list[str] = field(default_factory=list)
    reimport: list[tuple[str, str | None]] = field(default_factory=list)  # path, kept copy


def rebuild_keyword_index(conn: Connection) -> int:
    """Recompute every keyword-index row from the passages (what the importer wrote, again). The
    rows keep their ids, so the keyword epoch moves on: a copy of the old rows' postings
    (``kbapp.index.keyword_index``) must not pass for one of the new."""
    conn.exec_driver_sql("DELETE FROM chunk_fts")
    conn.exec_driver_sql(
        "INSERT INTO meta(key, value) VALUES ('keyword_epoch', '1') "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
    )
    rows = conn.exec_driver_sql(
        "SELECT c.id, c.text, c.heading, d.title FROM chunks c JOIN documents d ON d.id = c.document_id"
    ).all()
    for start in range(0, len(rows), _BATCH):
        conn.exec_driver_sql(
            "INSERT INTO chunk_fts(rowid, body, context) VALUES (?, ?, ?)",
            [
                (r.id, index_terms(r.text), index_terms(f"{r.title}\n{r.heading}"))
                for r in rows[start : start + _BATCH]
            ],
        )
    return len(rows)


def _delete(conn: Connection, sql: str, params: tuple[object, ...] = ()) -> int:
    return int(conn.exec_driver_sql(sql, params).rowcount or 0)


def repair_database(conn: Connection, *, pack_id: str | None, dimension: int | None) -> DatabaseRepair:
    result = DatabaseRepair()
    dropped = _delete(conn, "DELETE FROM pages WHERE document_id NOT IN (SELECT id FROM documents)")
    dropped += _delete(conn, "DELETE FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)")
    dropped += _delete(conn, "DELETE FROM vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)")
    if dropped:
        result.actions.append(f"dropped {dropped} pages, passages or vectors that belonged to nothing")
    if pack_id is not None and dimension is not None:
        bad = _delete(
            conn, "DELETE FROM vectors WHERE pack_id = ? AND length(vector) != ?", (pack_id, dimension * 2)
        )
        if bad:
            result.actions.append(f"dropped {bad} damaged vectors; their passages will be embedded again")
    empty = conn.exec_driver_sql(
        "SELECT id, path, copy_path FROM documents d WHERE status = 'ready' "
        "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id)"
    ).all()
    for row in empty:
        conn.exec_driver_sql("DELETE FROM documents WHERE id = ?", (row.id,))
        result.reimport.append((row.path, row.copy_path))
    unindexed = conn.exec_driver_sql(
        "SELECT 1 FROM chunks WHERE id NOT IN (SELECT rowid FROM chunk_fts) LIMIT 1"
    ).first()
    stale = conn.exec_driver_sql(
        "SELECT 1 FROM chunk_fts WHERE rowid NOT IN (SELECT id FROM chunks) LIMIT 1"
    ).first()
    if unindexed or stale or not _fts_intact(conn):
        count = rebuild_keyword_index(conn)
        result.actions.append(f"rebuilt the keyword index from {count} passages")
    return result


def _fts_intact(conn: Connection) -> bool:
    try:
        conn.exec_driver_sql("INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('integrity-check', 1)")
    except DBAPIError:
        return False
    return True
