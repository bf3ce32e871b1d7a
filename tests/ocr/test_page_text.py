"""An OCR'd contents page becomes text the pointer rule recognises, as the same page's text layer
does, and every line's stored box still points at its own text. Lines are built directly (no
model), at 150 dpi proportions."""

from __future__ import annotations

import json

from kbapp.chunking import chunk_document
from kbapp.chunking.estimate import estimate_tokens
from kbapp.ingest.document import BlockKind, ParsedDocument
from kbapp.ocr.engine import Line, OcrPage
from kbapp.ocr.geometry import Box
from kbapp.ocr.page_text import page_from_lines
from kbapp.search.pointers import is_pointer
from kbapp.text.numbering import chapter_label

ENTRIES = [
    ("3.4 Pragmas . . . . .", "61"),
    ("3.5 Library Routines", "66"),
    ("3.6 Memory Models", "70"),
    ("3.7 The PIC16 port . .", "80"),
    ("3.8 Interrupt Service Routines", "84"),
    ("3.9 Enabling and Disabling Interrupts", "88"),
]


def _line(text: str, x0: float, y: float) -> Line:
    width = 12.0 * len(text)
    return Line(
        text, Box(x0, y, x0 + width, y + 26), 0.99, tuple(x0 + 12.0 * i for i in range(len(text) + 1))
    )


def _row(title: str, number: str, y: float) -> list[Line]:
    return [_line(title, 100, y), _line(number, 1100, y + 2)]


def _contents() -> OcrPage:
    return OcrPage(
        1275, 1650, [line for row, entry in enumerate(ENTRIES) for line in _row(*entry, 200 + 40 * row)]
    )


def test_a_contents_entry_and_its_page_number_are_one_pointer_line() -> None:
    page, _ = page_from_lines(1, _contents())
    assert page.text.splitlines()[3] == "3.7 The PIC16 port … 80"
    assert is_pointer(page.text)


def test_a_two_column_contents_page_is_followed_down_each_column() -> None:
    """Read across, the rows give 2, 21, 3, 22, ...: each column's numbers rise on their own."""
    left = [("第1节 介绍", "2"), ("第2节 安装与更新", "3"), ("2.1 标准安装", "3"), ("2.2 手动安装", "3")]
    left += [("第3节 使用说明", "4"), ("3.1 基本用法", "4")]
    right = [("3.4.20 师生两版", "21"), ("3.4.21 图文排版", "22"), ("3.5 参数设置", "26")]
    right += [("3.5.1 风格设置", "26"), ("3.5.2 师生两版", "27"), ("3.5.5 密封线", "29")]
    lines = []
    for row, ((a, m), (b, n)) in enumerate(zip(left, right, strict=True)):
        y = 200 + 40 * row
        lines += [_line(a, 100, y), _line(m, 500, y), _line(b, 600, y), _line(n, 1100, y)]
    page, _ = page_from_lines(1, OcrPage(1275, 1650, lines))
    assert page.text.splitlines()[:2] == ["第1节 介绍 … 2", "3.4.20 师生两版 … 21"]
    assert is_pointer(page.text)


def test_a_listing_numbered_down_its_right_edge_stays_content() -> None:
    rows = [(f"00{2 * i:02X} E5*01 {i:02d}", str(60 + i)) for i in range(8)]
    lines = [line for row, (code, number) in enumerate(rows) for line in _row(code, number, 200 + 40 * row)]
    page, _ = page_from_lines(1, OcrPage(1275, 1650, lines))
    assert " … " not in page.text


def test_a_table_of_values_beside_their_labels_stays_content() -> None:
    """Values do not rise down the page as a contents listing's page numbers do."""
    rows = [
        ("Rated voltage", "24"),
        ("Rated current", "2"),
        ("Poles", "4"),
        ("Speed", "1450"),
        ("Frame", "90"),
    ]
    rows += [("Weight", "18"), ("Insulation class", "155")]
    lines = [line for row, (label, value) in enumerate(rows) for line in _row(label, value, 200 + 40 * row)]
    page, _ = page_from_lines(1, OcrPage(1275, 1650, lines))
    assert page.text.splitlines()[:2] == ["Rated voltage", "24"]
    assert not is_pointer(page.text)


def test_numbers_on_their_own_rows_stay_apart() -> None:
    body = OcrPage(
        1275, 1650, [_line("Table 3 lists the timer reload values", 100, 200), _line("61", 100, 240)]
    )
    page, _ = page_from_lines(1, body)
    assert page.text == "Table 3 lists the timer reload values\n61"
    assert not is_pointer(page.text)


def test_each_stored_box_points_at_its_line_in_the_joined_text() -> None:
    ocr = _contents()
    page, stored = page_from_lines(1, ocr)
    for (start, length, x0, *_), line in zip(json.loads(stored), ocr.lines, strict=True):
        assert page.text[start : start + length] == line.text.rstrip(" .")
        assert x0 == line.box.x0


def test_a_chapter_number_above_its_title_is_one_heading() -> None:
    """A chapter opening prints "Chapter 5" and, a line further down, "Debugging"; the text layer
    has one heading "Chapter 5 Debugging", and so must the scan's passages."""
    body = "The debugger reads the symbols the compiler writes next to the object file."
    lines = [
        Line("Chapter 5", Box(100, 200, 330, 244), 0.99, ()),
        Line("Debugging", Box(100, 300, 480, 360), 0.99, ()),
        *[Line(body, Box(100, 420 + 40 * i, 1100, 446 + 40 * i), 0.99, ()) for i in range(6)],
    ]
    page, _ = page_from_lines(1, OcrPage(1275, 1650, lines))
    [heading] = [b for b in page.blocks if b.kind is BlockKind.HEADING]
    assert (heading.level, page.text[heading.start : heading.end]) == (1, "Chapter 5\nDebugging")
    chunk = chunk_document(ParsedDocument("scan", "pdf", [page], 1), estimate_tokens)[0]
    assert chunk.heading == "Chapter 5 Debugging"
    assert not chapter_label("Chapter 5 Debugging") and chapter_label("第5章") and chapter_label("Appendix B")
