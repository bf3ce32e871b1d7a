"""Reading and writing the ``vectors`` table: one vector per passage and model pack.

The embedding job writes here, the FAISS cache (``kbapp.index.dense``) copies from here, and the
façade reports per-document progress from here. Vectors are stored as raw bytes; what they
decode to is the index's business. A passage embedded by another pack counts as pending, so two
models' vectors never meet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.engine import Connection, Row

from kbapp.store.schema import meta
from kbapp.store.schema import vectors as vectors_table

_PENDING = (
    "SELECT c.id, c.text, c.heading, d.title FROM chunks c JOIN documents d ON d.id = c.document_id "
    "LEFT JOIN vectors v ON v.chunk_id = c.id WHERE v.chunk_id IS NULL OR v.pack_id != ?"
)


def pending_count(conn: Connection, pack_id: str) -> int:
    return int(conn.exec_driver_sql(f"SELECT count(*) FROM ({_PENDING})", (pack_id,)).scalar_one())


def pending_passages(conn: Connection, pack_id: str, limit: int) -> Sequence[Row[tuple[int, str, str, str]]]:
    """Up to ``limit`` passages without a vector for ``pack_id``: ``(id, text, heading, title)``."""
    return conn.exec_driver_sql(_PENDING + " ORDER BY c.id LIMIT ?", (pack_id, limit)).all()


def store(conn: Connection, pack_id: str, items: Iterable[tuple[int, bytes]]) -> None:
    """Write ``(chunk id, vector)`` pairs; a chunk deleted meanwhile (its document removed or
    re-imported) must not get a vector, so those are skipped."""
    conn.exec_driver_sql(
        "INSERT OR REPLACE INTO vectors(chunk_id, pack_id, vector) "
        "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
        [(chunk_id, pack_id, blob, chunk_id) for chunk_id, blob in items],
    )


def count(conn: Connection, pack_id: str) -> int:
    return int(
        conn.exec_driver_sql("SELECT count(*) FROM vectors WHERE pack_id = ?", (pack_id,)).scalar_one()
    )


def chunk_ids(conn: Connection, pack_id: str) -> list[int]:
    rows = conn.exec_driver_sql(
        "SELECT chunk_id FROM vectors WHERE pack_id = ? ORDER BY chunk_id", (pack_id,)
    )
    return [r[0] for r in rows]


def by_chunk(conn: Connection, ids: Sequence[int]) -> list[tuple[int, bytes]]:
    """``(chunk id, vector)`` of the given chunks, whatever pack embedded them."""
    rows = conn.execute(
        select(vectors_table.c.chunk_id, vectors_table.c.vector).where(vectors_table.c.chunk_id.in_(ids))
    )
    return [(r[0], r[1]) for r in rows]


def for_pack(conn: Connection, pack_id: str, ids: Sequence[int]) -> list[tuple[int, bytes]]:
    """``(chunk id, vector)`` of those of the given chunks that ``pack_id`` embedded."""
    marks = ",".join("?" * len(ids))
    rows = conn.exec_driver_sql(
        f"SELECT chunk_id, vector FROM vectors WHERE pack_id = ? AND chunk_id IN ({marks})", (pack_id, *ids)
    )
    return [(r[0], r[1]) for r in rows]


def progress_by_document(conn: Connection, pack_id: str) -> dict[int, tuple[int, int]]:
    """Per document: ``(passages embedded by the pack, passages)``."""
    rows = conn.exec_driver_sql(
        "SELECT c.document_id, count(v.chunk_id), count(*) FROM chunks c "
        "LEFT JOIN vectors v ON v.chunk_id = c.id AND v.pack_id = ? GROUP BY c.document_id",
        (pack_id,),
    )
    return {r[0]: (r[1], r[2]) for r in rows}


def meta_value(conn: Connection, key: str) -> str:
    """A value of the ``meta`` table (``library_id``, ``vector_generation``…)."""
    return str(conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar_one())
