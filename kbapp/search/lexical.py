"""Keyword retrieval: the query's terms ORed in an FTS5 MATCH expression, ranked by its BM25
(the query runs in ``kbapp.store.keywords``). In a large library the one-token terms, and the
prefixes while the library is the one the copy was built from, are scored from a copy of the
postings (``kbapp.index.postings``) and FTS5 scores only the rest: the same BM25 sums, without
FTS5 scoring every matching passage row by row.

Only chunks that contain at least one query term come back, so a query that matches nothing
returns nothing — never "the first N chunks".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from sqlalchemy.engine import Connection

from kbapp.store import keywords, passages
from kbapp.text.terms import Term, fts_match_expression

if TYPE_CHECKING:
    import numpy as np

    from kbapp.index.keyword_index import Served

_QUOTED_MARGIN = 0.01


def lexical_search(
    conn: Connection,
    terms: list[Term],
    limit: int,
    document_ids: Sequence[int] | None = None,
    phrases: Sequence[str] = (),
    also: Sequence[int] = (),
    served: Served | None = None,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[int, float]]:
    """``(chunk_id, score)`` best first; the score is BM25 (higher is better), each term's share
    scaled by its ``weights`` entry where it has one (a translation's: ``crossing.Bridged.weights``).

    ``phrases`` (see ``quoted_phrases``) are what the user quoted: passages containing all of
    them come first, each group in BM25 order; without such passages the ranking is plain BM25.
    Quoted matches have their BM25 lifted just above the best other passage, so scores still
    fall with rank.

    The first ``limit`` entries are the ranking. Chunks in ``also`` (the vector candidates) that
    match a term but rank below the cut follow them, so fusion can weigh their BM25 too. They are
    scored in the same pass over the matches: FTS5 scores a lookup by rowid no cheaper.
    ``served``, a copy of the postings (``kbapp.index.keyword_index``), must serve the library as
    ``conn`` sees it.
    """
    if not terms:
        return []
    anything = fts_match_expression(terms)
    shares = _shares(terms, weights or {})
    others = None
    if served is not None:
        try:
            others = _postings_ranking(conn, served, shares, limit, document_ids, also)
        except OSError:  # its file was replaced by a newer copy's during this search
            others = None
    if others is None and len(shares) > 1:
        others = _weighted_ranking(conn, shares, limit, document_ids, also)
    if others is None:
        others = keywords.bm25_ranking(conn, anything, limit, document_ids, also)
    if not phrases:
        return others
    all_quoted = f"({' AND '.join(phrases)}) AND ({anything})"
    quoted = keywords.bm25_ranking(conn, all_quoted, limit, document_ids, ())
    first = {chunk_id for chunk_id, _ in quoted}
    rest = [hit for hit in others if hit[0] not in first]
    if quoted and rest:
        lift = max(0.0, rest[0][1] - quoted[-1][1]) + _QUOTED_MARGIN
        quoted = [(chunk_id, score + lift) for chunk_id, score in quoted]
    ranked = (quoted + rest)[:limit]
    shown = {chunk_id for chunk_id, _ in ranked}
    wanted = set(also)
    return ranked + [hit for hit in rest if hit[0] in wanted and hit[0] not in shown]


def _shares(terms: list[Term], weights: Mapping[str, float]) -> list[tuple[float, list[Term]]]:
    """The terms grouped by the share of their BM25 they keep: BM25 is a sum over terms, so each
    group is scored on its own and the sums are added up, scaled."""
    groups: dict[float, list[Term]] = {}
    for t in terms:
        groups.setdefault(weights.get(t.text, 1.0), []).append(t)
    return sorted(groups.items(), key=lambda group: -group[0])


def _best(scores: Mapping[int, float], limit: int, also: Sequence[int]) -> list[tuple[int, float]]:
    """The best ``limit`` of ``scores``, then those of ``also`` below them; ties as FTS5's ranking
    leaves them: a vector candidate first, then by id."""
    wanted = set(also)
    order = sorted(scores, key=lambda i: (-scores[i], i not in wanted, i))
    ranked = [(i, scores[i]) for i in order[:limit]]
    return ranked + [(i, scores[i]) for i in order[limit:] if i in wanted]


def _weighted_ranking(
    conn: Connection,
    shares: list[tuple[float, list[Term]]],
    limit: int,
    document_ids: Sequence[int] | None,
    also: Sequence[int],
) -> list[tuple[int, float]]:
    """``keywords.bm25_ranking``'s answer with each group of terms' BM25 scaled by its share: one
    FTS5 query per group, every match scored."""
    scores: dict[int, float] = {}
    for share, group in shares:
        for chunk_id, score in keywords.bm25_scores(conn, fts_match_expression(group), document_ids):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + share * score
    return _best(scores, limit, also)


def _one_token(text: str) -> bool:
    """Whether FTS5 reads ``text`` as one token, as the postings hold it (letters and digits,
    already lower case)."""
    return text.isalnum() and text == text.lower()


def _postings_ranking(
    conn: Connection,
    served: Served,
    shares: list[tuple[float, list[Term]]],
    limit: int,
    document_ids: Sequence[int] | None,
    also: Sequence[int],
) -> list[tuple[int, float]]:
    """``_weighted_ranking``'s answer, the one-token terms of the passages the copy holds scored
    from it (``served``); FTS5 adds the other terms, and every term of passages added since the
    copy was built. The best ``limit`` matches, then the matches among ``also`` below them; ties
    in id order."""
    import numpy as np

    parts = [(share, _postings_scores(conn, served, terms, document_ids)) for share, terms in shares]
    scores = np.zeros(max(len(part) for _, part in parts))
    for share, part in parts:
        scores[: len(part)] += share * part
    if document_ids is not None:
        allowed = np.array(passages.chunk_ids(conn, document_ids), np.int64)
        allowed = allowed[allowed < len(scores)]
        kept = np.zeros_like(scores)
        kept[allowed] = scores[allowed]
        scores = kept
    top = np.flatnonzero(scores > 0)
    if len(top) > limit:  # the best ``limit`` and every passage tied with the last of them
        cut = scores[top[np.argpartition(-scores[top], limit - 1)[limit - 1]]]
        top = top[scores[top] >= cut]
    # Ties as FTS5's ranking leaves them: a vector candidate first, then by id.
    wanted = set(also)
    order = sorted(top.tolist(), key=lambda i: (-scores[i], i not in wanted, i))
    ranked = [(i, float(scores[i])) for i in order[:limit]]
    shown = set(order[:limit])
    below = [
        (i, float(scores[i]))
        for i in dict.fromkeys(also)
        if i not in shown and 0 <= i < len(scores) and scores[i] > 0
    ]
    return ranked + sorted(below, key=lambda hit: (-hit[1], hit[0]))


def _postings_scores(
    conn: Connection, served: Served, terms: list[Term], document_ids: Sequence[int] | None
) -> np.ndarray:
    """Each passage's BM25 sum over ``terms``, indexed by id: the one-token terms of the passages
    the copy holds from the copy, the rest from FTS5."""
    import numpy as np

    view = served.view
    singles = [t for t in terms if not t.prefix and _one_token(t.text)]
    # A prefix (a lone Chinese character) needs the count of passages holding any term it begins,
    # which only the library the copy was built from has without FTS5 listing its matches.
    prefixes = [t for t in terms if t.prefix and _one_token(t.text)] if view.exact else []
    rest = [t for t in terms if t not in singles and t not in prefixes]
    # The copy's IDF is the library's as it was built; since then, FTS5's counts are the truth.
    counts = None if view.exact else keywords.term_counts(conn, [t.text for t in singles])
    scores = view.scores((t.text for t in singles), counts, (t.text for t in prefixes))
    hits = keywords.bm25_scores(conn, fts_match_expression(rest), document_ids) if rest else []
    if singles and served.added_after is not None:
        hits += keywords.bm25_scores(conn, fts_match_expression(singles), document_ids, served.added_after)
    if hits:
        ids = np.array([chunk_id for chunk_id, _ in hits], np.int64)
        if int(ids.max()) >= len(scores):
            scores = np.concatenate([scores, np.zeros(int(ids.max()) + 1 - len(scores))])
        np.add.at(scores, ids, [score for _, score in hits])
    return scores


def idf(passages: int, containing: float) -> float:
    """How much a term found in ``containing`` of ``passages`` says: BM25's IDF, kept positive for a
    term in most passages."""
    return math.log(1 + (passages - containing + 0.5) / (containing + 0.5))


@dataclass(frozen=True, slots=True)
class TermStats:
    """How many passages the library has, and how many of them contain each exact query term."""

    passages: int
    containing: dict[str, int]

    def weights(self, terms: list[Term]) -> dict[str, float]:
        """IDF of each query term, so "how much of the query a passage covers" can count a rare
        part number for more than a common word. Prefix terms (a lone CJK character) get 1."""
        weights = {}
        for t in terms:
            n = self.containing.get(t.text)
            weights[t.text] = 1.0 if t.prefix or n is None else idf(self.passages, n)
        return weights

    def rankable(self, terms: list[Term], limit: int) -> list[Term]:
        """The terms worth matching for the best ``limit`` passages.

        FTS5 clamps the IDF of a term found in half the passages or more to ~0, so it only widens
        the match set, and it is the costliest term to match: its doclist is the longest (at 100k
        passages such a query took 80-100 ms instead of 2). It is left out when another term
        alone fills the ``limit``, since every passage with a rankable term outscores one with
        only near-zero terms, so the best ``limit`` stay the same.
        """
        common = {t for t, n in self.containing.items() if 2 * n >= self.passages}
        kept = [t for t in terms if t.text not in common]
        if common and any(self.containing.get(t.text, 0) >= limit for t in kept):
            return kept
        return terms


TermCounter = Callable[[Collection[str]], dict[str, int]]


def term_counter(conn: Connection, served: Served | None) -> TermCounter:
    """How many passages hold each term (0 for a term the library never saw): looked up in the
    copy of the postings when the library is the one it was built from, else counted by FTS5's
    vocabulary, which reads each term's passages to count them (a question's terms took 5-8 ms at
    100,000 passages, and a search counts them two or three times)."""
    if served is not None and served.view.exact:
        return served.view.postings.counts
    return partial(keywords.term_counts, conn)


def term_stats(terms: list[Term], count: TermCounter, passages: int) -> TermStats:
    """``passages``: how many the library holds (``profile.Profile.passages``, read once per change
    of the library's text)."""
    if not terms:
        return TermStats(0, {})
    return TermStats(passages, count([t.text for t in terms if not t.prefix]))
