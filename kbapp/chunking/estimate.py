"""A model-free token estimate, for when no model pack is installed.

It errs on the high side against XLM-R's SentencePiece vocabulary (one token per CJK
character, about 1.3 per Latin word) so chunks cut with it still fit the encoder later. Like the
tokenizer's counter it gives offsets too, so the chunker can count spans from one pass.
"""

from __future__ import annotations

import re

_PIECE_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]|[^\W_]+|[^\w\s]")


class _Estimate:
    """A callable like any token counter, with ``offsets`` for span counting."""

    def __call__(self, text: str) -> int:
        total = 0
        for m in _PIECE_RE.finditer(text):
            piece = m.group()
            total += 1 if len(piece) <= 4 else 1 + len(piece) // 4
        return total

    def offsets(self, text: str) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for m in _PIECE_RE.finditer(text):
            s, e = m.span()
            n = 1 if e - s <= 4 else 1 + (e - s) // 4
            step = (e - s) / n
            out.extend((s + int(i * step), s + int((i + 1) * step)) for i in range(n))
        return out


estimate_tokens = _Estimate()
