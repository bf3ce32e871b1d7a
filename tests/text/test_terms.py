"""The keyword tokenizer: Chinese bigrams, Traditional/Simplified folding, codes, highlights."""

from __future__ import annotations

import pytest

from kbapp.text.fold import fold, fold_with_map
from kbapp.text.terms import (
    Term,
    code_terms,
    fts_match_expression,
    highlight_spans,
    index_terms,
    quantity_parts,
    query_terms,
    quoted_phrases,
    term_spans,
)


def terms_of(q: str) -> list[str]:
    return [t.text for t in query_terms(q)]


def test_fold_normalises_width_case_and_script() -> None:
    assert fold("ＸＫ－２００ Exposure 曝光時間") == "xk-200 exposure 曝光时间"
    assert fold("圖像偏暗 錯誤碼") == "图像偏暗 错误码"


def test_fold_with_map_points_back_to_source() -> None:
    text = "ﬁle Straße 曝光"
    folded, index = fold_with_map(text)
    assert folded == "file strasse 曝光"
    assert index is not None
    assert text[index[folded.index("曝")]] == "曝"


def test_fold_agrees_with_its_definition_on_every_ascii_character() -> None:
    """ASCII takes a shortcut (lower-casing only); it must fold as NFKC + casefold would."""
    import unicodedata

    ascii_text = "".join(map(chr, range(128)))
    assert fold(ascii_text) == unicodedata.normalize("NFKC", ascii_text).casefold()
    assert fold_with_map(ascii_text) == (ascii_text.lower(), None)


def test_full_width_punctuation_folds_in_place() -> None:
    """Chinese prose is full of full-width punctuation: one character folds to one, no map needed."""
    text = "曝光時間，請設定為１０ｍｓ。"
    folded, index = fold_with_map(text)
    assert folded == "曝光时间,请设定为10ms。"
    assert index is None


def test_cjk_bigrams_and_tail_unigram() -> None:
    assert index_terms("曝光时间") == "曝光 光时 时间 间"
    assert terms_of("曝光") == ["曝光"]
    assert set(terms_of("图像 偏暗")) <= set(index_terms("图像偏暗").split())


def test_traditional_query_matches_simplified_text() -> None:
    assert set(terms_of("曝光時間")) <= set(index_terms("曝光时间").split())
    assert set(terms_of("曝光时间")) <= set(index_terms("曝光時間").split())


def test_codes_whole_and_by_parts() -> None:
    indexed = index_terms("Error E5021 on XK-200, use M3x0.5 screws").split()
    for term in ("e5021", "5021", "xk200", "xk", "200", "m3x05"):
        assert term in indexed
    assert terms_of("XK-200") == ["xk200"]
    assert terms_of("e5021") == ["e5021"]
    assert terms_of("5021") == ["5021"]


def test_codes_a_question_names() -> None:
    """Letters with digits, each code once, as the term it is looked up by; a number, an ordinal
    or a Chinese run with a year in it is no code."""
    codes = code_terms("XK-200 shows E5021 then e5021 and ＦＵ-2A on the 2nd try, 8051 上1998年")
    assert [t.text for t in codes] == ["xk200", "e5021", "fu2a"]


def test_stemming_and_stopwords() -> None:
    assert terms_of("the trigger modes") == ["trigger", "mode"]
    assert terms_of("the") == ["the"]  # nothing but stopwords: keep them rather than search for nothing


def test_stopwords_are_recognised_after_stemming() -> None:
    # "does" becomes "doe", "during" "dure": checked only as written, they were searched for.
    query = "why does the pump stop during start-up only once, because of very low pressure"
    assert terms_of(query) == ["pump", "stop", "startup", "low", "pressur"]


def test_chinese_question_words_are_stopwords() -> None:
    # 哪一 / 于哪 / 是谁 / 多久 never occur in the passage that answers the question.
    expected = ["南戏", "戏主", "主要", "一地", "地区", "区较", "较为", "为盛", "盛行"]
    assert terms_of("南戲主要哪一地區較為盛行") == expected
    assert terms_of("總統是誰") == ["总统", "统是"]
    assert terms_of("維持了多久") == ["维持", "持了", "了多"]
    assert terms_of("哪") == ["哪"]  # nothing else left: keep it


def test_quoted_spans_become_phrases() -> None:
    assert quoted_phrases("《冷卻規範》屬於哪一種類型的資料?") == ['NEAR("冷却" "却规" "规范", 5)']
    assert quoted_phrases('the "XK-200 trigger" mode') == ['NEAR("xk200" "trigger", 4)']
    assert quoted_phrases("「螺絲」与“Exposure Time”") == ['"螺丝"', 'NEAR("exposur" "time", 4)']
    assert quoted_phrases("no quotes here, it's fine") == []
    assert quoted_phrases("《》 「的」") == []  # nothing searchable inside


def test_counts_of_times_and_how_much_are_not_searched_for() -> None:
    # "How often is it replaced", "how much torque": 一次 and 多大 ask, the answer never says them.
    assert terms_of("多久换一次") == ["久换", "换一"]
    assert terms_of("两遍") == ["两遍"]  # nothing else left: keep it
    assert terms_of("扭矩要多大") == ["扭矩", "矩要", "要多"]
    assert "多重" in terms_of("多重继承")  # "multiple" is a word, not a question
    assert terms_of("一次性手套") == ["次性", "性手", "手套"]


def test_single_cjk_character_is_a_prefix_query() -> None:
    [term] = query_terms("光")
    assert term.prefix
    assert fts_match_expression([term]) == '"光"*'


def test_highlight_merges_cjk_run_and_maps_codes() -> None:
    text = "错误码 E5021：曝光時間过长，检查 XK-200 的 Exposure Time。"
    occurrences = term_spans(text, query_terms("曝光时间 xk-200 exposure nothing"))
    assert [text[s:e] for s, e in highlight_spans(occurrences)] == ["曝光時間", "XK-200", "Exposure"]
    assert [term for _, _, term in occurrences] == ["曝光", "光时", "时间", "xk200", "exposur"]


def test_chinese_terms_are_found_at_every_pair_and_prefix_character() -> None:
    text = "复位按钮，电压过高时电压表闪烁"
    assert term_spans(text, query_terms("电压 复")) == [(0, 1, "复"), (5, 7, "电压"), (10, 12, "电压")]
    both = [Term("复位", 0, 2), Term("复", 0, 1, prefix=True)]  # a pair before the character it starts with
    assert term_spans("复位复", both) == [(0, 2, "复位"), (2, 3, "复")]


def test_highlight_offsets_survive_expanding_folds() -> None:
    text = "ﬁle ﬁle 曝光"
    spans = highlight_spans(term_spans(text, query_terms("曝光")))
    assert [text[s:e] for s, e in spans] == ["曝光"]


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        ("CAN bus timeout", "can"),
        ("power off", "off"),
        ("no signal", "no"),
        ("not responding", "not"),
        ("pull up resistor", "up"),
        ("over current trip", "over"),
        ("under voltage alarm", "under"),
        ("吗啡的剂量", "吗啡"),
        ("哪吒是谁", "哪咤"),  # folded to the Simplified form the index holds
    ],
)
def test_field_words_are_not_stopwords(query: str, kept: str) -> None:
    assert kept in [t.text for t in query_terms(query)]


def test_question_words_are_still_dropped() -> None:
    terms = [t.text for t in query_terms("这个是哪个型号 what is the exposure")]
    assert "哪个" not in terms and "what" not in terms and "the" not in terms
    assert "型号" in terms and "exposur" in terms


def test_quantity_parts() -> None:
    parts = {
        q: quantity_parts(query_terms(q)[0])
        for q in ("3.3V", "4-20mA", "10kΩ", "XK-200", "E5021", "M3x0.5", "8051", "15th")
    }
    assert {q: p and [t.text for t in p] for q, p in parts.items()} == {
        "3.3V": ["33", "v"],
        "4-20mA": ["420", "ma"],
        "10kΩ": ["10", "kω"],
        "XK-200": None,
        "E5021": None,
        "M3x0.5": None,
        "8051": None,
        "15th": None,
    }
