"""The keyword index's queries: BM25 ranking of a MATCH expression, and the index's vocabulary."""

from __future__ import annotations

from itertools import pairwise

from sqlalchemy.engine import Engine

from kbapp.store import keywords, passages
from kbapp.text.terms import fts_match_expression, index_terms, query_terms
from tests.store.documents import add_document

VALVE = fts_match_expression(query_terms("valve"))


def _notes(engine: Engine) -> tuple[list[int], list[int], int]:
    """Five one-passage documents that say "valve" once, twice, … five times, and one about a fan:
    the documents, their passages, and the fan's passage."""
    docs = [add_document(engine, f"note{i}.txt", [f"Check the {'valve ' * i}now."]) for i in range(1, 6)]
    fan = add_document(engine, "fan.txt", ["The fan belt needs tension."])
    with engine.connect() as conn:
        return docs, [passages.chunk_ids(conn, [d])[0] for d in docs], passages.chunk_ids(conn, [fan])[0]


def test_bm25_ranks_only_the_matches_best_first(engine: Engine) -> None:
    _, chunks, _ = _notes(engine)
    with engine.connect() as conn:
        hits = keywords.bm25_ranking(conn, VALVE, 10, None, ())
    assert [c for c, _ in hits] == chunks[::-1]  # more valves, higher BM25; the fan does not match
    assert all(a[1] > b[1] > 0 for a, b in pairwise(hits))


def test_bm25_keeps_the_best_limit_then_the_wanted_matches_below_it(engine: Engine) -> None:
    _, _, fan = _notes(engine)
    with engine.connect() as conn:
        full = keywords.bm25_ranking(conn, VALVE, 10, None, ())
        got = keywords.bm25_ranking(conn, VALVE, 2, None, [full[4][0], fan, full[3][0]])
    assert got == [full[0], full[1], full[3], full[4]]  # in score order; the fan has no score


def test_bm25_within_some_documents(engine: Engine) -> None:
    docs, chunks, _ = _notes(engine)
    with engine.connect() as conn:
        within = keywords.bm25_ranking(conn, VALVE, 10, [docs[0], docs[2]], ())
        assert keywords.bm25_ranking(conn, VALVE, 10, [], ()) == []
    assert [c for c, _ in within] == [chunks[2], chunks[0]]


def test_matching_finds_every_match_unscored(engine: Engine) -> None:
    docs, chunks, fan = _notes(engine)
    with engine.connect() as conn:
        assert keywords.matching(conn, VALVE, None) == set(chunks)
        assert keywords.matching(conn, VALVE, [docs[1]]) == {chunks[1]}
        assert keywords.matching(conn, fts_match_expression(query_terms("belt")), None) == {fan}
        assert keywords.matching(conn, VALVE, []) == set()


def test_term_counts_say_how_many_passages_hold_each_term(engine: Engine) -> None:
    _notes(engine)
    stems = [t.text for t in query_terms("valves fan unheard")]
    with engine.connect() as conn:
        assert keywords.term_counts(conn, stems) == dict(zip(stems, [5, 1, 0], strict=True))
        assert keywords.term_counts(conn, []) == {}
        assert keywords.passage_count(conn) == 6


def test_indexed_terms_count_every_occurrence_in_passage_and_context(engine: Engine) -> None:
    with engine.connect() as conn:
        assert keywords.indexed_terms(conn) == 0
    text = "The pump runs dry. The pump stops."
    add_document(engine, "pump.txt", [text], heading="Faults")
    expected = len(index_terms(text).split()) + len(index_terms("pump.txt\nFaults").split())
    with engine.connect() as conn:
        assert keywords.indexed_terms(conn) == expected
