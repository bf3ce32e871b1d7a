"""Folding text to the form both the index and queries are compared in.

NFKC turns full-width Latin and compatibility forms into plain ones, casefolding makes
"EXPOSURE" equal "exposure", and Traditional characters are mapped to Simplified so that
曝光時間 and 曝光时间 meet in the same index terms. Folding is done per character so that a
position in the folded string can always be mapped back to the original (the highlighter
needs that); the character-level Traditional→Simplified table is what makes that possible.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from importlib import resources


def _load_pairs(name: str) -> dict[str, str]:
    table: dict[str, str] = {}
    text = resources.files("opencc").joinpath("dictionary", name).read_text(encoding="utf-8")
    for line in text.splitlines():
        source, _, targets = line.partition("\t")
        target = targets.split(" ")[0] if targets else ""
        if len(source) == 1 and len(target) == 1 and source != target:
            table[source] = target
    return table


@cache
def _t2s_table() -> dict[int, str]:
    """Traditional (incl. Taiwan/Hong Kong variants) → Simplified, one character to one character."""
    pairs = _load_pairs("TWVariantsRev.txt")
    pairs.update(_load_pairs("HKVariantsRev.txt"))
    pairs.update(_load_pairs("TSCharacters.txt"))
    # A variant may first map to a Traditional standard form that itself needs simplifying.
    for key, value in list(pairs.items()):
        pairs[key] = pairs.get(value, value)
    return {ord(k): v for k, v in pairs.items()}


def fold(text: str) -> str:
    """Fold a whole string for matching (positions may shift; use ``fold_with_map`` to map back).

    ASCII text is only lower-cased: NFKC leaves it alone and no ASCII letter is Traditional, and
    most of an English library's passages then skip the per-character table (a quarter of the
    time a search spends highlighting)."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).casefold().translate(_t2s_table())


@cache
def fold_char(ch: str) -> str:
    return unicodedata.normalize("NFKC", ch).casefold().translate(_t2s_table())


def fold_with_map(text: str) -> tuple[str, list[int] | None]:
    """Fold ``text`` and return, for each folded character, the index of its source character.

    The map is None when folding kept every character in place (the common case), so callers
    pay for the per-character path only for text that needs it.
    """
    folded = fold(text)
    if text.isascii() or (len(folded) == len(text) and unicodedata.is_normalized("NFKC", text)):
        return folded, None
    pieces = list(map(fold_char, text))
    joined = "".join(pieces)
    if len(joined) == len(text):  # full-width punctuation and the like: one character for one
        return joined, None
    index: list[int] = []
    for i, f in enumerate(pieces):
        index.extend([i] * len(f))
    return joined, index
