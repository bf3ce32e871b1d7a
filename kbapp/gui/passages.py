"""Where a result sits in its document's pages, for the preview to highlight it.

A ``SearchResult`` gives ``char_start``/``char_end`` into the text of the pages the passage
starts and ends on, but not those pages' indexes (only the page *number* of its first match),
nor the length of a repeated table header in front of its text. Both are recovered here by
matching the result text against ``KnowledgeBase.pages``: the passage text is, by the
chunker's contract, ``prefix + the page text between the offsets``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kbapp.contract import SearchResult

_SEARCH_BACK = 6  # pages before the cited one where a long passage may have started


@dataclass(frozen=True, slots=True)
class PassageSpan:
    """The passage as ``(page index, start, end)`` pieces, and its highlights the same way."""

    pieces: list[tuple[int, int, int]]
    highlights: list[tuple[int, int, int]]

    @property
    def first_page_index(self) -> int:
        return self.pieces[0][0]


def _joined(pages: Sequence[tuple[int | None, str]], first: int, start: int, last: int, end: int) -> str:
    if first == last:
        return pages[first][1][start:end]
    middle = [pages[i][1] for i in range(first + 1, last)]
    return "\n".join([pages[first][1][start:], *middle, pages[last][1][:end]])


def _candidates(pages: Sequence[tuple[int | None, str]], result: SearchResult) -> list[tuple[int, int]]:
    index_of = {number: i for i, (number, _) in enumerate(pages) if number is not None}
    cited = index_of.get(result.page, 0) if result.page is not None else 0
    ends = index_of.get(result.page_end) if result.page_end is not None else None
    pairs = []
    for first in range(cited, max(-1, cited - _SEARCH_BACK), -1):
        for last in [ends] if ends is not None else range(first, min(len(pages), first + _SEARCH_BACK)):
            if last >= first:
                pairs.append((first, last))
    return pairs


def locate(pages: Sequence[tuple[int | None, str]], result: SearchResult) -> PassageSpan | None:
    """The passage's span in ``pages`` (from ``KnowledgeBase.pages``), or None if the document
    changed since the search (then the caller shows the page without a passage mark)."""
    if not pages:
        return None
    for first, last in _candidates(pages, result):
        if result.char_start > len(pages[first][1]) or result.char_end > len(pages[last][1]):
            continue
        body = _joined(pages, first, result.char_start, last, result.char_end)
        if not body or not result.text.endswith(body):
            continue
        prefix = len(result.text) - len(body)
        return PassageSpan(
            _pieces(pages, first, result.char_start, last, result.char_end),
            _map_highlights(pages, first, result.char_start, result.highlights, prefix),
        )
    return None


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
        page, offset, length = first, start + s - prefix, e - s
        while page < len(pages) - 1 and offset > len(pages[page][1]):
            offset -= len(pages[page][1]) + 1  # the newline joining two pages
            page += 1
        out.append((page, offset, min(offset + length, len(pages[page][1]))))
    return out
