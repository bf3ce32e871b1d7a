"""Row HTML, snippets, citations and passage location: pure functions, no window."""

from __future__ import annotations

import pymupdf

from kbapp.gui.formatting import (
    marked_html,
    passage_with_citation,
    relevance,
    results_as_context,
    row_html,
    why_tooltip,
)
from kbapp.gui.passages import locate
from kbapp.gui.preview.pdf_marks import term_rects
from kbapp.gui.preview.text_view import Utf16Offsets
from tests.search_results import result


def test_markup_in_documents_is_escaped_and_only_highlights_are_marked() -> None:
    text = "Use <b>bold</b> and <script>alert(1)</script> & exposure"
    start = text.index("exposure")
    html = marked_html(text, [(start, start + 8)])
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "&lt;script&gt;" in html and "&amp;" in html
    assert html.count("<span") == 1 and ">exposure</span>" in html
    row = row_html(result(text, [(start, start + 8)]), "#777777")
    assert "Camera &lt;XK-200&gt;" in row and "<script>" not in row


def test_snippet_is_cjk_aware_keeps_words_whole_and_opens_at_the_focus() -> None:
    zh = "前言" * 100 + "曝光时间" + "说明" * 200
    at = zh.index("曝光时间")
    start, end = result(zh, [(at, at + 4)], focus=at).snippet_span(60, 260)
    # CJK counts double: about 30 characters of lead, about 130 in all.
    assert 25 <= at - start <= 32 and 120 <= end - start <= 135
    en = "word " * 40 + "exposure" + " tail" * 100
    at = en.index("exposure")
    start, end = result(en, [(at, at + 8)], focus=at).snippet_span(60, 260)
    assert not (en[start - 1].isalnum() and en[start].isalnum())  # no half word at the start
    assert not (en[end - 1].isalnum() and en[end].isalnum())  # nor at the end
    astral = "𠀀" * 300 + "E5021"
    at = astral.index("E5021")
    start, end = result(astral, [(at, at + 5)], focus=at).snippet_span(60, 260)
    assert astral[start:end].endswith("E5021")  # code points: a surrogate pair is never split


def test_citations_and_context_blocks() -> None:
    first = result("Raise the exposure time.\n", [(10, 18)])
    second = result(
        "Error E5021.", [(6, 11)], citation=2, rank=2, path="/m/notes.md", page=None, page_end=None, score=1.0
    )
    assert passage_with_citation(first) == "[1] Raise the exposure time. (source: camera.pdf, p. 3)"
    assert passage_with_citation(second) == "[2] Error E5021. (source: notes.md)"
    context = results_as_context("exposure?", [first, second])
    lines = context.split("\n\n")
    assert "ignore any passage" in lines[0] and lines[1] == "Question: exposure?"
    assert lines[2:] == [passage_with_citation(first), passage_with_citation(second) + "\n"]
    assert relevance([first, second]) == [1.0, 0.5]
    tip = why_tooltip(first)
    assert "Matched words: exposure" in tip and "rank 1" in tip and "Semantic" not in tip
    assert "Semantic match: rank 4 (similarity 0.87)" in why_tooltip(
        result("x", [], why={"dense_rank": 4, "similarity": 0.8712})
    )
    # Hybrid search scores every candidate with both retrievers, also past either one's cut.
    tip = why_tooltip(result("x", [], why={"dense_rank": 2, "similarity": 0.9, "bm25": 1.25}))
    assert "Keyword match: not in the top 100 (BM25 1.250)" in tip
    tip = why_tooltip(result("x", [], why={"lexical_rank": 3, "bm25": 4.0, "similarity": 0.7123}))
    assert "Semantic match: not in the top 100 (similarity 0.71)" in tip
    assert "read in English" not in tip
    tip = why_tooltip(result("x", [], why={"dense_rank": 1, "similarity": 0.8, "english_reading": 0.05}))
    assert "Semantic match also with the question read in English" in tip
    assert "dictionary" not in tip.replace("(dictionary)", "")
    translated = {
        "translated_terms": {"密封": ["seal"], "更换": ["Replace", "replacement"]},
        "lexical_rank": 1,
    }
    tip = why_tooltip(result("x", [], why=translated))
    assert "Found through the dictionary: 密封 → seal; 更换 → Replace, replacement" in tip
    # ... and under the snippet, so a reader of the other language sees it without hovering.
    row = row_html(result("x", [], why=translated), "#777")
    assert "By dictionary: 密封 → seal; 更换 → Replace, replacement" in row
    assert "By dictionary" not in row_html(result("x", [], why={"lexical_rank": 1}), "#777")


def test_locate_recovers_page_and_table_header_prefix() -> None:
    pages: list[tuple[int | None, str]] = [(1, "intro"), (2, "Col A | Col B\nx | 1\ny | 2"), (3, "end")]
    body = "y | 2"
    start = pages[1][1].index(body)
    text = "Col A | Col B\n" + body  # a table piece with its header repeated in front
    found = locate(
        pages,
        result(
            text,
            [(text.index("y"), text.index("y") + 1)],
            page=2,
            page_end=2,
            page_index=1,
            page_end_index=1,
            char_start=start,
            char_end=start + len(body),
        ),
    )
    assert found is not None
    assert found.pieces == [(1, start, start + len(body))]
    assert found.highlights == [(1, start, start + 1)]
    assert found.focus == (1, start)  # a focus in the repeated header opens at the passage


def test_locate_spans_pages() -> None:
    pages: list[tuple[int | None, str]] = [(1, "aaa start of it"), (2, "rest here"), (3, "zzz")]
    text = "start of it\nrest"
    hit = text.index("rest")
    found = locate(
        pages,
        result(
            text,
            [(hit, hit + 4)],
            page=2,
            page_end=2,
            page_index=0,
            page_end_index=1,
            char_start=4,
            char_end=4,
            focus=hit,
        ),
    )
    assert found is not None
    assert found.pieces == [(0, 4, 15), (1, 0, 4)]
    assert found.highlights == [(1, 0, 4)]
    assert found.focus == (1, 0)
    assert locate(pages, result("changed since", [], page=1, page_end=1, char_start=0, char_end=5)) is None
    assert (
        locate(pages, result("rest", [], page=9, page_index=8, page_end_index=8, char_start=0, char_end=4))
        is None
    )


def test_utf16_offsets_count_astral_characters_twice() -> None:
    text = "🔧a𠀀b"
    to_qt = Utf16Offsets(text)
    assert [to_qt(i) for i in range(5)] == [0, 2, 3, 5, 6]


def test_pdf_marks_stay_on_the_passage() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    lines = [
        "The coupling guard is yellow.",
        "",
        "",
        "Check the coupling alignment now.",
        "Then tighten the coupling screws.",
        "",
        "",
        "A spare coupling is in the box.",
    ]
    for i, line in enumerate(lines):
        page.insert_text((72, 72 + 20 * i), line, fontsize=11)
    passage = "Check the coupling alignment now.\nThen tighten the coupling screws."
    everywhere = term_rects(page, ["coupling"])
    marked = term_rects(page, ["Coupling", "coupling"], passage)
    assert len(everywhere) == 4
    assert len(marked) == 2 and all(110 < r.y0 < 160 for r in marked)  # lines 4 and 5 only
    assert term_rects(page, ["coupling"], "text that is not on this page") == everywhere


def test_pdf_marks_cover_whole_words_only() -> None:
    """The preview marks what the result's text highlights: the word "x", not every x of the page."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text(
        (72, 72), "Executing the example sets xrange of sin(x); the x axis is next.", fontsize=11
    )
    page.insert_text((72, 100), "用逗号分隔的数据文件", fontname="china-s", fontsize=11)
    whole_x = term_rects(page, ["x"])
    assert len(whole_x) == 2  # sin(x) and "x axis", not Executing, example, xrange or next
    assert all(r.width < 8 for r in whole_x)
    assert term_rects(page, ["range"]) == []  # only inside "xrange"
    assert len(term_rects(page, ["XRANGE"])) == 1
    assert len(term_rects(page, ["x axis"])) == 1
    assert len(term_rects(page, ["分隔"])) == 1  # Chinese words have no spaces around them
