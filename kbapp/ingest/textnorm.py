"""Text clean-up shared by every reader.

The index, the preview and the JSON output all assume text without NUL, U+FFFD, lone surrogates or
stray control characters, with ``"\\n"`` line endings. Cleaning happens once, when a block is added
to a page, so offsets are always computed on the final text.
"""

from __future__ import annotations

import re
import unicodedata

# Line separators other than "\n" become "\n"; C0/C1 controls except tab and newline, DEL,
# private-use glyphs (symbol fonts, broken PDF fonts), U+FFFD, BOM / zero-width no-break space and
# surrogates (lone ones cannot be encoded as UTF-8) are dropped; NBSP becomes a plain space.
_CLEANUP: dict[int, str | None] = {
    **dict.fromkeys([*range(0x00, 0x09), *range(0x0E, 0x1C), 0x1F, *range(0x7F, 0xA0)]),
    **dict.fromkeys(range(0xE000, 0xF900)),
    **dict.fromkeys(range(0xD800, 0xE000)),
    **dict.fromkeys([0xFFFD, 0xFEFF]),
    **dict.fromkeys([0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029], "\n"),
    0xA0: " ",
}
# Any character the table above changes; most text has none, and a search is cheaper than translate.
_NEEDS_CLEANUP = re.compile("[\x00-\x08\x0b-\x1f\x7f-\xa0\u2028\u2029\ud800-\uf8ff\ufeff\ufffd]")
_SPACES = re.compile(r"[ \t]+")
_SPACES_AT_BREAK = re.compile(r" ?\n ?")
_WHITESPACE = re.compile(r"\s+")


def clean_text(text: str) -> str:
    """Normalise line endings, drop characters that must never reach the index, and NFC-compose.

    NFC matters for PDFs and Word files that store accents as combining marks: without it a search
    for "é" would miss "e" + U+0301.
    """
    if _NEEDS_CLEANUP.search(text):
        text = text.replace("\r\n", "\n").translate(_CLEANUP)
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)


def collapse_spaces(text: str) -> str:
    """Collapse all whitespace (newlines included) into single spaces, for one-line fields."""
    return _WHITESPACE.sub(" ", text).strip()


def tidy_lines(text: str) -> str:
    """Collapse runs of spaces and tabs and drop spaces around line breaks, keeping the breaks."""
    if "  " not in text and "\t" not in text and " \n" not in text and "\n " not in text:
        return text
    return _SPACES_AT_BREAK.sub("\n", _SPACES.sub(" ", text))


# Chinese/Japanese characters, kana and CJK punctuation/full-width forms, which are written without
# spaces. Hangul is left out on purpose: Korean separates words with spaces.
_CJK_RANGES = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF), (0x20000, 0x3FFFF))
CJK_CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES)  # for use inside [...]


# A line that starts a list item: a bullet, "1." or "(a)". It is not the wrapped end of the line before.
LIST_ITEM = re.compile(r"^(?:[•·▪◦‣●○■□►▶✓✔➢–—*-]\s|\(?\d{1,2}[.)]\s|\(?[a-z][.)]\s)")


def is_cjk(char: str) -> bool:
    """True for a character of a script written without spaces between words."""
    code = ord(char)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def join_wrapped(left: str, right: str) -> str:
    """Join two visually wrapped pieces of one paragraph.

    A line break is a space in Latin text but nothing in CJK text; "exam-" + "ple" is one word when
    the hyphen splits lowercase letters (a typesetter's hyphenation, not a compound like "ISO-").
    The hyphen may be U+2010, which groff puts where it breaks a word in a manual page ("nu‐meric").
    """
    left = left.rstrip()
    right = right.lstrip()
    if not left or not right:
        return left + right
    if (
        left.endswith(("-", "\u2010", "\u00ad"))
        and len(left) >= 2
        and left[-2].isalpha()
        and left[-2].islower()
        and right[0].isalpha()
        and right[0].islower()
    ):
        return left[:-1] + right
    if left.endswith("\u00ad"):
        left = left[:-1]
    if is_cjk(left[-1]) or is_cjk(right[0]):
        return left + right
    return f"{left} {right}"
