"""Where a result sits in its document's pages, for the preview to highlight it.

A ``SearchResult`` carries the indexes of the pages its passage starts and ends on and the
offsets into their text; by the chunker's contract its text is a repeated table header (if any)
followed by the page text between those offsets. The span is checked against
``KnowledgeBase.pages``: a document re-imported since the search no longer matches, and then the
preview shows the page without a passage mark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kbapp.contract import SearchResult


@dataclass(frozen=True, slots=True)
class PassageSpan:
    """The passage as ``(page index, start, end)`` pieces, its highlights the same way, and where
    it matches the question best as ``(page index, offset)``: a passage merged from several
    chunks can be longer than the preview, and should open there, not at its first line."""

    pieces: list[tuple[int, int, int]]
    highlights: list[tuple[int, int, int]]
    focus: tuple[int, int]

    @property
    def first_page_index(self) -> int:
        return self.pieces[0][0]


def _joined(pages: Sequence[tuple[int | None, str]], first: int, start: int, last: int, end: int) -> str:
    if first == last:
        return pages[first][1][start:end]
    middle = [pages[i][1] for i in range(first + 1, last)]
    return "\n".join([pages[first][1][start:], *middle, pages[last][1][:end]])


def locate(pages: Sequence[tuple[int | None, str]], result: SearchResult) -> PassageSpan | None:
    """The passage's span in ``pages`` (from ``KnowledgeBase.pages``), or None if the document
    changed since the search."""
    first, last = result.page_index, result.page_end_index
    if not 0 <= first <= last < len(pages):
        return None
    if result.char_start > len(pages[first][1]) or result.char_end > len(pages[last][1]):
        return None
    body = _joined(pages, first, result.char_start, last, result.char_end)
    if not body or not result.text.endswith(body):
        return None
    prefix = len(result.text) - len(body)
    focus = _page_offset(pages, first, result.char_start + max(0, result.focus - prefix))
    return PassageSpan(
        _pieces(pages, first, result.char_start, last, result.char_end),
        _map_highlights(pages, first, result.char_start, result.highlights, prefix),
        focus,
    )


def _pieces(
    pages: Sequence[tuple[int | None, str]], first: int, start: int, last: int, end: int
) -> list[tuple[int, int, int]]:
    if first == last:
        return [(first, start, end)]
    pieces = [(first, start, len(pages[first][1]))]
    pieces += [(i, 0, len(pages[i][1])) for i in range(first + 1, last)]
    return [*pieces, (last, 0, end)]


def _map_highlights(
    pages: Sequence[tuple[int | None, str]],
    first: int,
    start: int,
    spans: Sequence[tuple[int, int]],
    prefix: int,
) -> list[tuple[int, int, int]]:
    """Highlight offsets in the result text → offsets in page text (the header prefix has none)."""
    out = []
    for s, e in spans:
        if s < prefix:
            continue
        page, offset = _page_offset(pages, first, start + s - prefix)
        out.append((page, offset, min(offset + e - s, len(pages[page][1]))))
    return out


def _page_offset(pages: Sequence[tuple[int | None, str]], page: int, offset: int) -> tuple[int, int]:
    """``offset`` into the pages joined from ``page`` on → ``(page index, offset in its text)``."""
    while page < len(pages) - 1 and offset > len(pages[page][1]):
        offset -= len(pages[page][1]) + 1  # the newline joining two pages
        page += 1
    return page, offset
