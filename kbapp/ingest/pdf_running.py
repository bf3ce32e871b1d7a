"""Running headers and footers: text repeated in the page margins that would pollute every chunk.

A fragment in the top or bottom band of a page is furniture when the same text, with digits
ignored ("Page 3 of 40" = "Page 4 of 40"), sits in the same band on several pages. Section-name
headers change every few pages, so once a band position is known to hold running text, every
fragment at that position is dropped too.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from kbapp.ingest.pdf_layout import Fragment

BAND = 0.08
_SLOT = 4.0  # points; fragments whose centres fall in the same slot share a margin position
_DIGITS = re.compile(r"\d+")
_ROMAN_PAGE = re.compile(r"^[ivxlc]+$")
_SPACES = re.compile(r"\s+")


@dataclass(slots=True)
class _Candidate:
    page: int
    fragment: Fragment
    key: tuple[str, str]
    slot: tuple[str, int]


def running_fragments(pages: Sequence[tuple[float, list[Fragment]]]) -> set[int]:
    """``id()``s of the fragments that are running headers or footers.

    ``pages`` holds (page height, fragments) for every page with usable text.
    """
    candidates = [
        candidate
        for page_index, (height, fragments) in enumerate(pages)
        for fragment in fragments
        if (candidate := _candidate(page_index, height, fragment)) is not None
    ]
    pages_by_key: dict[tuple[str, str], set[int]] = defaultdict(set)
    for candidate in candidates:
        pages_by_key[candidate.key].add(candidate.page)
    needed = min(3, max(2, len(pages) // 2))
    repeated = {key for key, seen in pages_by_key.items() if len(seen) >= needed}
    slots = {candidate.slot for candidate in candidates if candidate.key in repeated}
    return {
        id(candidate.fragment)
        for candidate in candidates
        if candidate.key in repeated or _near_slot(candidate.slot, slots)
    }


def _candidate(page: int, height: float, fragment: Fragment) -> _Candidate | None:
    if fragment.y1 <= BAND * height:
        band = "top"
    elif fragment.y0 >= (1 - BAND) * height:
        band = "bottom"
    else:
        return None
    text = _SPACES.sub(" ", fragment.text.strip().lower())
    text = "#" if _ROMAN_PAGE.match(text) else _DIGITS.sub("#", text)
    slot = round((fragment.y0 + fragment.y1) / 2 / _SLOT)
    return _Candidate(page, fragment, (band, text), (band, slot))


def _near_slot(slot: tuple[str, int], slots: set[tuple[str, int]]) -> bool:
    band, position = slot
    return any((band, position + delta) in slots for delta in (-1, 0, 1))
