"""Where in a passage its result should open: the window holding most of the question's weight.

A passage of a few hundred words often matches a common word early ("time", 设置) and the
question's rare words further on ("USBasp", "simultaneously"). Showing the snippet from the first
match shows the common word; the window that holds the most IDF weight of distinct query terms
(the question's own and its bridged translations) shows why the passage matched. The page a
result cites, when its passage runs over a page break, is the page of that window too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import pairwise

from kbapp.contract import FOCUS_COLUMNS, text_columns


def focus(text: str, occurrences: Sequence[tuple[int, int, str]], weights: Mapping[str, float]) -> int:
    """Offset in ``text`` of the first term occurrence of the best window; 0 without any.

    ``occurrences`` (``terms.term_spans``) are in text order; a window starts at an occurrence and
    holds every occurrence that starts within ``FOCUS_COLUMNS`` of it. Its weight is the sum over
    the distinct terms in it; the earliest of equal windows wins, so a passage whose best part
    comes first opens where it always did.
    """
    if not occurrences:
        return 0
    starts = [s for s, _, _ in occurrences]
    at = [0]  # display columns from the first occurrence to each one
    for previous, start in pairwise(starts):
        at.append(at[-1] + text_columns(text[previous:start]))
    best, best_start, end = -1.0, starts[0], 0
    for i, start in enumerate(starts):
        end = max(end, i)
        while end + 1 < len(starts) and at[end + 1] - at[i] <= FOCUS_COLUMNS:
            end += 1
        # fsum: a set's order changes from process to process, and a plain sum of the same weights
        # with it in the last bit, which had made equal windows win by turns (the snippet of one
        # search opened at another place on every run).
        weight = math.fsum(weights.get(term, 0.0) for term in {t for _, _, t in occurrences[i : end + 1]})
        if weight > best:
            best, best_start = weight, start
    return best_start
