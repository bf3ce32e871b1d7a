"""Character error rate: how OCR quality is measured against a known text (bench and tests).

Whitespace is ignored and Unicode compatibility forms are folded before comparing, because the
text layer and OCR disagree on spacing (CJK has none, PDF spacing is synthetic) and on full-width
punctuation, neither of which affects search.
"""

from __future__ import annotations

import unicodedata


def comparable(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


def cer(ocr: str, truth: str) -> float:
    """Edits needed to turn ``ocr`` into ``truth``, per character of ``truth``."""
    reference = comparable(truth)
    return edit_distance(comparable(ocr), reference) / max(1, len(reference))
