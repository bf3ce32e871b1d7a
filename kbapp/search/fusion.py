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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

KEYWORD_WEIGHT = 0.65
RRF_K = 10


def score_blend(
    lexical: Sequence[tuple[int, float]],
    dense: Sequence[tuple[int, float]],
    bm25: Mapping[int, float],
    cosine: Mapping[int, float],
    keyword_weight: float = KEYWORD_WEIGHT,
) -> list[tuple[int, float]]:
    """``(id, blended score)`` best first over every passage either retriever found.

    ``lexical`` (BM25) and ``dense`` (cosine), each sorted best first, name the candidates and set
    the scales: BM25 is divided by the best BM25, cosine scaled from the last dense candidate's
    (0) to the first's (1). ``bm25`` and ``cosine`` hold each candidate's score from *both*
    retrievers, so a passage just outside one retriever's top N keeps what that retriever thinks
    of it instead of counting as 0 (no keyword match, or no vector yet, does count as 0).
    """
    candidates = dict.fromkeys([item for item, _ in lexical] + [item for item, _ in dense])
    best = lexical[0][1] if lexical and lexical[0][1] > 0 else 1.0
    low, high = (dense[-1][1], dense[0][1]) if dense else (0.0, 1.0)
    spread = max(high - low, 1e-6)
    scores = {
        item: keyword_weight * bm25.get(item, 0.0) / best
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
