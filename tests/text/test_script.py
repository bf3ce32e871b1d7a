"""Which script a document or question is in decides its language pool and the relevance margins."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbapp.text.script import CJK_RE, CJK_SHARE, Script, script_of


def test_english_with_a_few_chinese_terms_is_latin() -> None:
    text = "Set the exposure time (曝光时间) on the XK-200 first; error E5021 means overheating. " * 3
    assert script_of(text) is Script.LATIN


def test_chinese_quoting_english_option_names_is_cjk() -> None:
    text = "使用 \\documentclass{exam-zh} 时，可以通过 student 选项生成学生版，通过 teacher 选项生成教师版。"
    assert script_of(text) is Script.CJK


def test_kana_and_hangul_count_as_cjk() -> None:
    assert script_of("露光時間を設定してください。") is Script.CJK
    assert script_of("노출 시간을 설정하십시오") is Script.CJK


def test_no_letters_at_all_is_latin() -> None:
    assert script_of("") is Script.LATIN
    assert script_of("1234 5678 -- 0x1F ... 3.14") is Script.LATIN


def test_only_the_sample_is_read() -> None:
    text = "English manual page. " * 40 + "中文" * 1000
    assert script_of(text) is Script.LATIN
    assert script_of(text, sample=len(text)) is Script.CJK


def test_the_share_of_cjk_among_letters_decides() -> None:
    # 3 CJK characters among 10 letters is the 30 % line; one Latin letter more is below it.
    assert script_of("中文字abcdefg") is Script.CJK
    assert script_of("中文字abcdefgh") is Script.LATIN


@given(
    st.lists(st.sampled_from(["中", "文", "a", "é", "Ж", " ", "1", ",", "\n", "²"]), max_size=60).map("".join)
)
def test_the_shortcuts_decide_as_the_share_among_letters_does(text: str) -> None:
    """Texts with no CJK, or with CJK making up a large share of every character, are decided
    without counting letters: the answer must be the one the count would give."""
    cjk = len(CJK_RE.findall(text))
    letters = sum(map(str.isalpha, text))
    expected = Script.CJK if cjk and cjk / letters >= CJK_SHARE else Script.LATIN
    assert script_of(text, sample=len(text)) is expected
