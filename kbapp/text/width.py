"""How wide text is on screen, and which part of a long passage fits a line or two.

A CJK (East Asian wide or full-width) character takes two columns. The search core measures the
window a result should open on with it, and the results list and the CLI cut their snippets
with ``window``, so all three agree on what fits.
"""

from __future__ import annotations

import unicodedata


def columns(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def _is_word_char(char: str) -> bool:
    return char.isalnum() and columns(char) == 1


def window(text: str, anchor: int, lead: int, width: int) -> tuple[int, int]:
    """``[start, end)`` of ``text`` to show: about ``width`` display columns, starting about
    ``lead`` columns before ``anchor``, moved off the middle of a Latin word (CJK text has no word
    boundaries to respect). Offsets are code points, so a surrogate pair is never cut in half."""
    start, budget = anchor, lead
    while start > 0 and budget > 0:
        start -= 1
        budget -= columns(text[start])
    if start > 0 and _is_word_char(text[start - 1]):
        while start < anchor and _is_word_char(text[start]):
            start += 1
    end, budget = start, width
    while end < len(text) and budget > 0:
        budget -= columns(text[end])
        end += 1
    if end < len(text) and _is_word_char(text[end]):
        back = end
        while back > anchor and _is_word_char(text[back - 1]):
            back -= 1
        end = back if back > anchor else end
    return start, end
