"""Reading and writing documents with their pages, chunks and keyword terms.

Each write is called inside one ``write_transaction``: a document appears in the library
complete (row, pages, chunks, FTS rows) or not at all, and replacing a changed file swaps the
old chunks for the new ones in the same commit.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from sqlalchemy import delete, func, insert, select
from sqlalchemy.engine import Connection

from kbapp.chunking import Chunk
from kbapp.contract import DocumentRecord, DocumentStatus
from kbapp.ingest.document import Page
from kbapp.store import collections
from kbapp.store.schema import chunks, documents, pages
from kbapp.store.schema import ocr_pages as schema_ocr_pages
from kbapp.text.terms import index_terms


@dataclass(frozen=True, slots=True)
class FileFacts:
    path: str
    content_hash: str
    size: int
    mtime: float


def _record(row) -> DocumentRecord:  # type: ignore[no-untyped-def]
    fields = dict(row._mapping)
    return DocumentRecord(**{**fields, "status": DocumentStatus(fields["status"])})


def _document_query():  # type: ignore[no-untyped-def]
    counts = select(chunks.c.document_id, func.count().label("n")).group_by(chunks.c.document_id).subquery()
    return select(
        documents.c.id,
        documents.c.path,
        documents.c.content_hash,
        documents.c.title,
        documents.c.doc_type,
        documents.c.page_count,
        documents.c.size,
        documents.c.mtime,
        documents.c.imported_at,
        documents.c.status,
        documents.c.error,
        documents.c.warnings,
        func.coalesce(counts.c.n, 0).label("chunk_count"),
        documents.c.copy_path,
    ).outerjoin(counts, counts.c.document_id == documents.c.id)


def list_documents(conn: Connection) -> list[DocumentRecord]:
    return [_record(r) for r in conn.execute(_document_query().order_by(documents.c.id))]


def get_document(conn: Connection, doc_id: int) -> DocumentRecord | None:
    row = conn.execute(_document_query().where(documents.c.id == doc_id)).first()
    return _record(row) if row else None


def find_by_path(conn: Connection, path: str) -> DocumentRecord | None:
    row = conn.execute(_document_query().where(documents.c.path == path)).first()
    return _record(row) if row else None


def find_ready_by_hash(conn: Connection, content_hash: str) -> DocumentRecord | None:
    row = conn.execute(
        _document_query().where(
            documents.c.content_hash == content_hash, documents.c.status == DocumentStatus.READY
        )
    ).first()
    return _record(row) if row else None


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
    copy_path: str | None,
    ocr_pages: Sequence[int] = (),
) -> int:
    """Insert a parsed document, replacing whatever was stored for the same path (its collections kept)."""
    kept = _replace(conn, facts.path)
    doc_id = conn.execute(
        insert(documents).values(
            path=facts.path,
            content_hash=facts.content_hash,
            title=title,
            doc_type=doc_type,
            page_count=page_count,
            size=facts.size,
            mtime=facts.mtime,
            imported_at=time.time(),
            status=DocumentStatus.READY,
            error=None,
            warnings="\n".join(warnings),
            copy_path=copy_path,
        )
    ).inserted_primary_key[0]
    collections.carry_over(conn, kept, doc_id)
    if doc_pages:  # a scanned document has none until OCR reads them
        conn.execute(
            insert(pages),
            [
                {"document_id": doc_id, "page_index": i, "number": p.number, "text": p.text}
                for i, p in enumerate(doc_pages)
            ],
        )
    if ocr_pages:
        conn.execute(
            insert(schema_ocr_pages),
            [{"document_id": doc_id, "number": number, "status": "pending"} for number in ocr_pages],
        )
    insert_chunks(conn, doc_id, title, doc_chunks)
    return doc_id


def insert_chunks(
    conn: Connection,
    doc_id: int,
    title: str,
    doc_chunks: Sequence[Chunk],
    *,
    first_page: int = 0,
    first_ord: int = 0,
) -> None:
    """Store passages and their keyword-index rows; page indexes and order are shifted by the offsets
    (the OCR stage adds a page's passages after those already stored)."""
    if not doc_chunks:
        return
    rows = [
        {
            "document_id": doc_id,
            "ord": first_ord + c.order,
            "page_start": first_page + c.page_start,
            "char_start": c.char_start,
            "page_end": first_page + c.page_end,
            "char_end": c.char_end,
            "heading": c.heading,
            "kind": str(c.kind),
            "prefix": c.prefix,
            "text": c.text,
            "tokens": c.tokens,
        }
        for c in doc_chunks
    ]
    ids = (
        conn.execute(insert(chunks).returning(chunks.c.id, sort_by_parameter_order=True), rows)
        .scalars()
        .all()
    )
    conn.exec_driver_sql(
        "INSERT INTO chunk_fts(rowid, body, context) VALUES (?, ?, ?)",
        [
            (chunk_id, index_terms(c.text), index_terms(f"{title}\n{c.heading}"))
            for chunk_id, c in zip(ids, doc_chunks, strict=True)
        ],
    )


def record_failure(conn: Connection, facts: FileFacts, doc_type: str, error: str) -> None:
    """Remember a failed file (so the library lists it with its reason) without touching a good copy."""
    existing = find_by_path(conn, facts.path)
    if existing is not None and existing.status == DocumentStatus.READY:
        return
    kept = _replace(conn, facts.path)
    doc_id = conn.execute(
        insert(documents).values(
            path=facts.path,
            content_hash=facts.content_hash,
            title=Path(facts.path).name,
            doc_type=doc_type,
            page_count=None,
            size=facts.size,
            mtime=facts.mtime,
            imported_at=time.time(),
            status=DocumentStatus.FAILED,
            error=error,
            warnings="",
            copy_path=None,
        )
    ).inserted_primary_key[0]
    collections.carry_over(conn, kept, doc_id)


def _replace(conn: Connection, path: str) -> list[int]:
    """Delete the row stored for ``path``; returns the collections it was in."""
    old = conn.execute(select(documents.c.id).where(documents.c.path == path)).scalar()
    if old is None:
        return []
    kept = collections.of_document(conn, old)
    conn.execute(delete(documents).where(documents.c.id == old))
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
