"""Fusing the keyword and vector rankings into one.

The app blends the two retrievers' *scores*: BM25 divided by the query's best BM25, and cosine
similarity scaled between the worst and best of the vector candidates, mixed with a keyword
weight. Unlike reciprocal rank fusion, a blend keeps how far ahead a passage is — a passage
that matches the rare part number in the query far better than anything else stays ahead
even if its vector rank is mediocre, and a near-tie in BM25 lets meaning decide. Every
candidate is scored by both retrievers, so one that a retriever ranked just past its cut is not
treated as if that retriever had found nothing in it. On the three development sets
(``bench/tune_fusion.py``) the blend beat the best RRF setting on every one: SciFact nDCG@10
0.700 vs 0.687, DRCD 0.988 vs 0.977, SDCC manual page-hit@5 0.93 vs 0.90 (``run_eval.py``,
keyword weight 0.65 and 100 candidates each; 0.6 and 0.7 did no better). RRF stays here as the
baseline the tuning script compares against.

In a library of two languages, BM25 of a passage in the *other* language than the question's is
read against the best BM25 of that language's pool, not of the whole library. A Chinese question
matches a Chinese page on its own words, and an English page only through the dictionary's
translations (``search.crossing``); read against one best, Chinese pages about something else
outrank the English page that answers it (on Linux manual pages, split half English and half
Chinese, 22 of 75 Chinese questions on English pages missed the top 5, each with Chinese pages
above it). The question's own language needs no such help: when it matches less than the other
language, its words are what the library lacks, and raising it let an English page crowd a
Chinese one out for an English question (``manuals_mixed_dev`` cjk_en_05). A pool whose best is
far behind the library's best is not raised all the way: its BM25 is read against at least
``POOL_FLOOR`` of the library's best, so a pool that matches a question on a stray word stays
behind. Keyword search without vectors reads the pools the same way (its blend is all keyword
weight); the floor was fitted in hybrid mode and not refitted for it (README).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

KEYWORD_WEIGHT = 0.65
RRF_K = 10
# Fitted on the odd-numbered questions of the four groups of ``bench/manpage_sets.py`` and of
# ``manuals_mixed_dev`` (mean recall@5 / page-hit@5 over the five: 0.892 read against the library's
# best, 0.903 / 0.919 / 0.919 with floors 0.85 / 0.7 / 0.5, and 0.919 with no floor; 0.7 wins
# on the fourth decimal); reported on the even-numbered ones in the README.
POOL_FLOOR = 0.7


def _keyword_scales(
    lexical: Sequence[tuple[int, float]], pool_of: Callable[[int], Hashable] | None, home: Hashable
) -> tuple[float, dict[Hashable, float]]:
    """The library's best BM25, and the BM25 each other-language pool's passages are divided by.
    Passages of the question's own pool (``home``), and those with no vector yet (no pool), are
    read against the library's best."""
    best = lexical[0][1] if lexical and lexical[0][1] > 0 else 1.0
    if pool_of is None:
        return best, {}
    scales: dict[Hashable, float] = {}
    for item, score in lexical:
        pool = pool_of(item)
        if pool is not None and pool != home:
            scales[pool] = max(scales.get(pool, POOL_FLOOR * best), score)
    return best, scales


def score_blend(
    lexical: Sequence[tuple[int, float]],
    dense: Sequence[tuple[int, float]],
    bm25: Mapping[int, float],
    cosine: Mapping[int, float],
    keyword_weight: float = KEYWORD_WEIGHT,
    pool_of: Callable[[int], Hashable] | None = None,
    home: Hashable = None,
) -> list[tuple[int, float]]:
    """``(id, blended score)`` best first over every passage either retriever found.

    ``lexical`` (BM25) and ``dense`` (cosine), each sorted best first, name the candidates and set
    the scales: BM25 is divided by the best BM25, cosine scaled from the last dense candidate's
    (0) to the first's (1). ``bm25`` and ``cosine`` hold each candidate's score from *both*
    retrievers, so a passage just outside one retriever's top N keeps what that retriever thinks
    of it instead of counting as 0 (no keyword match, or no vector yet, does count as 0).
    ``pool_of`` names each passage's language pool when the library has more than one, and
    ``home`` the pool of the question's language.
    """
    candidates = dict.fromkeys([item for item, _ in lexical] + [item for item, _ in dense])
    best, scales = _keyword_scales(lexical, pool_of, home)
    low, high = (dense[-1][1], dense[0][1]) if dense else (0.0, 1.0)
    spread = max(high - low, 1e-6)
    scores = {
        item: keyword_weight * bm25.get(item, 0.0) / (scales.get(pool_of(item), best) if pool_of else best)
        + (1 - keyword_weight) * max(0.0, cosine.get(item, low) - low) / spread
        for item in candidates
    }
    return sorted(scores.items(), key=lambda kv: -kv[1])


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[int]], weights: Sequence[float] | None = None, k: int = RRF_K
) -> list[tuple[int, float]]:
    """``(id, fused score)`` best first; ties keep the order of first appearance."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])
