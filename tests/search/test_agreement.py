"""A question in the other language than its first result is answered when both rankings put that
result first in a pool large enough that agreeing by chance is rare (``relevance.first_in_both``)."""

from __future__ import annotations

from kbapp.contract import SearchResult
from kbapp.search.relevance import AGREEMENT_POOL, MARGIN, first_in_both, relevant
from kbapp.search.vocabulary import Vocabulary
from kbapp.text.script import Script
from tests.search_results import result


def first(lexical_rank: int | None, dense_rank: int | None) -> SearchResult:
    why: dict[str, object] = {"keyword_coverage": 0.1}
    if lexical_rank is not None:
        why["lexical_rank"] = lexical_rank
    if dense_rank is not None:
        why["dense_rank"] = dense_rank
    return result("Reset the controller before erasing the flash.", [], why=why)


ENGLISH = {Script.LATIN}
LARGE = {Script.LATIN: AGREEMENT_POOL, Script.CJK: 3}


def test_both_rankings_first_in_the_other_language_of_a_large_pool() -> None:
    assert first_in_both(first(1, 1), ENGLISH, Script.CJK, LARGE)


def test_one_ranking_alone_is_not_agreement() -> None:
    assert not first_in_both(first(1, 2), ENGLISH, Script.CJK, LARGE)
    assert not first_in_both(first(2, 1), ENGLISH, Script.CJK, LARGE)
    assert not first_in_both(first(None, 1), ENGLISH, Script.CJK, LARGE)  # dense mode: no keywords
    assert not first_in_both(first(1, None), ENGLISH, Script.CJK, LARGE)  # no vector yet


def test_within_one_language_agreement_does_not_count() -> None:
    """Both rankings read the question's own words there: agreeing says less."""
    assert not first_in_both(first(1, 1), ENGLISH, Script.LATIN, LARGE)
    assert not first_in_both(first(1, 1), set(), Script.CJK, LARGE)  # the passage has no pool yet


def test_a_small_pool_agrees_too_easily_by_chance() -> None:
    small = {Script.LATIN: AGREEMENT_POOL - 1}
    assert not first_in_both(first(1, 1), ENGLISH, Script.CJK, small)
    # A merged result spanning both pools counts the smaller one.
    assert not first_in_both(first(1, 1), {Script.LATIN, Script.CJK}, Script.CJK, LARGE)


def test_agreement_answers_a_question_the_margins_refuse() -> None:
    """A Chinese question whose best English passage stands barely above everyday English text,
    every word known: refused on the margin, answered when both rankings agree."""
    everyday = {Script.LATIN: 0.80}
    best = {Script.LATIN: 0.80 + MARGIN[False] / 3}
    known = Vocabulary(4, (), 200_000)
    results = [first(1, 1)]
    assert not relevant(results, best, everyday, Script.CJK, known, LARGE)
    assert relevant(results, best, everyday, Script.CJK, known, LARGE, agreed=True)
