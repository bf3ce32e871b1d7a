"""Where a result's matched words are on a PDF page, in PDF coordinates.

Every occurrence of a matched word on the page is found as a whole word, the way the result's
text highlights it: "x" is not marked inside "extent" or "xrange", nor "range" inside "yrange"
(``page.search_for`` finds any substring). Chinese and Japanese words are found wherever they
stand, since nothing separates them from their neighbours. When the passage's first and last
lines can be found too, only occurrences between them are kept, so the marks sit on the cited
passage rather than on every mention of "pump" on the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kbapp.library.pdf import pymupdf


_ANCHOR_WORDS = 5
_ANCHOR_CJK_CHARS = 8
_BAND_SLACK = 3.0  # points above and below the anchors
# Kana, Han and Hangul (the window imports only the contract and the façade, not ``kbapp.text``).
_CJK_CHARS = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RE = re.compile(f"[{_CJK_CHARS}]")
_WORD_CHAR = f"[^\\W_{_CJK_CHARS}]"  # a letter or digit of a spaced script: a word goes on through it
_WORD_CHAR_RE = re.compile(_WORD_CHAR)


def _anchor(line: str, from_end: bool) -> str:
    """A short, searchable piece of a line (search_for matches within a line of the page)."""
    line = " ".join(line.split())
    if _CJK_RE.search(line):
        return line[-_ANCHOR_CJK_CHARS:] if from_end else line[:_ANCHOR_CJK_CHARS]
    words = line.split(" ")
    return " ".join(words[-_ANCHOR_WORDS:] if from_end else words[:_ANCHOR_WORDS])


def passage_band(page: pymupdf.Page, passage: str) -> tuple[float, float] | None:
    """``(top, bottom)`` of the passage on the page, or None if its ends cannot be found."""
    lines = [ln for ln in passage.splitlines() if len(ln.strip()) > 2]
    if not lines:
        return None
    first = page.search_for(_anchor(lines[0], from_end=False))
    last = page.search_for(_anchor(lines[-1], from_end=True))
    if not first or not last:
        return None
    top = min(r.y0 for r in first)
    bottom = max((r.y1 for r in last if r.y1 >= top), default=None)
    if bottom is None:
        return None
    return top - _BAND_SLACK, bottom + _BAND_SLACK


_Line = tuple[str, list[tuple[float, float, float, float]]]  # a line's text and each character's box


def _page_lines(page: pymupdf.Page) -> list[_Line]:
    """The page's text lines, each with the box of every character (ligatures expanded, as the
    library read the page)."""
    from kbapp.library.pdf import pymupdf

    flags = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    lines: list[_Line] = []
    for block in page.get_text("rawdict", flags=flags)["blocks"]:  # type: ignore[no-untyped-call]
        for line in block.get("lines", ()):
            chars = [char for span in line["spans"] for char in span["chars"]]
            lines.append(("".join(char["c"] for char in chars), [char["bbox"] for char in chars]))
    return lines


@lru_cache(maxsize=256)
def _occurrence_re(term: str) -> re.Pattern[str]:
    """``term`` as a whole word, in any case; a space in it stands for any run of spaces."""
    body = r"\s+".join(re.escape(part) for part in term.split())
    before = f"(?<!{_WORD_CHAR})" if _WORD_CHAR_RE.match(term[0]) else ""
    after = f"(?!{_WORD_CHAR})" if _WORD_CHAR_RE.match(term[-1]) else ""
    return re.compile(before + body + after, re.IGNORECASE)


def term_rects(page: pymupdf.Page, terms: Iterable[str], passage: str | None = None) -> list[pymupdf.Rect]:
    """Rectangles of ``terms`` on ``page``; restricted to the passage when it can be located."""
    from kbapp.library.pdf import pymupdf

    wanted = [t.strip() for t in {t.casefold(): t for t in terms if t.strip()}.values()]
    if not wanted:
        return []
    rects: list[pymupdf.Rect] = []
    seen: set[tuple[int, int, int, int]] = set()
    for text, boxes in _page_lines(page):
        for term in wanted:
            for match in _occurrence_re(term).finditer(text):
                rect = pymupdf.Rect(boxes[match.start()])  # type: ignore[no-untyped-call]
                for box in boxes[match.start() + 1 : match.end()]:
                    rect |= box
                key = (round(rect.x0), round(rect.y0), round(rect.x1), round(rect.y1))
                if key not in seen:
                    seen.add(key)
                    rects.append(rect)
    band = passage_band(page, passage) if passage else None
    if band is not None:
        inside = [r for r in rects if r.y1 >= band[0] and r.y0 <= band[1]]
        if inside:
            return inside
    return rects
