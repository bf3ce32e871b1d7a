"""Is anything the search found relevant, or is "nothing relevant found" the honest answer?

A question is answered when a passage covers enough of its keywords (IDF-weighted, so a rare
part number counts for more than "time"), or when the best passage of some language pool is
closer to the question than the closest everyday sentence in that pool's language is
(``everyday``). Both sides of that comparison are the same language pair, so a Chinese question
answered by an English manual is judged against English everyday text, and the yardstick moves
with the question: a chatty question sits close to everything, everyday text included.

``MARGIN`` (by "question and pool share a language") was fitted on the odd-numbered questions of
``manuals_mixed_dev`` (answerable and out-of-scope) as the largest margins that still answer
every answerable one there; it is reported on the even-numbered ones, the other development
sets and ``bench/data/oos_heldout.jsonl`` (``bench/calibrate_floor.py``).
"""

from __future__ import annotations

from collections.abc import Mapping

from kbapp.contract import SearchResult
from kbapp.text.script import Script

COVERAGE_FLOOR = 0.5  # share of the query's keyword weight that makes a passage relevant on words alone
BRIDGE_FLOOR = 1.01  # the same for its terms bridged into the other language (above 1: off)
MARGIN = {True: 0.015, False: 0.06}  # best cosine minus the best everyday cosine, by "same language"


def relevant(
    results: list[SearchResult], best: Mapping[Script, float], everyday: Mapping[Script, float], query: Script
) -> bool:
    """``best``: the highest cosine in each language pool; ``everyday``: the question's highest
    cosine with everyday text, per language."""
    for r in results:
        if (
            r.why.get("keyword_coverage", 0.0) >= COVERAGE_FLOOR
            or r.why.get("bridge_coverage", 0.0) >= BRIDGE_FLOOR
        ):
            return True
    return any(sim - everyday[script] >= MARGIN[script == query] for script, sim in best.items())
