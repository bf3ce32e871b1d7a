"""Text clean-up shared by every reader.

The index, the preview and the JSON output all assume text without NUL, U+FFFD, lone surrogates or
stray control characters, with ``"\\n"`` line endings. Cleaning happens once, when a block is added
to a page, so offsets are always computed on the final text.
"""

from __future__ import annotations

import re
import unicodedata

# C0/C1 controls except tab and newline, DEL, private-use glyphs (symbol fonts, broken PDF fonts),
# U+FFFD, BOMs / zero-width no-break space, and surrogates (lone ones cannot be encoded as UTF-8).
_DROP = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\ue000-\uf8ff\ufffd\ufeff\ud800-\udfff]")
_LINE_BREAKS = re.compile("\r\n?|[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_SPACES = re.compile(r"[ \t\u00a0]+")
_WHITESPACE = re.compile(r"\s+")


def clean_text(text: str) -> str:
    """Normalise line endings, drop characters that must never reach the index, and NFC-compose.

    NFC matters for PDFs and Word files that store accents as combining marks: without it a search
    for "é" would miss "e" + U+0301.
    """
    text = _LINE_BREAKS.sub("\n", text)
    text = _DROP.sub("", text)
    return unicodedata.normalize("NFC", text.replace("\u00a0", " "))


def collapse_spaces(text: str) -> str:
    """Collapse all whitespace (newlines included) into single spaces, for one-line fields."""
    return _WHITESPACE.sub(" ", text).strip()


def tidy_lines(text: str) -> str:
    """Collapse runs of spaces inside each line and drop trailing spaces, keeping the line breaks."""
    return "\n".join(_SPACES.sub(" ", line).strip() for line in text.split("\n"))


# Chinese/Japanese characters, kana and CJK punctuation/full-width forms, which are written without
# spaces. Hangul is left out on purpose: Korean separates words with spaces.
_CJK_RANGES = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF), (0x20000, 0x3FFFF))
CJK_CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES)  # for use inside [...]


def is_cjk(char: str) -> bool:
    """True for a character of a script written without spaces between words."""
    code = ord(char)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def join_wrapped(left: str, right: str) -> str:
    """Join two visually wrapped pieces of one paragraph.

    A line break is a space in Latin text but nothing in CJK text; "exam-" + "ple" is one word when
    the hyphen splits lowercase letters (a typesetter's hyphenation, not a compound like "ISO-").
    """
    left = left.rstrip()
    right = right.lstrip()
    if not left or not right:
        return left + right
    if (
        left.endswith(("-", "\u00ad"))
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
