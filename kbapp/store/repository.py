"""Reading and writing documents with their pages, chunks and keyword terms.

Each write is called inside one ``write_transaction``: a document appears in the library
complete (row, pages, chunks, FTS rows) or not at all, and replacing a changed file swaps the
old chunks for the new ones in the same commit.

What an import runs for every file (looking a document up by path and by content, writing it) is
explicit SQL on the DB-API cursor under the SQLAlchemy connection (``_cursor``), inside whatever
transaction that connection has begun: for a folder of small files, SQLAlchemy's statement and
result handling cost several times SQLite's own work (a file's two look-ups: 129 µs a file through
``exec_driver_sql``, 21 µs on the cursor, over the 5,183 documents of a SciFact library).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection

from kbapp.chunking import Chunk
from kbapp.contract import DocumentRecord, DocumentStatus
from kbapp.ingest.document import Page
from kbapp.store import collections, keywords
from kbapp.store.schema import documents, pages
from kbapp.store.schema import ocr_pages as schema_ocr_pages
from kbapp.text.terms import index_terms


@dataclass(frozen=True, slots=True)
class FileFacts:
    path: str
    content_hash: str
    size: int
    mtime: float


def _cursor(conn: Connection) -> sqlite3.Cursor:
    """The DB-API cursor under ``conn``: its statements run in the transaction ``conn`` has begun, or
    each on its own (autocommit, ``database._on_connect``) when it has begun none."""
    driver = conn.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    return driver.cursor()


def _record(fields: dict[str, object]) -> DocumentRecord:
    return DocumentRecord(**{**fields, "status": DocumentStatus(str(fields["status"]))})  # type: ignore[arg-type]


_COLUMNS = (
    "d.id, d.path, d.content_hash, d.title, d.doc_type, d.page_count, d.size, d.mtime, d.imported_at, "
    "d.status, d.error, d.warnings, {chunk_count} AS chunk_count, d.copy_path"
)
# The whole list counts every document's chunks in one pass over the chunks index; a single
# document (the importer looks one up or two per file) counts its own chunks only, so looking it
# up does not take longer as the library grows.
_LISTING = (
    f"SELECT {_COLUMNS.format(chunk_count='coalesce(n.n, 0)')} FROM documents AS d "
    "LEFT JOIN (SELECT document_id, count(*) AS n FROM chunks GROUP BY document_id) AS n "
    "ON n.document_id = d.id ORDER BY d.id"
)
_ONE = (
    f"SELECT {_COLUMNS.format(chunk_count='(SELECT count(*) FROM chunks AS c WHERE c.document_id = d.id)')} "
    "FROM documents AS d WHERE "
)
_INSERT_DOCUMENT = (
    "INSERT INTO documents (path, content_hash, title, doc_type, page_count, size, mtime, imported_at, "
    "status, error, warnings, copy_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_CHUNK = (
    "INSERT INTO chunks (id, document_id, ord, page_start, char_start, page_end, char_end, heading, kind, "
    "prefix, text, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def list_documents(conn: Connection) -> list[DocumentRecord]:
    return [_record(dict(r._mapping)) for r in conn.exec_driver_sql(_LISTING)]


def _one(conn: Connection, where: str, *params: object) -> DocumentRecord | None:
    cursor = _cursor(conn)
    row = cursor.execute(_ONE + where, params).fetchone()
    return _record(dict(zip((d[0] for d in cursor.description), row, strict=True))) if row else None


def get_document(conn: Connection, doc_id: int) -> DocumentRecord | None:
    return _one(conn, "d.id = ?", doc_id)


def find_by_path(conn: Connection, path: str) -> DocumentRecord | None:
    return _one(conn, "d.path = ?", path)


def find_ready_by_hash(conn: Connection, content_hash: str) -> DocumentRecord | None:
    return _one(conn, "d.content_hash = ? AND d.status = ?", content_hash, str(DocumentStatus.READY))


def _insert_document(
    conn: Connection,
    facts: FileFacts,
    *,
    title: str,
    doc_type: str,
    page_count: int | None,
    status: DocumentStatus,
    error: str | None,
    warnings: str,
    copy_path: str | None,
) -> int:
    values = (
        facts.path,
        facts.content_hash,
        title,
        doc_type,
        page_count,
        facts.size,
        facts.mtime,
        time.time(),
        str(status),
        error,
        warnings,
        copy_path,
    )
    doc_id = _cursor(conn).execute(_INSERT_DOCUMENT, values).lastrowid
    assert doc_id is not None
    return int(doc_id)


def write_document(
    conn: Connection,
    facts: FileFacts,
    *,
    title: str,
    doc_type: str,
    page_count: int | None,
    warnings: Sequence[str],
    doc_pages: Sequence[Page],
    doc_chunks: Sequence[Chunk],
    chunk_terms: Sequence[str],
    copy_path: str | None,
    ocr_pages: Sequence[int] = (),
) -> int:
    """Insert a parsed document, replacing whatever was stored for the same path (its collections kept);
    ``chunk_terms`` are the passages' keyword terms (``index_terms`` of each one's text)."""
    kept = _replace(conn, facts.path)
    doc_id = _insert_document(
        conn,
        facts,
        title=title,
        doc_type=doc_type,
        page_count=page_count,
        status=DocumentStatus.READY,
        error=None,
        warnings="\n".join(warnings),
        copy_path=copy_path,
    )
    collections.carry_over(conn, kept, doc_id)
    if doc_pages:  # a scanned document has none until OCR reads them
        _cursor(conn).executemany(
            "INSERT INTO pages (document_id, page_index, number, text) VALUES (?, ?, ?, ?)",
            [(doc_id, i, p.number, p.text) for i, p in enumerate(doc_pages)],
        )
    if ocr_pages:
        conn.execute(
            insert(schema_ocr_pages),
            [{"document_id": doc_id, "number": number, "status": "pending"} for number in ocr_pages],
        )
    insert_chunks(conn, doc_id, title, doc_chunks, chunk_terms)
    return doc_id


def insert_chunks(
    conn: Connection,
    doc_id: int,
    title: str,
    doc_chunks: Sequence[Chunk],
    chunk_terms: Sequence[str],
    *,
    first_page: int = 0,
    first_ord: int = 0,
) -> None:
    """Store passages and their keyword-index rows (``chunk_terms``: each passage's terms, worked out
    by the reader); page indexes and order are shifted by the offsets (the OCR stage adds a page's
    passages after those already stored).

    Ids are given here, one past the largest ever given (``keywords.ID_FLOOR``, kept beside the
    largest held, so removing the newest passages does not hand their ids to other text, which a
    copy of the keyword postings would take for the old): inside the write transaction no one
    else inserts, and the keyword rows need them."""
    if not doc_chunks:
        return
    cursor = _cursor(conn)
    held = int(cursor.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0])
    first_id = max(held, keywords.id_floor(conn)) + 1
    keywords.set_id_floor(conn, first_id + len(doc_chunks) - 1)
    cursor.executemany(
        _INSERT_CHUNK,
        [
            (
                first_id + i,
                doc_id,
                first_ord + c.order,
                first_page + c.page_start,
                c.char_start,
                first_page + c.page_end,
                c.char_end,
                c.heading,
                str(c.kind),
                c.prefix,
                c.text,
                c.tokens,
            )
            for i, c in enumerate(doc_chunks)
        ],
    )
    context: dict[str, str] = {}  # a document's passages share a few headings
    for c in doc_chunks:
        if c.heading not in context:
            context[c.heading] = index_terms(f"{title}\n{c.heading}")
    cursor.executemany(
        "INSERT INTO chunk_fts(rowid, body, context) VALUES (?, ?, ?)",
        [
            (first_id + i, terms, context[c.heading])
            for i, (c, terms) in enumerate(zip(doc_chunks, chunk_terms, strict=True))
        ],
    )


def record_failure(conn: Connection, facts: FileFacts, doc_type: str, error: str) -> None:
    """Remember a failed file (so the library lists it with its reason) without touching a good copy."""
    existing = find_by_path(conn, facts.path)
    if existing is not None and existing.status == DocumentStatus.READY:
        return
    kept = _replace(conn, facts.path)
    doc_id = _insert_document(
        conn,
        facts,
        title=Path(facts.path).name,
        doc_type=doc_type,
        page_count=None,
        status=DocumentStatus.FAILED,
        error=error,
        warnings="",
        copy_path=None,
    )
    collections.carry_over(conn, kept, doc_id)


def _replace(conn: Connection, path: str) -> list[int]:
    """Delete the row stored for ``path``; returns the collections it was in."""
    cursor = _cursor(conn)
    row = cursor.execute("SELECT id FROM documents WHERE path = ?", (path,)).fetchone()
    if row is None:
        return []
    old = int(row[0])
    kept = collections.of_document(conn, old)
    cursor.execute("DELETE FROM documents WHERE id = ?", (old,))
    return kept


def delete_document(conn: Connection, doc_id: int) -> bool:
    return conn.execute(delete(documents).where(documents.c.id == doc_id)).rowcount > 0


def page_texts(conn: Connection, doc_id: int) -> list[tuple[int | None, str]]:
    rows = conn.execute(
        select(pages.c.number, pages.c.text).where(pages.c.document_id == doc_id).order_by(pages.c.page_index)
    )
    return [(r.number, r.text) for r in rows]


class FileRow(NamedTuple):
    """What the checks of kept copies need of a document."""

    path: str
    content_hash: str
    copy_path: str | None
    status: str


_READY_FILES = "SELECT path, content_hash, copy_path FROM documents WHERE status = 'ready' ORDER BY id"


def file_rows(conn: Connection) -> list[FileRow]:
    rows = conn.exec_driver_sql("SELECT path, content_hash, copy_path, status FROM documents ORDER BY path")
    return [FileRow(*r) for r in rows]


def ready_files(conn: Connection | sqlite3.Connection) -> list[tuple[str, str, str | None]]:
    """``(path, sha256, kept copy)`` of the searchable documents, in import order; also read from
    a damaged library file through a plain ``sqlite3`` connection."""
    rows = (
        conn.execute(_READY_FILES)
        if isinstance(conn, sqlite3.Connection)
        else conn.exec_driver_sql(_READY_FILES)
    )
    return [(str(r[0]), str(r[1]), r[2]) for r in rows]


def set_copy_paths(conn: Connection, updates: Sequence[tuple[str | None, str]]) -> None:
    """``(kept copy, path)`` pairs: the documents at ``path`` are kept as that copy from now on."""
    conn.exec_driver_sql("UPDATE documents SET copy_path = ? WHERE path = ?", list(updates))


def copy_in_use(conn: Connection, rel: str) -> bool:
    return (
        conn.exec_driver_sql("SELECT 1 FROM documents WHERE copy_path = ? LIMIT 1", (rel,)).first()
        is not None
    )
