"""Reading passages back for search: which passages belong to some documents, and what a result
is made of (the chunk with its document, the page numbers it is cited by, the page text it is cut
from when neighbouring chunks are shown as one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from kbapp.store.schema import chunks, documents, pages


@dataclass(frozen=True, slots=True)
class Passage:
    """A chunk as a result shows it: its place in its pages and the document it comes from."""

    chunk_id: int
    doc_id: int
    ord: int
    page_start: int
    char_start: int
    page_end: int
    char_end: int
    prefix: str
    text: str
    heading: str
    path: str
    title: str


def chunk_ids(conn: Connection, document_ids: Sequence[int]) -> list[int]:
    """The passages of these documents, to restrict a vector search to them."""
    marks = ",".join("?" * len(document_ids)) or "NULL"
    rows = conn.exec_driver_sql(f"SELECT id FROM chunks WHERE document_id IN ({marks})", tuple(document_ids))
    return [int(r[0]) for r in rows]


def documents_of(conn: Connection, ids: Sequence[int]) -> dict[int, int]:
    """Each chunk's document, by chunk id; a chunk removed meanwhile is missing."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = conn.exec_driver_sql(f"SELECT id, document_id FROM chunks WHERE id IN ({marks})", tuple(ids))
    return {int(r[0]): int(r[1]) for r in rows}


def passages(conn: Connection, ids: list[int]) -> dict[int, Passage]:
    """By chunk id; a chunk removed meanwhile is missing."""
    if not ids:
        return {}
    query = (
        select(
            chunks.c.id.label("chunk_id"),
            chunks.c.document_id.label("doc_id"),
            chunks.c.ord,
            chunks.c.page_start,
            chunks.c.char_start,
            chunks.c.page_end,
            chunks.c.char_end,
            chunks.c.prefix,
            chunks.c.text,
            chunks.c.heading,
            documents.c.path,
            documents.c.title,
        )
        .join(documents, documents.c.id == chunks.c.document_id)
        .where(chunks.c.id.in_(ids))
    )
    return {r.chunk_id: Passage(**r._asdict()) for r in conn.execute(query)}


def page_numbers(conn: Connection, keys: set[tuple[int, int]]) -> dict[tuple[int, int], int | None]:
    """``(document id, page index)`` → the page's printed number (None for formats without pages)."""
    if not keys:
        return {}
    rows = conn.execute(
        select(pages.c.document_id, pages.c.page_index, pages.c.number).where(
            pages.c.document_id.in_({d for d, _ in keys}), pages.c.page_index.in_({p for _, p in keys})
        )
    )
    return {(r[0], r[1]): r[2] for r in rows if (r[0], r[1]) in keys}


def page_text(conn: Connection, doc_id: int, page_index: int) -> str:
    query = select(pages.c.text).where(pages.c.document_id == doc_id, pages.c.page_index == page_index)
    return str(conn.execute(query).scalar_one())


def page_lengths(conn: Connection, doc_id: int, first: int, last: int) -> list[int]:
    """Characters on each page from ``first`` to ``last`` (page indexes), in order."""
    return list(
        conn.execute(
            select(func.length(pages.c.text))
            .where(pages.c.document_id == doc_id, pages.c.page_index.between(first, last))
            .order_by(pages.c.page_index)
        )
        .scalars()
        .all()
    )
