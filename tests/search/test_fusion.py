"""Blending keyword and vector scores."""

from __future__ import annotations

import pytest

from kbapp.search.fusion import POOL_FLOOR, reciprocal_rank_fusion, score_blend


def test_each_candidate_keeps_both_retrievers_scores() -> None:
    lexical = [(1, 10.0), (2, 6.0)]
    dense = [(3, 0.90), (4, 0.80)]
    # 2 was just outside the vector top list, 3 just outside the keyword one; 4 matches no keyword.
    bm25 = {1: 10.0, 2: 6.0, 3: 5.0}
    cosine = {1: 0.70, 2: 0.85, 3: 0.90, 4: 0.80}
    fused = dict(score_blend(lexical, dense, bm25, cosine, keyword_weight=0.5))
    assert fused[1] == pytest.approx(0.5)  # best BM25, cosine under the vector list's last: 0
    assert fused[2] == pytest.approx(0.5 * 0.6 + 0.5 * 0.5)
    assert fused[3] == pytest.approx(0.5 * 0.5 + 0.5)
    assert fused[4] == pytest.approx(0.0)
    assert [item for item, _ in score_blend(lexical, dense, bm25, cosine, 0.5)] == [3, 2, 1, 4]


def test_without_the_other_scores_a_passage_counts_zero_there() -> None:
    lexical, dense = [(1, 4.0)], [(2, 0.9), (3, 0.7)]
    fused = score_blend(lexical, dense, dict(lexical), dict(dense), keyword_weight=0.65)
    assert fused == [(1, pytest.approx(0.65)), (2, pytest.approx(0.35)), (3, 0.0)]


def test_one_retriever_alone() -> None:
    assert [i for i, _ in score_blend([(5, 2.0), (6, 1.0)], [], {5: 2.0, 6: 1.0}, {})] == [5, 6]
    assert [i for i, _ in score_blend([], [(7, 0.8), (8, 0.6)], {}, {7: 0.8, 8: 0.6})] == [7, 8]


def test_other_language_keywords_are_read_against_their_own_pool() -> None:
    # 1 and 2 are Chinese pages matching a Chinese question on its own words; 3 is the English
    # page matching it through translations, with a lower BM25 than both.
    lexical = [(1, 10.0), (2, 9.0), (3, 8.0)]
    pool = {1: "zh", 2: "zh", 3: "en"}.__getitem__
    one_scale = score_blend(lexical, [], dict(lexical), {}, keyword_weight=0.5)
    assert [item for item, _ in one_scale] == [1, 2, 3]
    pooled = dict(score_blend(lexical, [], dict(lexical), {}, 0.5, pool_of=pool, home="zh"))
    assert pooled[3] == pytest.approx(pooled[1]) == pytest.approx(0.5)
    assert pooled[2] == pytest.approx(0.5 * 0.9)


def test_the_questions_own_language_is_not_raised() -> None:
    # An English question that the Chinese pages match better (through translations) than any
    # English page: the English pages keep their place against the library's best.
    lexical = [(1, 10.0), (2, 8.0)]
    pool = {1: "zh", 2: "en"}.__getitem__
    pooled = dict(score_blend(lexical, [], dict(lexical), {}, 1.0, pool_of=pool, home="en"))
    assert pooled == {1: pytest.approx(1.0), 2: pytest.approx(0.8)}


def test_a_pool_far_behind_is_not_raised_to_the_top() -> None:
    lexical = [(1, 10.0), (2, 2.0), (3, 1.0)]
    pool = {1: "en", 2: "zh", 3: None}.__getitem__  # 3 has no vector yet, so no pool
    pooled = dict(score_blend(lexical, [], dict(lexical), {}, 1.0, pool_of=pool, home="en"))
    assert pooled[2] == pytest.approx(2.0 / (POOL_FLOOR * 10.0))
    assert pooled[3] == pytest.approx(0.1)


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 2, 4]], k=10)
    assert [item for item, _ in fused] == [3, 2, 1, 4]
    assert fused[0][1] == pytest.approx(1 / 13 + 1 / 11)
