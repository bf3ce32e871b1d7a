"""Headings told from OCR'd line geometry alone: size against the page's body lines, numbering,
margins, table-of-contents rows. Lines are built directly (no model), at 150 dpi proportions."""

from __future__ import annotations

from kbapp.ocr.detect import reading_order
from kbapp.ocr.engine import Line, OcrPage
from kbapp.ocr.geometry import Box
from kbapp.ocr.headings import heading_levels

BODY = [
    "The interrupt vector table lists one entry for each source of interrupts in the chip.",
    "Keep the service routine short and save every register that it changes on entry.",
    "Shared variables must be declared volatile so that the compiler rereads them each time.",
]


def _line(text: str, y: float, *, em: float = 10.0, height: float = 26.0, x: float = 100.0) -> Line:
    """A line as the detector boxes it: ``em`` pixels per em of text plus its unclip margin."""
    ems = sum(1.0 if "\u4e00" <= char <= "\u9fff" else 0.5 for char in text)
    width = ems * em + 1.6 / 2.6 * height
    return Line(text, Box(x, y, x + width, y + height), 0.99, ())


def _page(*heads: Line, body_from: float = 600.0) -> OcrPage:
    body = [_line(text, body_from + 40 * i) for i, text in enumerate(BODY * 2)]
    return OcrPage(1275, 1650, [*heads, *body])


def test_a_larger_numbered_line_is_a_heading_at_its_numbers_depth() -> None:
    page = _page(_line("3.8 Interrupt Service Routines", 300, em=14, height=34))
    assert heading_levels(page) == {0: 2}


def test_a_bold_body_size_subsection_is_told_by_its_width() -> None:
    page = _page(_line("3.4.7 填空题", 300, em=10.6, height=27), _line("3.4 Options", 400, em=9.6))
    assert heading_levels(page) == {0: 3}


def test_a_number_boxed_apart_from_its_title_makes_one_heading() -> None:
    number = _line("3.9", 302, em=14, height=30, x=100)
    title = _line("Enabling and Disabling Interrupts", 298, em=14, height=36, x=180)
    assert heading_levels(_page(number, title)) == {0: 2, 1: 2}


def test_chapter_titles_are_level_one_with_or_without_a_number() -> None:
    page = _page(_line("Chapter 3", 200, em=20, height=44), _line("Debugging", 300, em=30, height=60))
    assert heading_levels(page) == {0: 1, 1: 1}
    assert heading_levels(_page(_line("第3章 图像设置", 300, em=16, height=40))) == {0: 1}


def test_running_headers_contents_entries_and_code_are_not_headings() -> None:
    running = _line("CHAPTER 3. USING SDCC", 40, em=16, height=26)
    contents = _line("3.3.10 SM83 Options", 300, em=12, height=30)
    page_number = _line("37", 300, em=12, height=30, x=1100)
    leaders = _line("3.4 Pragmas . . . . . . . . 61", 360, em=12, height=30)
    code = _line("a,(-gint + 1)", 420, em=30, height=60)
    sentence = _line("4.2 Set it to 24 V.", 480, em=14, height=34)
    assert heading_levels(_page(running, contents, page_number, leaders, code, sentence)) == {}


def test_a_lone_number_needs_a_taller_line_not_just_a_wider_one() -> None:
    """A listing's "17. mul += i * 3;" in wider monospace, or a question "2．设f(x)是偶函数" set
    wider, is a numbered line but not a heading; "2 Installing" set large is one."""
    listing = _line("17. mul += i * 3 /* this multiplication remains */", 300, em=12, height=26)
    question = _line("2．设f(x)是定义域为R的偶函数", 360, em=12, height=27)
    chapter = _line("2 Installing", 420, em=16, height=38)
    assert heading_levels(_page(listing, question, chapter)) == {2: 1}


def test_a_page_without_enough_text_has_no_headings() -> None:
    assert heading_levels(OcrPage(1275, 1650, [_line("3.8 Interrupt Service Routines", 300, em=14)])) == {}


def test_boxes_on_one_row_read_left_to_right() -> None:
    tall_title = (Box(180, 296, 700, 336), 0.9)
    number = (Box(100, 300, 150, 330), 0.9)
    below = (Box(100, 360, 700, 390), 0.9)
    assert reading_order([below, tall_title, number]) == [number, tall_title, below]
