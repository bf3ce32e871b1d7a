"""Documents written through the store's own writes, for the store's tests."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from kbapp.chunking import Chunk
from kbapp.chunking.chunker import span_text
from kbapp.ingest.document import BlockKind, Page
from kbapp.store import repository
from kbapp.store.database import write_transaction
from kbapp.text.terms import index_terms

Span = tuple[int, int, int, int]  # page_start, char_start, page_end, char_end


def add_document(
    engine: Engine,
    name: str,
    pages: list[str],
    *,
    numbers: list[int | None] | None = None,
    spans: list[Span] | None = None,
    heading: str = "",
) -> int:
    """A document of ``pages`` (numbered 1, 2, … unless ``numbers`` says otherwise) with one passage
    per span, by default one per page; returns its id."""
    doc_pages = [Page(n, text) for n, text in zip(numbers or range(1, len(pages) + 1), pages, strict=True)]
    chunks = [
        Chunk(order, span_text(doc_pages, *span), BlockKind.TEXT, heading, *span, prefix="", tokens=10)
        for order, span in enumerate(spans or [(i, 0, i, len(text)) for i, text in enumerate(pages)])
    ]
    facts = repository.FileFacts(f"/docs/{name}", name, 1, 0.0)
    with write_transaction(engine) as conn:
        return repository.write_document(
            conn,
            facts,
            title=name,
            doc_type="txt",
            page_count=len(pages),
            warnings=[],
            doc_pages=doc_pages,
            doc_chunks=chunks,
            chunk_terms=[index_terms(chunk.text) for chunk in chunks],
            copy_path=None,
        )
