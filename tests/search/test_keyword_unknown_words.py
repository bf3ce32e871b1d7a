"""Keyword search without vectors (keyword mode, or a model still loading) names the question's
words that no document holds, as hybrid search does, so matches on its other words are not taken
for an answer about them. It still lists every match: it makes no relevance decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbapp.contract import ResponseStatus
from kbapp.library import KnowledgeBase

PUMP = """P17 pump service bulletin

Remove the pump cover before you replace the shaft seal. A red warning lamp means the motor
overheats: stop the pump, let it cool for ten minutes, then check the impeller for debris.
Error E5021 is shown when the temperature sensor reads above 90 degrees.
"""
GUIDE = """泵的维护

更换轴封之前先拆下泵盖。电机过热时红色警告灯亮起，请停泵冷却十分钟。
"""


@pytest.fixture
def library(tmp_path: Path):  # type: ignore[no-untyped-def]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pump.txt").write_text(PUMP, "utf-8")
    (docs / "泵.txt").write_text(GUIDE, "utf-8")
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.import_paths([docs]).ok
        yield kb


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])  # hybrid without a model: keyword matches
def test_the_words_no_document_holds_are_named_beside_the_matches(library: KnowledgeBase, mode: str) -> None:
    res = library.search("how to remove wine stains from a carpet", mode=mode)
    assert res.results and "Remove the pump cover" in res.results[0].text
    assert set(res.unknown_words) == {"wine", "stains", "carpet"}
    assert res.status is (ResponseStatus.OK if mode == "lexical" else ResponseStatus.KEYWORD_ONLY)


def test_in_chinese_too(library: KnowledgeBase) -> None:
    res = library.search("泡菜坛子怎么冷却才不会发酸", mode="lexical")
    assert res.results and "冷却" in res.results[0].text
    assert {"泡菜", "坛子"} <= set(res.unknown_words)


def test_a_question_the_library_holds_names_nothing(library: KnowledgeBase) -> None:
    for question in ("replace the shaft seal", "更换轴封", "E5021"):
        res = library.search(question, mode="lexical")
        assert res.results and res.unknown_words == (), question
