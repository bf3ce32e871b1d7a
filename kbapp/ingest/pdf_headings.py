"""Which PDF lines are headings, and at what level.

Two sources, combined: the document outline (bookmarks), which names each section and its page
and is matched to the printed line; and typography relative to the document's body font size
(larger lines, or bold lines at body size that start with a section number, or — when there is
no outline to rely on — short stand-alone bold lines). Font-based headings get levels by size
rank, aligned with the outline's levels where both describe the same style.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

from kbapp.ingest.pdf_layout import LEADER_MARK, Fragment, Line

Style = tuple[float, bool]  # (font size rounded to 0.5 pt, bold)

_LARGER = 1.15
_BODY_SIZE_SLACK = 0.95
_MAX_HEADING_CHARS = 150
_MAX_BOLD_HEADING_CHARS = 80
_MAX_TOC_PREFIX = 12  # room for a printed section number like "3.14.2.2"
_NUMBERED = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?\s+\S|第[一二三四五六七八九十百零〇\d]+[章节條条部篇]|[一二三四五六七八九十]+[、.．]\S)"
)
_PAGE_NUMBER = re.compile(r"^(?:\d+|[ivxlc]+)$", re.I)
_PAGE_NUMBER_GAP = 3.0  # in font sizes
_NOT_WORD = re.compile(r"[\W_]+")
_LEADING_NUMBER = re.compile(r"^\s*(?:[\d.]+|[ivxlc]+\.|[a-z]\.)\s+", re.I)


def body_size(fragments: Iterable[Fragment]) -> float:
    """The font size carrying most characters: the reference for "larger" headings."""
    weights: Counter[float] = Counter()
    for fragment in fragments:
        weights[fragment.size] += len(fragment.text)
    return weights.most_common(1)[0][0] if weights else 10.0


def line_style(line: Line) -> Style:
    return (line.size, line.bold)


def font_heading(line: Line, body: float, standalone_bold: bool, have_outline: bool) -> bool:
    """Does the typography alone make ``line`` a heading?"""
    text = line.text
    if line.mono or len(text) > _MAX_HEADING_CHARS or not any(_is_letter(char) for char in text):
        return False
    if is_toc_entry(line):
        return False  # typeset like the heading it points to, but it is not one
    if line.size >= body * _LARGER:
        return True
    if not line.bold or line.size < body * _BODY_SIZE_SLACK or len(text) > _MAX_BOLD_HEADING_CHARS:
        return False
    if _NUMBERED.match(text):
        return True
    return standalone_bold and not have_outline and not text.endswith((".", "。"))


def match_outline(lines: Sequence[Line], entries: Sequence[tuple[int, str]]) -> dict[int, tuple[int, int]]:
    """Map line indexes to (level, entry number) for the outline entries pointing at this page.

    An entry matches the most prominent line containing its title (allowing a printed section
    number in front), or a run of consecutive lines that spell it out when the heading wraps.
    """
    matched: dict[int, tuple[int, int]] = {}
    if not entries:
        return matched
    keys = [_key(line.text) for line in lines]
    stripped = [_key(_LEADING_NUMBER.sub("", line.text)) for line in lines]
    for entry, (level, title) in enumerate(entries):
        target = _key(title)
        if not target:
            continue
        indexes = _single_line(lines, keys, target, matched) or _wrapped(keys, stripped, target, matched)
        for index in indexes:
            matched[index] = (min(max(level, 1), 6), entry)
    return matched


def assign_levels(font_styles: Counter[Style], outline_styles: dict[Style, Counter[int]]) -> dict[Style, int]:
    """Heading level for each font-heading style.

    Without an outline: rank by size (bold first at equal size). With one: a style the outline
    already uses keeps the outline's usual level; others sit one below the nearest larger outline
    style.
    """
    ranked = sorted(set(font_styles) | set(outline_styles), key=lambda style: (-style[0], not style[1]))
    if not outline_styles:
        return {style: min(rank + 1, 6) for rank, style in enumerate(ranked)}
    levels: dict[Style, int] = {}
    above = 0
    for style in ranked:
        if style in outline_styles:
            levels[style] = above = outline_styles[style].most_common(1)[0][0]
        else:
            levels[style] = min(above + 1, 6)
    return levels


def is_toc_entry(line: Line) -> bool:
    """A table-of-contents line: dot leaders, or a page number set far right of the title."""
    if LEADER_MARK in line.text:
        return True
    if len(line.fragments) < 2:
        return False
    last, before = line.fragments[-1], line.fragments[-2]
    return bool(_PAGE_NUMBER.match(last.text)) and last.x0 - before.x1 > _PAGE_NUMBER_GAP * last.size


def _single_line(
    lines: Sequence[Line], keys: list[str], target: str, matched: dict[int, tuple[int, int]]
) -> list[int]:
    candidates = [
        index
        for index, key in enumerate(keys)
        if index not in matched and target in key and len(key) <= len(target) + _MAX_TOC_PREFIX
    ]
    if not candidates:
        return []
    best = max(candidates, key=lambda index: (lines[index].size, lines[index].bold, -index))
    return [best]


def _wrapped(
    keys: list[str], stripped: list[str], target: str, matched: dict[int, tuple[int, int]]
) -> list[int]:
    for start, first in enumerate(stripped):
        if start in matched or len(first) < 3 or not target.startswith(first):
            continue
        spelled = first
        indexes = [start]
        for index in range(start + 1, min(start + 4, len(keys))):
            if index in matched or not target.startswith(spelled + keys[index]):
                break
            spelled += keys[index]
            indexes.append(index)
            if spelled == target:
                return indexes
    return []


def _key(text: str) -> str:
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text).lower())


def _is_letter(char: str) -> bool:
    return unicodedata.category(char).startswith("L")
