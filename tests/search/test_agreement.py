"""A question in the other language than its first result is answered when both rankings put that
result first in a pool large enough that agreeing by chance is rare (``relevance.agreement``); in
the question's own language that agreement only forgives a few unknown words."""

from __future__ import annotations

from kbapp.contract import SearchResult
from kbapp.search.relevance import (
    AGREED_COVERAGE,
    AGREEMENT_POOL,
    CLOSE,
    MARGIN,
    Agreement,
    agreement,
    relevant,
)
from kbapp.search.vocabulary import Vocabulary
from kbapp.text.script import Script
from tests.search_results import result


def first(lexical_rank: int | None, dense_rank: int | None, coverage: float = 0.1) -> SearchResult:
    why: dict[str, object] = {"keyword_coverage": coverage}
    if lexical_rank is not None:
        why["lexical_rank"] = lexical_rank
    if dense_rank is not None:
        why["dense_rank"] = dense_rank
    return result("Reset the controller before erasing the flash.", [], why=why)


ENGLISH = {Script.LATIN}
LARGE = {Script.LATIN: AGREEMENT_POOL, Script.CJK: 3}


def test_both_rankings_first_in_the_other_language_of_a_large_pool() -> None:
    assert agreement(first(1, 1), ENGLISH, Script.CJK, LARGE) is Agreement.OTHER_LANGUAGE


def test_one_ranking_alone_is_not_agreement() -> None:
    assert agreement(first(1, 2), ENGLISH, Script.CJK, LARGE) is Agreement.NONE
    assert agreement(first(2, 1), ENGLISH, Script.CJK, LARGE) is Agreement.NONE
    assert agreement(first(None, 1), ENGLISH, Script.CJK, LARGE) is Agreement.NONE  # dense mode: no keywords
    assert agreement(first(1, None), ENGLISH, Script.CJK, LARGE) is Agreement.NONE  # no vector yet


def test_within_one_language_agreement_is_told_apart() -> None:
    assert agreement(first(1, 1), ENGLISH, Script.LATIN, LARGE) is Agreement.OWN_LANGUAGE
    assert agreement(first(1, 1), set(), Script.CJK, LARGE) is Agreement.NONE  # the passage has no pool yet


def test_a_small_pool_agrees_too_easily_by_chance() -> None:
    small = {Script.LATIN: AGREEMENT_POOL - 1}
    assert agreement(first(1, 1), ENGLISH, Script.CJK, small) is Agreement.NONE
    # A merged result spanning both pools counts the smaller one.
    assert agreement(first(1, 1), {Script.LATIN, Script.CJK}, Script.CJK, LARGE) is Agreement.NONE
    assert agreement(
        first(1, 1), {Script.LATIN, Script.CJK}, Script.CJK, {s: AGREEMENT_POOL for s in Script}
    ) is (Agreement.OWN_LANGUAGE)


def test_agreement_answers_a_question_the_margins_refuse() -> None:
    """A Chinese question whose best English passage stands barely above everyday English text,
    every word known: refused on the margin, answered when both rankings agree."""
    everyday = {Script.LATIN: 0.80}
    best = {Script.LATIN: 0.80 + MARGIN[False] / 3}
    known = Vocabulary(4, (), 200_000)
    results = [first(1, 1)]
    assert not relevant(results, best, everyday, Script.CJK, known, LARGE)
    assert relevant(results, best, everyday, Script.CJK, known, LARGE, Agreement.OTHER_LANGUAGE)


def test_own_language_agreement_alone_answers_nothing() -> None:
    """Within one language both rankings read the question's own words: their agreement does not
    lift a question above the margin, every word known or not."""
    everyday = {Script.LATIN: 0.80}
    best = {Script.LATIN: 0.80 + MARGIN[True] / 2}
    known = Vocabulary(4, (), 200_000)
    agreed = [first(1, 1, coverage=0.45)]
    assert not relevant(agreed, best, everyday, Script.LATIN, known, LARGE, Agreement.OWN_LANGUAGE)


def test_own_language_agreement_forgives_a_few_unknown_words() -> None:
    """ "records of uneven length" asked of a manual that says neither: two unknown words in 13
    refuse the question unless its best passage is very close, or both rankings put first a
    passage holding ``AGREED_COVERAGE`` of its keyword weight."""
    everyday = {Script.LATIN: 0.80}
    best = {Script.LATIN: 0.80 + (MARGIN[True] + CLOSE[True]) / 2}
    paraphrased = Vocabulary(13, ("records", "uneven"), 200_000)
    held = [first(1, 1, coverage=AGREED_COVERAGE)]
    thin = [first(1, 1, coverage=AGREED_COVERAGE - 0.01)]
    assert not relevant(held, best, everyday, Script.LATIN, paraphrased, LARGE)
    assert not relevant(thin, best, everyday, Script.LATIN, paraphrased, LARGE, Agreement.OWN_LANGUAGE)
    assert relevant(held, best, everyday, Script.LATIN, paraphrased, LARGE, Agreement.OWN_LANGUAGE)
    # Agreement is no escape for a question half of whose words the library lacks.
    mostly_unknown = Vocabulary(4, ("ubuntu", "password"), 200_000)
    assert not relevant(held, best, everyday, Script.LATIN, mostly_unknown, LARGE, Agreement.OWN_LANGUAGE)
