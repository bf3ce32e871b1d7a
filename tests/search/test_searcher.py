"""The searcher's own steps, apart from the retrievers it drives."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase
from kbapp.search import crossing, vocabulary
from kbapp.search.searcher import _best_per_pool
from kbapp.text.script import Script


def test_a_passage_the_pools_do_not_know_yet_is_left_out_of_their_best() -> None:
    """Embedded while the search ran, chunk 3 was found by the index before the language pools were
    read again (a search during an import failed with ``KeyError: 3`` here): it has no pool to
    stand out of, and the others are judged as before, less their pull on every question."""
    dense = [(3, 0.95), (1, 0.90), (2, 0.80)]
    pool_of = {1: Script.LATIN, 2: Script.CJK}
    assert _best_per_pool(dense, pool_of, {1: 0.1, 2: -0.2}) == {Script.LATIN: 0.8, Script.CJK: 0.8}


def test_a_library_of_one_language_searches_without_opening_the_dictionary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the dictionary's cache checks all 6 MB of it (16 ms of a one-shot keyword search):
    only a question that can be translated into another language of the library needs it, to be
    searched (``crossing``) or to know which of its words the library lacks (``vocabulary``)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pump.txt").write_text("Pump\n\nThe pump stops when it overheats.\n", "utf-8")
    (docs / "泵.txt").write_text("泵\n\n泵过热时会停机。\n", "utf-8")

    def unwanted() -> None:
        raise AssertionError("the dictionary was opened")

    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([docs / "pump.txt"]).ok
        for module in (crossing, vocabulary):
            monkeypatch.setattr(module, "bridge", unwanted)
        assert kb.search("pump overheats", mode="lexical").results
        assert kb.search("pump overheats", mode="hybrid").results  # the model loaded, on first use
        monkeypatch.undo()
        assert kb.import_paths([docs / "泵.txt"]).ok
        monkeypatch.setattr(crossing, "bridge", unwanted)
        with pytest.raises(AssertionError, match="dictionary was opened"):
            kb.search("pump overheats", mode="lexical")  # now 泵 may be what it asks for
