"""The searcher's own steps, apart from the retrievers it drives."""

from __future__ import annotations

from kbapp.search.searcher import _best_per_pool
from kbapp.text.script import Script


def test_a_passage_the_pools_do_not_know_yet_is_left_out_of_their_best() -> None:
    """Embedded while the search ran, chunk 3 was found by the index before the language pools were
    read again (a search during an import failed with ``KeyError: 3`` here): it has no pool to
    stand out of, and the others are judged as before, less their pull on every question."""
    dense = [(3, 0.95), (1, 0.90), (2, 0.80)]
    pool_of = {1: Script.LATIN, 2: Script.CJK}
    assert _best_per_pool(dense, pool_of, {1: 0.1, 2: -0.2}) == {Script.LATIN: 0.8, Script.CJK: 0.8}
