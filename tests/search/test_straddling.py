"""A Chinese question's character pairs that straddle two of its words are matched only where the
two words stand together."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase
from kbapp.search import straddling
from kbapp.search.straddling import without_straddling
from kbapp.text.terms import query_terms


def _kept(query: str) -> list[str]:
    return [t.text for t in without_straddling(query, query_terms(query), None)]


def test_a_pair_across_two_words_is_matched_within_them_and_one_with_a_function_character_not_at_all() -> (
    None
):
    assert _kept("怎么设置网格线") == [
        "设置",
        "设置 置网 网格",
        "网格",
        "格线",
    ]  # 置网 only in 设置网格; not 幺设
    assert _kept("基隆港的辅助港") == ["基隆", "隆港", "辅助", "助港"]  # not 港的, 的辅


def test_a_name_the_dictionary_lacks_keeps_its_pairs() -> None:
    assert _kept("嘉峪关的设置") == ["嘉峪", "峪关", "设置"]  # 嘉峪关 is in no dictionary entry


def test_a_question_without_chinese_does_not_open_the_dictionary(monkeypatch: pytest.MonkeyPatch) -> None:
    def unwanted() -> None:
        raise AssertionError("the dictionary was opened")

    monkeypatch.setattr(straddling, "bridge", unwanted)
    query = "pump XK-200 overheat"
    assert _kept(query) == [t.text for t in query_terms(query)]


def test_english_terms_and_single_characters_are_kept() -> None:
    query = "XK-200 的 pump 网"
    assert _kept(query) == [t.text for t in query_terms(query)]


def test_a_page_where_the_two_words_meet_another_is_not_matched_on_their_pair(tmp_path: Path) -> None:
    """设置网格线 ("set grid lines") asked of a library with a page on 设置网络 ("network settings"):
    before, the page came first on 置网, a pair rarer than any word of the page on grid lines."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "grid.txt").write_text("坐标图\n\n在坐标图上可以显示网格线。\n", "utf-8")
    (docs / "network.txt").write_text(
        "网络\n\n本页说明怎样设置网络。设置网络地址需要管理员权限，设置网络前先备份。\n", "utf-8"
    )
    for i in range(6):
        (docs / f"chapter{i}.txt").write_text(f"说明{i}\n\n第{i}章介绍网格的设置方法。\n", "utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([docs]).ok
        results = kb.search("设置网格线", k=10, mode="lexical").results
    assert "网格线" in results[0].text  # the network page came first
    assert "网络" in results[-1].text  # below every page on grids: it holds only 设置


def test_a_compound_written_whole_is_still_matched_as_one(tmp_path: Path) -> None:
    """曝光时间 ("exposure time") is two dictionary words; the page that writes them together
    outranks one that has both apart, as it did when 光时 was matched on its own."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "whole.txt").write_text("参数\n\n曝光时间决定图像亮度。\n", "utf-8")
    (docs / "apart.txt").write_text("参数\n\n曝光过度时，缩短时间。\n", "utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([docs]).ok
        results = kb.search("曝光时间", k=2, mode="lexical").results
    assert [r.text.split("\n")[-1] for r in results] == ["曝光时间决定图像亮度。", "曝光过度时，缩短时间。"]
