"""Reading passages back for results: the chunk with its document, page numbers and page text."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from kbapp.store import passages
from kbapp.store.repository import delete_document
from kbapp.store.samples import text_generation
from tests.store.documents import add_document

PAGES = ["First page: the pump.", "Second page: the valve.", "Third page: the fan."]


def test_passages_carry_their_document_and_place(engine: Engine) -> None:
    spans = [(0, 0, 0, 10), (0, 12, 1, 6), (2, 0, 2, 20)]
    doc = add_document(engine, "manual.pdf", PAGES, numbers=[7, 8, 9], spans=spans, heading="Parts")
    with engine.connect() as conn:
        ids = passages.chunk_ids(conn, [doc])
        found = passages.passages(conn, [ids[1], ids[2], 10_000])
        assert passages.passages(conn, []) == {}
    assert set(found) == {ids[1], ids[2]}  # an id that is gone is left out
    p = found[ids[1]]  # runs over the first page break
    assert (p.doc_id, p.ord, p.heading, p.prefix) == (doc, 1, "Parts", "")
    assert (p.page_start, p.char_start, p.page_end, p.char_end) == (0, 12, 1, 6)
    assert p.text == "the pump.\nSecond"
    assert (p.path, p.title) == ("/docs/manual.pdf", "manual.pdf")


def test_chunk_ids_are_those_of_the_documents_asked_for(engine: Engine) -> None:
    one = add_document(engine, "one.txt", PAGES)
    two = add_document(engine, "two.txt", PAGES[:1])
    with engine.connect() as conn:
        assert len(passages.chunk_ids(conn, [one])) == 3
        assert len(passages.chunk_ids(conn, [one, two])) == 4
        assert passages.chunk_ids(conn, []) == []


def test_pages_by_index(engine: Engine) -> None:
    paged = add_document(engine, "manual.pdf", PAGES, numbers=[7, 8, 9])
    plain = add_document(engine, "notes.txt", PAGES[:1], numbers=[None])
    with engine.connect() as conn:
        numbers = passages.page_numbers(conn, {(paged, 0), (paged, 2), (plain, 0)})
        assert passages.page_numbers(conn, set()) == {}
        assert passages.page_text(conn, paged, 1) == PAGES[1]
        assert passages.page_lengths(conn, paged, 1, 2) == [len(PAGES[1]), len(PAGES[2])]
    assert numbers == {(paged, 0): 7, (paged, 2): 9, (plain, 0): None}


def test_the_text_generation_moves_with_every_page_stored_or_removed(engine: Engine) -> None:
    # The old key, (document count, highest id), stood still when a document was replaced by
    # one with the same id, and when OCR added a scanned page's text to a document.
    def generation() -> int:
        with engine.connect() as conn:
            return text_generation(conn)

    start = generation()
    doc = add_document(engine, "manual.pdf", PAGES)
    added = generation()
    with engine.begin() as conn:
        delete_document(conn, doc)
    assert start < added < generation()
    removed = generation()
    with engine.begin() as conn:
        conn.exec_driver_sql("SELECT count(*) FROM pages").one()
    assert generation() == removed  # reading changes nothing
