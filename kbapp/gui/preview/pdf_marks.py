"""Where a result's matched words are on a PDF page, in PDF coordinates.

``page.search_for`` finds every occurrence of a word on the page; when the passage's first
and last lines can be found too, only occurrences between them are kept, so the marks sit
on the cited passage rather than on every mention of "pump" on the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kbapp.library.pdf import pymupdf


_ANCHOR_WORDS = 5
_ANCHOR_CJK_CHARS = 8
_BAND_SLACK = 3.0  # points above and below the anchors
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")


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


def term_rects(page: pymupdf.Page, terms: Iterable[str], passage: str | None = None) -> list[pymupdf.Rect]:
    """Rectangles of ``terms`` on ``page``; restricted to the passage when it can be located."""
    rects: list[pymupdf.Rect] = []
    seen: set[tuple[int, int, int, int]] = set()
    for term in {t.casefold(): t for t in terms if t.strip()}.values():
        for rect in page.search_for(term):
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
