"""Which OCR'd lines are headings, and at what level.

A scan has no fonts and no outline, but its headings are set larger or bolder than the text.
Two measures of that survive OCR: the line box's height, and the width per character (an "em",
CJK characters counting one, others a half), each against the page's body lines. Box heights
vary with ascenders and descenders, so a body-size bold heading shows only in its width; running
headers in small capitals are wide too, but sit in the page's top margin. A line is a heading when

* it is short, has letters, is not a sentence or a table-of-contents entry, lies outside the top
  and bottom margins, and
* it starts with a section number ("3.8", "第3章", "Chapter 3") and is at least body height and
  somewhat wider or taller than the body; a lone "2" or "2." must be both (listings number their
  lines in a wider monospace font, exam questions are numbered); or it is much larger than the
  body without a number (a chapter title).

The detector often boxes a section number apart from its title ("3.9" and "Enabling and
Disabling Interrupts", 1 em apart on one row); such a pair counts as one numbered heading.
The level is the number's depth (``kbapp.text.numbering``: "3.8" is 2, "Chapter 3" and "第3章"
are 1); unnumbered headings are level 1. Without this every passage of a scanned manual would
lose the "Chapter 3 > 3.8 Interrupt Service Routines" that the same manual's text layer gives it,
and with it the words that say what the passage is about.

Constants fitted on the odd pages of both development manuals, scanned (``bench/bench_ocr.py``'s
image-only copies), against the headings their text layers give; reported on the even pages
(``bench/bench_ocr.py --library``): 124 of 179 English and 24 of 27 Chinese heading lines found,
with 10 and 2 other lines taken for headings. Most of those 10 are a chapter opening's "Chapter 5"
and "Debugging", which the text layer spells as one heading line; most English lines missed are
set at body size and weight (3.5.1.1 …), or are the running header in the top margin.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from kbapp.ocr.detect import UNCLIP_RATIO
from kbapp.ocr.engine import WIDE_CHARS, Line, OcrPage
from kbapp.text.numbering import SECTION, section_level

NUMBERED_WIDER = 1.1  # em width over the body's, for a numbered heading ...
SUBSECTION_WIDER = 1.03  # ... or one numbered like "3.4" or "3.4.7" ...
NUMBERED_TALLER = 1.2  # ... or box height over the body's
NUMBERED_MIN_HEIGHT = 0.95  # a numbered heading is not set smaller than the body
LARGE_WIDER = 2.5  # an unnumbered heading is this much wider ...
LARGE_TALLER = 1.6  # ... and this much taller than the body
MARGIN = 0.06  # of the page height: running headers and footers live above and below
_MIN_BODY_CHARS = 120  # a page with less text has no body size to compare against
_MIN_BODY_LINE_CHARS = 8  # shorter lines' widths are mostly the box's padding
_MAX_CHARS = 80
_BARE_SECTION = re.compile(r"^\d{1,2}(?:[.．]\d{1,2})*[.．]?$")
_BARE_NUMBER = re.compile(r"^\d+$")
# "2 Title", "2. Title": also a numbered list item, a listing's line number or a figure's label,
# so it must be both taller and wider than the body to be a heading.
_LONE_NUMBER = re.compile(r"^\d{1,2}[.．]?(?![.．]?\d)")
_MIN_LETTER_SHARE = 0.5  # of a title's characters after its number: code and figures have fewer
_LEADERS = re.compile(r"(?:\.\s?){4,}|…{2,}|·{4,}")
_PAGE_REFERENCE = re.compile(r"\s\d+$")
SENTENCE_END = (".", "。", ",", "，", ";", "；", ":", "：")
_WIDE = re.compile(f"[{WIDE_CHARS}]")


def heading_levels(page: OcrPage) -> dict[int, int]:
    """Index of each heading line in ``page.lines`` -> its level (1 = outermost)."""
    lines = page.lines
    body = _body(lines)
    if body is None:
        return {}
    body_height, body_em = body
    top, bottom = MARGIN * page.height, (1 - MARGIN) * page.height
    levels: dict[int, int] = {}
    for index, line in enumerate(lines):
        if index in levels or line.box.y1 < top or line.box.y0 > bottom:
            continue
        text = line.text.strip()
        title = index
        if _BARE_SECTION.match(text) and index + 1 < len(lines) and same_row(line, lines[index + 1]):
            title = index + 1
            text = f"{text} {lines[title].text.strip()}"
        if not _looks_like_heading(text) or _page_reference_beside(lines, title):
            continue
        taller = lines[title].box.height / body_height
        wider = _em(lines[title]) / body_em
        level = section_level(text)
        if level is None:
            if wider < LARGE_WIDER or taller < LARGE_TALLER:
                continue
        elif _LONE_NUMBER.match(text):
            if wider < NUMBERED_WIDER or taller < NUMBERED_TALLER:
                continue
        else:
            enough = SUBSECTION_WIDER if level > 1 else NUMBERED_WIDER
            if taller < NUMBERED_MIN_HEIGHT or (wider < enough and taller < NUMBERED_TALLER):
                continue
        for member in range(index, title + 1):
            levels[member] = level or 1
    return levels


def _body(lines: Sequence[Line]) -> tuple[float, float] | None:
    """The height and em width carrying most characters (weighted medians), if the page has
    enough text to tell."""
    sized = [(line, _chars(line)) for line in lines]
    if sum(chars for _, chars in sized) < _MIN_BODY_CHARS:
        return None
    height = _weighted_median([(line.box.height, chars) for line, chars in sized])
    em = _weighted_median([(_em(line), chars) for line, chars in sized if chars >= _MIN_BODY_LINE_CHARS])
    return (height, em) if height > 0 and em > 0 else None


def _chars(line: Line) -> int:
    return len(line.text) - line.text.count(" ")


def _em(line: Line) -> float:
    """Width per em of the line's text, without the margin the detector adds on either side
    (``detect.UNCLIP_RATIO`` / 2 of the text's height, the text being 1 / (1 + ratio) of the box's)."""
    ems = sum(1.0 if _WIDE.match(char) else 0.5 for char in line.text.strip())
    margin = UNCLIP_RATIO / (1 + UNCLIP_RATIO) * line.box.height
    return max(line.box.width - margin, 0.0) / ems if ems else 0.0


def _weighted_median(values: list[tuple[float, int]]) -> float:
    total = sum(weight for _, weight in values)
    seen = 0
    for value, weight in sorted(values):
        seen += weight
        if seen * 2 >= total:
            return value
    return 0.0


def same_row(left: Line, right: Line) -> bool:
    """``right`` follows ``left`` on its row: further along, and overlapping it vertically by half a line."""
    overlap = min(left.box.y1, right.box.y1) - max(left.box.y0, right.box.y0)
    return right.box.x0 > left.box.x1 and overlap > min(left.box.height, right.box.height) / 2


def page_number_of(entry: Line, other: Line) -> bool:
    """``other`` is a bare number further along ``entry``'s row: a table-of-contents entry's page,
    which the detector boxes apart from its title."""
    return bool(_BARE_NUMBER.match(other.text.strip())) and same_row(entry, other)


def _page_reference_beside(lines: Sequence[Line], index: int) -> bool:
    line = lines[index]
    return any(page_number_of(line, other) for other in lines[max(0, index - 3) : index + 4])


def mostly_letters(text: str) -> bool:
    """At least half letters after its section number, as a title is; code and figures have fewer."""
    number = SECTION.match(text)
    title = [char for char in text[number.end() if number else 0 :] if not char.isspace()]
    letters = sum(1 for char in title if unicodedata.category(char).startswith("L"))
    return letters > 0 and letters >= _MIN_LETTER_SHARE * len(title)


def _looks_like_heading(text: str) -> bool:
    number = SECTION.match(text)
    return (
        0 < len(text) <= _MAX_CHARS
        and mostly_letters(text)
        and not text.endswith(SENTENCE_END)
        and not _LEADERS.search(text)
        and not (number and _PAGE_REFERENCE.search(text))
    )
