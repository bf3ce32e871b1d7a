"""The OCR stage's rows: pages waiting for OCR, and a page's OCR'd text stored like any other page.

A page's text, its passages (with their keyword-index rows) and the "done" mark are written in one
transaction, so the library never holds half a page and a killed run resumes at the first page
still pending. Passages of OCR'd pages get vectors from the ordinary embedding run afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import and_, func, select, update
from sqlalchemy.engine import Connection

from kbapp.chunking import HEADING_SEPARATOR, Chunk
from kbapp.contract import OcrState
from kbapp.ingest.document import Page
from kbapp.store.repository import insert_chunks
from kbapp.store.schema import chunks, documents, ocr_pages, pages

_NEEDS_OCR = "; needs OCR"


@dataclass(frozen=True, slots=True)
class PendingPage:
    doc_id: int
    number: int
    path: str
    copy_path: str | None
    title: str


def pending(conn: Connection) -> list[PendingPage]:
    rows = conn.execute(
        select(
            ocr_pages.c.document_id,
            ocr_pages.c.number,
            documents.c.path,
            documents.c.copy_path,
            documents.c.title,
        )
        .join(documents, documents.c.id == ocr_pages.c.document_id)
        .where(ocr_pages.c.status == "pending", documents.c.status == "ready")
        .order_by(ocr_pages.c.document_id, ocr_pages.c.number)
    )
    return [PendingPage(*row) for row in rows]


def states(conn: Connection) -> dict[int, OcrState]:
    counts: dict[int, dict[str, int]] = {}
    rows = conn.execute(
        select(ocr_pages.c.document_id, ocr_pages.c.status, func.count()).group_by(
            ocr_pages.c.document_id, ocr_pages.c.status
        )
    )
    for doc_id, status, count in rows:
        counts.setdefault(doc_id, {})[status] = count
    return {doc_id: OcrState(**by_status) for doc_id, by_status in counts.items()}


def store_page(
    conn: Connection,
    page: PendingPage,
    text: Page | None,
    page_chunks: Sequence[Chunk],
    chunk_terms: Sequence[str],
    lines: str | None,
) -> None:
    """Store the OCR'd ``text`` of ``page`` (None: OCR found no text) and its passages (with their
    keyword terms); mark it done."""
    if text is not None:
        index = int(
            conn.scalar(
                select(func.coalesce(func.max(pages.c.page_index), -1) + 1).where(
                    pages.c.document_id == page.doc_id
                )
            )
            or 0
        )
        next_ord = int(
            conn.scalar(
                select(func.coalesce(func.max(chunks.c.ord), -1) + 1).where(
                    chunks.c.document_id == page.doc_id
                )
            )
            or 0
        )
        conn.execute(
            pages.insert().values(
                document_id=page.doc_id, page_index=index, number=page.number, text=text.text
            )
        )
        insert_chunks(
            conn, page.doc_id, page.title, page_chunks, chunk_terms, first_page=index, first_ord=next_ord
        )
    _finish(conn, page, "done", None, lines)


def heading_before(conn: Connection, page: PendingPage) -> list[str]:
    """The heading path of the last passage that starts on an earlier page of the document (its
    text layer, or a page OCR'd before): the section ``page`` opens in, outermost first."""
    same_page = and_(pages.c.document_id == chunks.c.document_id, pages.c.page_index == chunks.c.page_start)
    heading = conn.scalar(
        select(chunks.c.heading)
        .join(pages, same_page)
        .where(chunks.c.document_id == page.doc_id, pages.c.number < page.number)
        .order_by(pages.c.number.desc(), chunks.c.char_start.desc())
        .limit(1)
    )
    return heading.split(HEADING_SEPARATOR) if heading else []


def fail_page(conn: Connection, page: PendingPage, message: str) -> None:
    _finish(conn, page, "failed", message, None)


def done_pages(conn: Connection, keys: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """Which of the (document, page number) pairs have text from OCR."""
    wanted = set(keys)
    if not wanted:
        return set()
    rows = conn.execute(
        select(ocr_pages.c.document_id, ocr_pages.c.number).where(
            ocr_pages.c.status == "done", ocr_pages.c.document_id.in_({doc for doc, _ in wanted})
        )
    )
    return {(doc, number) for doc, number in rows if (doc, number) in wanted}


def document_lines(conn: Connection, doc_id: int) -> dict[int, str]:
    """Page number -> the OCR'd lines with their boxes (JSON) of a document's OCR'd pages."""
    rows = conn.execute(
        select(ocr_pages.c.number, ocr_pages.c.lines).where(
            ocr_pages.c.document_id == doc_id, ocr_pages.c.status == "done", ocr_pages.c.lines.is_not(None)
        )
    )
    return {number: lines for number, lines in rows}


def _finish(conn: Connection, page: PendingPage, status: str, message: str | None, lines: str | None) -> None:
    key = and_(ocr_pages.c.document_id == page.doc_id, ocr_pages.c.number == page.number)
    conn.execute(update(ocr_pages).where(key).values(status=status, message=message, lines=lines))
    left = conn.scalar(
        select(func.count()).where(ocr_pages.c.document_id == page.doc_id, ocr_pages.c.status == "pending")
    )
    if left == 0:  # the document's "needs OCR" warning no longer holds
        warnings = conn.scalar(select(documents.c.warnings).where(documents.c.id == page.doc_id)) or ""
        conn.execute(
            update(documents)
            .where(documents.c.id == page.doc_id)
            .values(warnings=warnings.replace(_NEEDS_OCR, "; read by OCR"))
        )
