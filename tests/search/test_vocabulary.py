"""What the library knows of a question's words: the evidence that lets search refuse a question
about something no document mentions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kbapp.library import KnowledgeBase
from kbapp.search.lexical import term_counter
from kbapp.search.profile import LibraryProfile
from kbapp.search.relevance import (
    CLOSE,
    COVERAGE_FLOOR,
    CROSS_FLOOR,
    CROSS_REFERENCE_PASSAGES,
    FULL_STRENGTH_TERMS,
    MARGIN,
    MARGIN_ALONE,
    MOSTLY_UNKNOWN,
    NEARLY_ALL_UNKNOWN,
    UNKNOWN_SHARE,
    UNKNOWN_SHARE_TRANSLATED,
    cross_margin,
    margin_needed,
    relevant,
    unknown_share_base,
    unknown_share_needed,
    vocabulary_strength,
)
from kbapp.search.scripts import DocumentScripts
from kbapp.search.vocabulary import Vocabulary, vocabulary
from kbapp.text.script import Script

MANUAL = (
    "Fill-in-the-blank lines are drawn 4 em wide. To reset the controller, hold the RESET key "
    "while switching the power on. The hydraulic pump must be lubricated every 500 hours."
)


CHINESE_MANUAL = "F305：输入通道短路。断开该通道的传感器接线，逐个排查。"


def one_document(folder: Path, title: str, text: str) -> Iterator[KnowledgeBase]:
    (folder / "docs").mkdir()
    (folder / "docs" / "document.txt").write_text(f"{title}\n\n{text}\n", encoding="utf-8")
    with KnowledgeBase(folder / "lib") as kb:
        assert kb.import_paths([folder / "docs"]).ok
        yield kb


@pytest.fixture
def english_library(tmp_path: Path) -> Iterator[KnowledgeBase]:
    yield from one_document(tmp_path, "Manual", MANUAL)


@pytest.fixture
def chinese_library(tmp_path: Path) -> Iterator[KnowledgeBase]:
    yield from one_document(tmp_path, "故障代码", CHINESE_MANUAL)


def words_of(kb: KnowledgeBase, query: str) -> Vocabulary:
    with kb.engine.connect() as conn:
        return vocabulary(term_counter(conn, None), query, LibraryProfile(DocumentScripts()).of(conn))


def test_missing_words_are_named_as_the_question_wrote_them(english_library: KnowledgeBase) -> None:
    words = words_of(english_library, "How do I bake sourdough bread with the hydraulic pump?")
    assert words.unknown == ("bake", "sourdough", "bread")
    assert words.checked == 5 and words.unknown_share == pytest.approx(0.6)


def test_translations_are_named_only_in_a_language_the_library_holds(english_library: KnowledgeBase) -> None:
    """An English word missing from an English library was not missing as its Chinese words (no
    document is in Chinese); a Chinese word missing from it was looked for as its English ones."""
    english = words_of(english_library, "Which pump records vibration?")
    assert "records" in english.unknown and "records" not in english.translations, english
    chinese = words_of(english_library, "红烧肉怎么做？")
    assert chinese.translations and all(chinese.translations.values()), chinese


def test_compounds_count_by_their_parts_and_numbers_do_not_count(english_library: KnowledgeBase) -> None:
    # "fill-in-blank" is not in the text whole, but each of its parts is; 1200 is a value, not a topic.
    words = words_of(english_library, "How wide is a fill-in-blank line at 1200 dpi?")
    assert "fill-in-blank" not in words.unknown and "1200" not in words.unknown


def test_a_chinese_word_is_known_through_its_english_translation(english_library: KnowledgeBase) -> None:
    words = words_of(english_library, "怎么复位控制器？")  # reset, controller
    assert words.checked == 2 and words.unknown == (), words


@pytest.mark.parametrize(
    "text",
    [
        "Surface plots are drawn in 3D with the splot command.",  # 三维 is glossed "3D"
        "Surface plots give a three-dimensional view of the data.",  # ... and "three-dimensional"
    ],
)
def test_a_chinese_word_is_known_through_a_code_or_compound_gloss(tmp_path: Path, text: str) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "plots.txt").write_text(f"Plots\n\n{text}\n", encoding="utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([tmp_path / "docs"]).ok
        words = words_of(kb, "怎样画三维曲面？")  # how to draw a 3D surface
    assert words.checked == 2 and words.unknown == (), words


def test_chinese_words_the_library_lacks_in_both_languages(english_library: KnowledgeBase) -> None:
    words = words_of(english_library, "红烧肉怎么做？")
    assert words.unknown and words.unknown_share == 1.0


def test_english_words_asked_of_a_chinese_library_are_looked_up_through_translations(tmp_path: Path) -> None:
    """With no English document, an English word can only be found as one of its Chinese
    translations; once an English manual is in, it is looked up as written too."""
    (tmp_path / "docs").mkdir()
    manual = "手册\n\n复位控制器时按住复位键并接通电源。\n"
    (tmp_path / "docs" / "手册.txt").write_text(manual, encoding="utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([tmp_path / "docs"]).ok
        chinese_only = words_of(kb, "how to reset the controller during the season")
        assert chinese_only.translated == chinese_only.checked >= 3
        assert words_of(kb, "复位控制器 season").translated == 1
        (tmp_path / "docs" / "manual.txt").write_text("Manual\n\n" + MANUAL + "\n", encoding="utf-8")
        assert kb.import_paths([tmp_path / "docs"]).ok
        assert words_of(kb, "how to reset the controller during the season").translated == 0


@pytest.fixture
def fan_manual(tmp_path: Path) -> Iterator[KnowledgeBase]:
    yield from one_document(tmp_path, "风扇", "风扇故障停转时电流升高，请更换风扇。")


def test_an_english_word_is_known_by_a_later_word_or_a_kind_of_it_the_library_holds(
    fan_manual: KnowledgeBase,
) -> None:
    """风扇 ("electric fan"), 电流 ("electric current") and 故障 (the 15th word for "fault") are
    how a Chinese manual says "fan", "current" and "fault": the words are in the library, and not
    named as missing."""
    words = words_of(fan_manual, "why does the current rise when a fault stops the fan")
    assert not {"fan", "current", "fault"} & set(words.unknown), words
    assert "violin" in words_of(fan_manual, "how to tune a violin").unknown


def test_latin_words_of_a_chinese_question_are_looked_up_as_written(chinese_library: KnowledgeBase) -> None:
    """A name a Chinese question writes in Latin (nginx, Modbus) is written so in Chinese text
    too: asked of a library with no English document it is looked for as written, and missing
    there. The same word in an English question is left out, as a name the library would write
    in Chinese."""
    chinese = words_of(chinese_library, "nginx 的输入通道短路怎么排查？")
    assert chinese.unknown == ("nginx",) and chinese.translated == 0, chinese
    assert words_of(chinese_library, "F305 输入通道短路").unknown == ()
    english = words_of(chinese_library, "nginx input channel short circuit")
    assert "nginx" not in english.unknown and english.checked == english.translated, english


def test_a_word_missing_only_from_the_translations_refuses_less() -> None:
    """An English question on Chinese paragraphs whose one word of six the dictionary's first
    Chinese words for it miss ("season": 赛季 is its fifth) is judged on its margin, as a question
    with every word known is; the same word missing from an English library refuses it unless a
    passage is very close. Half the words missing refuses it either way."""
    everyday = {Script.CJK: 0.80}
    best = {Script.CJK: 0.80 + MARGIN[False] + 0.005}
    sizes = {Script.CJK: CROSS_REFERENCE_PASSAGES}
    one_of_six = Vocabulary(6, ("season",), FULL_STRENGTH_TERMS, translated=6)
    assert unknown_share_base(1.0) == UNKNOWN_SHARE_TRANSLATED == MOSTLY_UNKNOWN
    assert relevant([], best, everyday, Script.LATIN, one_of_six, sizes)
    as_written = Vocabulary(6, ("season",), FULL_STRENGTH_TERMS)
    assert not relevant([], best, everyday, Script.LATIN, as_written, sizes)
    three_of_six = Vocabulary(6, ("season", "panthers", "sacks"), FULL_STRENGTH_TERMS, translated=6)
    assert not relevant([], best, everyday, Script.LATIN, three_of_six, sizes)
    # A Chinese question mixing in one English word: the share needed moves by one word's worth.
    assert unknown_share_base(1 / 6) == UNKNOWN_SHARE + (UNKNOWN_SHARE_TRANSLATED - UNKNOWN_SHARE) / 6


def test_small_libraries_need_more_missing_words_to_refuse() -> None:
    assert unknown_share_needed(vocabulary_strength(FULL_STRENGTH_TERMS)) == UNKNOWN_SHARE
    # A few pages: only a question nearly none of whose words the library knows.
    assert unknown_share_needed(vocabulary_strength(2_000)) == NEARLY_ALL_UNKNOWN
    assert UNKNOWN_SHARE < unknown_share_needed(vocabulary_strength(20_000)) <= NEARLY_ALL_UNKNOWN


def test_the_share_needed_is_plain_arithmetic_over_a_column_of_strengths() -> None:
    """``bench/calibrate_relevance.py`` replays the decision on whole columns of recorded signals."""
    strengths = np.array([0.0, 0.5, 1.0])
    column = unknown_share_needed(strengths)
    assert list(column) == [unknown_share_needed(float(s)) for s in strengths]
    assert column[0] == NEARLY_ALL_UNKNOWN and column[-1] == UNKNOWN_SHARE


def test_however_small_the_library_a_question_about_other_things_is_refused() -> None:
    """A few pages lack many words of a question they answer, but not three of every four: "how to
    remove red wine stains from a carpet" was answered by a pump bulletin whose best passage stood
    out of everyday text by the small-library margin. A code the library has still answers."""
    everyday = {Script.LATIN: 0.80}
    best = {Script.LATIN: 0.80 + MARGIN_ALONE[True] + 0.03}
    tiny = 1_800
    four_of_five = Vocabulary(5, ("remove", "wine", "stains", "carpet"), tiny)
    two_of_four = Vocabulary(4, ("grounded", "shield"), tiny)
    with_code = Vocabulary(4, ("overheat", "shutdown", "cabinet"), tiny, known_code=True)
    assert not relevant([], best, everyday, Script.LATIN, four_of_five, {})
    assert relevant([], best, everyday, Script.LATIN, two_of_four, {})
    assert relevant([], best, everyday, Script.LATIN, with_code, {})


def test_a_chinese_word_is_known_through_a_dictionary_synonym_sharing_a_character(tmp_path: Path) -> None:
    """片子 and 影片 are both "film": a question saying 片子 about a library that says 影片 is not
    asking about something the library never mentions. 作罢 is also glossed "drop", like 上门 and
    小滴, but shares no character with them: those do not count."""
    (tmp_path / "docs").mkdir()
    text = "影片目录\n\n这部影片讲述了上门维修的故事。\n"
    (tmp_path / "docs" / "films.txt").write_text(text, encoding="utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([tmp_path / "docs"]).ok
        assert "片子" not in words_of(kb, "这个片子讲的是什么？").unknown
        assert "作罢" in words_of(kb, "为什么作罢？").unknown


def test_margins_rise_where_the_unknown_word_rule_fades() -> None:
    for same in (True, False):
        assert margin_needed(same, vocabulary_strength(FULL_STRENGTH_TERMS)) == MARGIN[same]
        assert margin_needed(same, vocabulary_strength(2_000)) == MARGIN_ALONE[same]
        assert MARGIN[same] <= margin_needed(same, vocabulary_strength(20_000)) <= MARGIN_ALONE[same]


def test_a_large_library_must_stand_out_of_everyday_text_in_the_questions_language() -> None:
    """Every word of an everyday question is known to an encyclopedia, so only the margin over
    everyday text can refuse it: a best passage barely above the closest everyday sentence is not
    enough, one clearly above it is."""
    everyday = {Script.CJK: 0.85, Script.LATIN: 0.80}
    known = Vocabulary(5, (), FULL_STRENGTH_TERMS)
    barely, clearly = 0.85 + MARGIN[True] / 2, 0.85 + MARGIN[True] + 0.005
    assert MARGIN[True] > 0
    assert not relevant([], {Script.CJK: barely}, everyday, Script.CJK, known, {})
    assert relevant([], {Script.CJK: clearly}, everyday, Script.CJK, known, {})


def test_a_smaller_pool_in_the_other_language_needs_a_smaller_margin() -> None:
    """The best of 240 encyclopedia paragraphs is the maximum of fewer draws than the best of
    8,409 abstracts: a Chinese question whose best English paragraph stands 0.045 above everyday
    English is answered by the small library and refused by the large one, and a library of a few
    pages, where the unknown-word rule has faded, still asks the small-library margin."""
    assert (
        cross_margin(CROSS_REFERENCE_PASSAGES) == cross_margin(10 * CROSS_REFERENCE_PASSAGES) == MARGIN[False]
    )
    assert CROSS_FLOOR <= cross_margin(600) < cross_margin(3_000) < MARGIN[False]
    assert cross_margin(10) == CROSS_FLOOR
    everyday = {Script.LATIN: 0.75}
    best = {Script.LATIN: 0.75 + 0.045}
    known = Vocabulary(6, (), FULL_STRENGTH_TERMS)
    assert relevant([], best, everyday, Script.CJK, known, {Script.LATIN: 250})
    assert not relevant([], best, everyday, Script.CJK, known, {Script.LATIN: 10_000})
    few_pages = Vocabulary(6, (), 2_000)
    assert not relevant([], best, everyday, Script.CJK, few_pages, {Script.LATIN: 250})
    assert relevant(
        [], {Script.LATIN: 0.75 + MARGIN_ALONE[False]}, everyday, Script.CJK, few_pages, {Script.LATIN: 250}
    )


def test_a_passage_very_close_in_meaning_excuses_one_unknown_word_not_most_of_them() -> None:
    """A claim about "tunica adventitia", a term the library spells otherwise, is answered by a
    passage very close to it; "train a neural network in PyTorch", asked of a manual that only
    knows "network", is not, however close its best passage comes."""
    everyday = {Script.LATIN: 0.80}
    best = {Script.LATIN: 0.80 + CLOSE[True] + 0.01}
    one_of_six = Vocabulary(6, ("adventitia",), FULL_STRENGTH_TERMS)
    three_of_four = Vocabulary(4, ("train", "neural", "pytorch"), FULL_STRENGTH_TERMS)
    assert one_of_six.unknown_share < MOSTLY_UNKNOWN <= three_of_four.unknown_share
    assert relevant([], best, everyday, Script.LATIN, one_of_six, {})
    assert not relevant([], best, everyday, Script.LATIN, three_of_four, {})


def passages_of(kb: KnowledgeBase, query: str, texts: list[str]) -> Vocabulary:
    with kb.engine.connect() as conn:
        return vocabulary(
            term_counter(conn, None), query, LibraryProfile(DocumentScripts()).of(conn), texts=texts
        )


def test_a_passage_holding_every_word_in_the_other_language_is_found_whole(
    english_library: KnowledgeBase,
) -> None:
    """What a passage covering all keywords is to a question in the passage's own language: 复位
    ("to reset") and 控制器 ("controller") are both in the manual's sentence on resetting."""
    reset = MANUAL.split(". ")[1]
    assert passages_of(english_library, "怎么复位控制器？", [MANUAL.split(". ")[2], reset]).held_whole
    assert not passages_of(english_library, "怎么复位控制器？", [MANUAL.split(". ")[2]]).held_whole
    # In the question's own language, covering the keywords is what counts (``keyword_coverage``).
    assert not passages_of(english_library, "怎么复位控制器？", ["控制器复位：按住 RESET 键"]).held_whole


def test_only_an_exact_translation_holds_a_word(english_library: KnowledgeBase) -> None:
    """世界杯 is glossed "World Cup": a passage that says "world" does not hold it, as one that says
    "cup" does not hold "World Cup" in English."""
    assert not passages_of(english_library, "世界杯", ["Around the world in eighty days."]).held_whole


def test_a_question_the_dictionary_cannot_read_is_not_found_whole(english_library: KnowledgeBase) -> None:
    """上海 and 杭州 are not dictionary words (their glosses are long): a passage that holds the
    words around them ("hours") says nothing about whether it answers a question about them."""
    words = passages_of(english_library, "从上海到杭州要多少小时", ["Lubricated every 500 hours."])
    assert words.unknown == () and not words.held_whole


def test_a_character_read_by_a_gloss_the_passage_holds_was_read(english_library: KnowledgeBase) -> None:
    """过晚 ("too late") is no dictionary word, and two characters in a row left over may be a name
    (上海). A passage that says "late", one of 晚's own glosses, shows the question was read: 过
    alone is one character left over, as a particle would be."""
    late = "Lubricated too late, the hydraulic pump wears out."
    assert passages_of(english_library, "润滑过晚", [late]).held_whole
    lubricated = MANUAL.split(". ")[2]
    assert not passages_of(english_library, "润滑过晚", [lubricated]).held_whole


def test_an_english_question_is_held_whole_by_the_exact_chinese_words(chinese_library: KnowledgeBase) -> None:
    """输入 is "input" exactly, as "input" is 输入; 短路 is the two-word name "short circuit". The
    reverse of a Chinese question on an English manual: the passage holds each word."""
    assert passages_of(chinese_library, "input channel short circuit", [CHINESE_MANUAL]).held_whole
    assert not passages_of(chinese_library, "input channel short circuit", ["断开传感器接线。"]).held_whole


def test_an_english_word_the_dictionary_cannot_translate_must_be_in_the_passage(
    chinese_library: KnowledgeBase,
) -> None:
    """Kovrak has no Chinese word: left out of the words looked up (it cannot be missing from a
    Chinese library), it may be what the question is about, as an unread Chinese name may be."""
    words = passages_of(chinese_library, "Kovrak input channel short circuit", [CHINESE_MANUAL])
    assert words.unknown == () and not words.held_whole
    named = CHINESE_MANUAL + " Kovrak"
    assert passages_of(chinese_library, "Kovrak input channel short circuit", [named]).held_whole


def test_a_count_of_times_is_not_a_word_the_passage_must_hold(english_library: KnowledgeBase) -> None:
    """多久…一次 asks "how often": 一次 is glossed "first; linear (math)", words no schedule says.
    Counted as a word, it kept the lubrication sentence from holding the question whole."""
    lubricated = MANUAL.split(". ")[2]
    words = passages_of(english_library, "多久润滑一次？", [lubricated])
    assert words.checked == 1 and words.unknown == () and words.held_whole, words


FUSE = "更换保险丝前必须断开 24 V 电源。"


@pytest.fixture
def fuse_library(tmp_path: Path) -> Iterator[KnowledgeBase]:
    yield from one_document(tmp_path, "故障排除", FUSE)


def test_a_passage_holding_a_later_exact_sense_holds_the_word(fuse_library: KnowledgeBase) -> None:
    """保险丝 is "fuse" exactly, but only the dictionary's sixth Chinese word for it, after 导火索
    ("fuse" of a bomb): by its first words "fuse" is missing from a guide that says 保险丝, yet the
    passage on replacing the fuse holds the question whole, and then nothing is missing."""
    words = passages_of(fuse_library, "how do I replace the fuse", [FUSE])
    assert words.held_whole and words.unknown == (), words
    assert passages_of(fuse_library, "how do I replace the fuse", ["断开 24 V 电源。"]).unknown == ("fuse",)


def test_a_passage_in_the_other_language_covers_the_words_it_holds_by_translation(
    english_library: KnowledgeBase,
) -> None:
    """液压 ("hydraulic") and 润滑 ("lubricate") are both in the manual's sentence on lubrication:
    keyword coverage, counted in the question's words, whichever language holds them. The same
    words in a Chinese passage are the Chinese question's own keywords, which ``keyword_coverage``
    already judges."""
    lubricated = MANUAL.split(". ")[2]
    assert passages_of(english_library, "液压润滑", [lubricated]).translated_coverage == pytest.approx(1.0)
    assert passages_of(english_library, "液压润滑", ["液压泵每500小时润滑一次。"]).translated_coverage == 0.0
    assert passages_of(english_library, "液压润滑", [MANUAL.split(". ")[1]]).translated_coverage == 0.0
    # Only the first result counts: lower down, a passage holding a question's everyday words is
    # found by chance more often than one that answers it.
    second = passages_of(english_library, "液压润滑", [MANUAL.split(". ")[1], lubricated])
    assert second.translated_coverage == 0.0


def test_unread_chinese_is_a_word_the_passage_lacks(english_library: KnowledgeBase) -> None:
    """上海 and 杭州 are no dictionary words: a passage that holds the rest of the question covers
    less of it, not all."""
    lubricated = MANUAL.split(". ")[2]
    plain = passages_of(english_library, "液压润滑", [lubricated]).translated_coverage
    named = passages_of(english_library, "上海杭州液压润滑", [lubricated]).translated_coverage
    assert 0.0 < named < plain, (named, plain)


def test_an_english_word_the_dictionary_cannot_translate_is_covered_only_as_written(
    chinese_library: KnowledgeBase,
) -> None:
    """Kovrak has no Chinese word: a Chinese passage holding the rest of the question covers less
    of it, unless it writes Kovrak too."""
    question = "Kovrak input channel short circuit"
    english = passages_of(chinese_library, "input channel short circuit", [CHINESE_MANUAL])
    kovrak = passages_of(chinese_library, question, [CHINESE_MANUAL])
    assert 0.0 < kovrak.translated_coverage < english.translated_coverage == pytest.approx(1.0)
    written = passages_of(chinese_library, question, [CHINESE_MANUAL + " Kovrak"])
    assert written.translated_coverage == pytest.approx(1.0)


def test_covering_half_the_question_through_the_dictionary_answers_it() -> None:
    """The keyword-coverage floor, for a passage in the other language: answered however little
    its vector stands out of everyday text, as a passage covering half the question's own
    keywords is, when the library knows every word of the question."""
    everyday = {Script.LATIN: 0.80}
    best = {Script.LATIN: 0.80}
    covering = Vocabulary(4, (), FULL_STRENGTH_TERMS, translated_coverage=COVERAGE_FLOOR)
    short = Vocabulary(4, (), FULL_STRENGTH_TERMS, translated_coverage=COVERAGE_FLOOR - 0.01)
    sizes = {Script.LATIN: CROSS_REFERENCE_PASSAGES}
    assert relevant([], best, everyday, Script.CJK, covering, sizes)
    assert not relevant([], best, everyday, Script.CJK, short, sizes)
    # "What documents do I need for a visa to Japan?" asked of a Chinese manual that says 需要 and
    # 日本: a word the library never mentions may be what the question is about.
    visa = Vocabulary(4, ("visa",), FULL_STRENGTH_TERMS, translated_coverage=0.9)
    chinese = {Script.CJK: 0.80}
    assert not relevant([], chinese, chinese, Script.LATIN, visa, {Script.CJK: CROSS_REFERENCE_PASSAGES})
