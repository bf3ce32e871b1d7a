"""A model-free token estimate, for when no model pack is installed.

It errs on the high side against XLM-R's SentencePiece vocabulary (one token per CJK
character, about 1.3 per Latin word) so chunks cut with it still fit the encoder later.
"""

from __future__ import annotations

import re

_PIECE_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]|[^\W_]+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    total = 0
    for m in _PIECE_RE.finditer(text):
        piece = m.group()
        total += 1 if len(piece) <= 4 else 1 + len(piece) // 4
    return total
