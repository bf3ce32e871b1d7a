"""Keyword retrieval: the BM25 ranking, and BM25 for vector candidates below its cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase
from kbapp.search.lexical import lexical_search, term_counter, term_stats
from kbapp.store import keywords
from kbapp.text.terms import query_terms, quoted_phrases


@pytest.fixture
def kb(tmp_path: Path):  # type: ignore[no-untyped-def]
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):
        valves = " ".join(["valve"] * (i + 1))
        (docs / f"note{i:02}.txt").write_text(f"Note {i}\n\nCheck the {valves} at the pump inlet.\n", "utf-8")
    (docs / "other.txt").write_text("Other\n\nThe fan belt needs tension.\n", "utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([docs]).ok
        yield kb


def test_chunks_below_the_cut_follow_the_ranking(kb: KnowledgeBase) -> None:
    terms = query_terms("valve inlet")
    with kb.engine.connect() as conn:
        full = lexical_search(conn, terms, 100)
        fan = conn.exec_driver_sql("SELECT id FROM chunks WHERE text LIKE '%fan belt%'").scalar_one()
        assert len(full) == 12
        wanted = [full[9][0], fan, full[6][0], full[1][0]]
        got = lexical_search(conn, terms, 3, also=wanted)
    assert got[:3] == full[:3]  # the ranking is exactly the best three
    assert got[3:] == [full[6], full[9]]  # then the candidates below it, best first; the fan has no match
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)


def test_quoted_phrases_keep_their_lift_with_candidates_below_the_cut(kb: KnowledgeBase) -> None:
    query = '"note 3" valve'
    terms, phrases = query_terms(query), quoted_phrases(query)
    with kb.engine.connect() as conn:
        full = lexical_search(conn, terms, 100, phrases=phrases)
        got = lexical_search(conn, terms, 2, phrases=phrases, also=[full[8][0]])
    assert got == [*full[:2], full[8]]


@pytest.fixture
def pumps(tmp_path: Path):  # type: ignore[no-untyped-def]
    """30 passages that all mention the pump; 10 of them a valve, 1 a belt."""
    docs = tmp_path / "pumps"
    docs.mkdir()
    for i in range(30):
        extra = "Replace the valve seal." if i < 10 else "Tension the belt." if i == 10 else "Log the hours."
        (docs / f"pump{i:02}.txt").write_text(
            f"Pump {i}\n\nThe pump runs dry at start {i}. {extra}\n", "utf-8"
        )
    with KnowledgeBase(tmp_path / "pumplib") as kb:
        assert kb.import_paths([docs]).ok
        yield kb


def test_terms_in_half_the_passages_are_skipped_only_when_the_ranking_stays_the_same(
    pumps: KnowledgeBase,
) -> None:
    with pumps.engine.connect() as conn:
        terms = query_terms("valve pump")  # "pump" is in every passage: BM25 gives it ~0 weight
        stats = term_stats(terms, term_counter(conn, None), keywords.passage_count(conn))
        assert stats.passages == 30 and stats.containing == {"valv": 10, "pump": 30}
        assert [t.text for t in stats.rankable(terms, 10)] == ["valv"]
        skipped, full = lexical_search(conn, stats.rankable(terms, 10), 10), lexical_search(conn, terms, 10)
        assert {c for c, _ in skipped} == {c for c, _ in full}
        assert [s for _, s in skipped] == pytest.approx([s for _, s in full], rel=1e-4)
        # "valve" alone cannot fill 20 places, so "pump" stays: its passages fill the rest.
        assert stats.rankable(terms, 20) == terms
        weights = stats.weights(terms)
        assert weights["valv"] > weights["pump"] > 0


def test_a_quantity_is_found_however_the_manual_spaces_it(tmp_path: Path) -> None:
    """ "3.3V" asked of a manual that writes "3.3 V" (and "4-20mA" of "4-20 mA") is looked up by its
    number and unit, and is not reported as a word no document mentions; "24 V" and "0.5 A" asked
    of one that writes "24V" and "0.5A" are looked up whole as well."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "board.txt").write_text(
        "Board\n\nThe board runs from a 3.3 V rail; the loop is 4-20 mA.\n", "utf-8"
    )
    (docs / "relay.txt").write_text("Relay\n\nThe relay coil takes 24V DC and 0.5A at most.\n", "utf-8")
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.import_paths([docs]).ok
        for question, document, marked in (
            ("3.3V", "board.txt", {"3.3", "V"}),
            ("4-20mA", "board.txt", {"4-20", "mA"}),
            ("24 V", "relay.txt", {"24V"}),
            ("0.5 A", "relay.txt", {"0.5A"}),
        ):
            res = kb.search(question, mode="lexical")
            assert res.results and Path(res.results[0].path).name == document, question
            top = res.results[0]
            assert {top.text[s:e] for s, e in top.highlights} == marked, question
            assert res.unknown_words == ()
        res = kb.search("24V", mode="lexical")  # held whole: looked up whole only
        assert [Path(r.path).name for r in res.results] == ["relay.txt"]
