"""Reciprocal rank fusion of the keyword and vector rankings.

RRF uses only ranks, so BM25 scores (unbounded, query-dependent) and cosine similarities
(compressed into a narrow band by E5) need no common scale: a passage both retrievers rank
high wins, and one that only a single retriever finds can still make the list.
"""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 10  # a small k lets a retriever's first few ranks dominate; it won on the dev sets


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
