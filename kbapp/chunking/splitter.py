"""Splitting an over-long span at the most natural boundary that makes it fit.

Boundaries are tried in order of preference — paragraphs, lines, sentences, clauses,
whitespace, then single characters — and a finer one is used only inside a piece that the
coarser ones could not bring under budget. Pieces always tile the input span exactly (a
separator stays with the piece before it), so no character is ever lost between pieces.

Sizes come from a span counter over the whole text (``spans.span_counter``), so measuring a
piece costs a bisection, not a tokenizer pass: splitting stays linear in the input's length
even for a megabyte without a single boundary.
"""

from __future__ import annotations

import re

from kbapp.chunking.spans import SpanCounter, TokenCounter

__all__ = ["SpanCounter", "TokenCounter", "split_to_budget"]

_BOUNDARIES: tuple[re.Pattern[str], ...] = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraphs
    re.compile(r"\n\s*"),  # lines
    re.compile(r"(?<=[.!?])\s+|(?<=[。！？；…])\s*"),  # sentences
    re.compile(r"(?<=[,;:])\s+|(?<=[，、；：])\s*"),  # clauses
    re.compile(r"\s+"),  # words
)


def _cut(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    pos = start
    for m in pattern.finditer(text, start, end):
        if m.end() > pos and m.end() < end:
            pieces.append((pos, m.end()))
            pos = m.end()
    pieces.append((pos, end))
    return pieces


def _group(pieces: list[tuple[int, int]], max_chars: int) -> list[tuple[int, int]]:
    grouped: list[tuple[int, int]] = []
    for s, e in pieces:
        if grouped and e - grouped[-1][0] <= max_chars:
            grouped[-1] = (grouped[-1][0], e)
        else:
            grouped.append((s, e))
    return grouped


def _cut_characters(start: int, end: int, budget: int, count: SpanCounter) -> list[tuple[int, int]]:
    """Last resort for text with no usable boundary (a 50 kB hex dump, an unbroken CJK run)."""
    pieces: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        lo, hi = pos + 1, end
        while lo < hi:  # largest prefix that fits; at least one character so we always advance
            mid = (lo + hi + 1) // 2
            if count(pos, mid) <= budget:
                lo = mid
            else:
                hi = mid - 1
        pieces.append((pos, lo))
        pos = lo
    return pieces


def split_to_budget(
    text: str, start: int, end: int, budget: int, count: SpanCounter, level: int = 0
) -> list[tuple[int, int, int]]:
    """Tile ``text[start:end]`` with ``(start, end, tokens)`` pieces of at most ``budget`` tokens each;
    ``count`` measures spans of ``text``."""
    tokens = count(start, end)
    if tokens <= budget:
        return [(start, end, tokens)]
    if level >= len(_BOUNDARIES):
        return [(s, e, count(s, e)) for s, e in _cut_characters(start, end, budget, count)]
    pieces = _cut(text, start, end, _BOUNDARIES[level])
    if len(pieces) == 1:
        return split_to_budget(text, start, end, budget, count, level + 1)
    if len(pieces) > 32 * (tokens // budget + 1):
        # Hundreds of thousands of tiny pieces (a 50 MB one-line log cut at spaces): group them
        # into runs of about an eighth of the budget first (small enough to still form the
        # overlap), so the packing loops over runs, not over words.
        pieces = _group(pieces, max(1, int(budget * (end - start) / tokens / 8)))
    out: list[tuple[int, int, int]] = []
    for s, e in pieces:
        out.extend(split_to_budget(text, s, e, budget, count, level + 1))
    return out
