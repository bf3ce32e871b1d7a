"""Snippet windows measured in display columns: CJK counts double, words are not cut."""

from __future__ import annotations

from kbapp.text.width import window


def test_window_is_cjk_aware_and_keeps_words_whole() -> None:
    zh = "前言" * 100 + "曝光时间" + "说明" * 200
    at = zh.index("曝光时间")
    start, end = window(zh, at, 60, 260)
    # CJK counts double: about 30 characters of lead, about 130 in all.
    assert 25 <= at - start <= 32 and 120 <= end - start <= 135
    en = "word " * 40 + "exposure" + " tail" * 100
    at = en.index("exposure")
    start, end = window(en, at, 60, 260)
    assert not (en[start - 1].isalnum() and en[start].isalnum())  # no half word at the start
    assert not (en[end - 1].isalnum() and en[end].isalnum())  # nor at the end
    astral = "𠀀" * 300 + "E5021"
    at = astral.index("E5021")
    start, end = window(astral, at, 60, 260)
    assert astral[start:end].endswith("E5021")  # code points: a surrogate pair is never split
