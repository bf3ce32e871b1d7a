"""Token counts of any span of a text from a single tokenizer pass over it.

The chunker asks for the size of many overlapping spans of the same page (a section, its
paragraphs, their sentences, then the packed passages). Tokenizing each span again made chunking
cost several tokenizer passes over every page, and made cutting an unbroken run of characters
quadratic (a binary search tokenizing ever-shorter prefixes of a megabyte). A counter that can
give token offsets lets the chunker tokenize each page once and count any span by bisecting
those offsets. A span that starts or ends inside a token counts that token, so span counts are
estimates near a span's ends (on real documents one token off at most: see ``chunker``, which
counts a passage near its maximum exactly).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Protocol

TokenCounter = Callable[[str], int]
SpanCounter = Callable[[int, int], int]  # tokens of text[start:end] of one text


class _Encoding(Protocol):
    @property
    def ids(self) -> list[int]: ...

    @property
    def offsets(self) -> list[tuple[int, int]]: ...


class OffsetTokenizer(Protocol):
    """What ``TokenizerCounter`` needs of a ``tokenizers.Tokenizer``."""

    def encode(self, sequence: str, *, add_special_tokens: bool = ...) -> _Encoding: ...

    def encode_batch(
        self, texts: Sequence[str], *, add_special_tokens: bool = ...
    ) -> Sequence[_Encoding]: ...


ManyOffsets = Callable[[Sequence[str]], list[list[tuple[int, int]]]]


class TokenizerCounter:
    """Exact counts from the model pack's tokenizer (no special tokens), with its offsets.
    ``many`` gives the offsets of many texts exactly as the tokenizer would, faster
    (``embedding.word_offsets``)."""

    def __init__(self, tok: OffsetTokenizer, many: ManyOffsets | None = None) -> None:
        self._tok = tok
        self._many = many

    def __call__(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return self.offsets_many([text])[0]

    def offsets_many(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        if self._many is not None:
            return self._many(texts)
        return [e.offsets for e in self._tok.encode_batch(texts, add_special_tokens=False)]


def _from_offsets(offsets: Sequence[tuple[int, int]]) -> SpanCounter:
    starts = [s for s, _ in offsets]
    # Offsets run forward; a running maximum makes sure bisecting is sound.
    ends = list(accumulate((e for _, e in offsets), max, initial=0))[1:]

    def count(start: int, end: int) -> int:
        if end <= start:
            return 0
        return max(0, bisect_left(starts, end) - bisect_right(ends, start))

    return count


def span_counter(count: TokenCounter, text: str) -> SpanCounter:
    """Counts of spans of ``text``: from one pass when ``count`` gives offsets, else span by span."""
    offsets = getattr(count, "offsets", None)
    if offsets is None:
        return lambda start, end: count(text[start:end])
    return _from_offsets(offsets(text))


def span_counters(count: TokenCounter, texts: Sequence[str]) -> list[SpanCounter]:
    """``span_counter`` of each of ``texts``. A tokenizer encodes them in one batch, on every core
    the process allows it (the 311 pages of a manual: 0.39-0.48 s one by one, 0.22 s in a batch
    on two cores)."""
    many = getattr(count, "offsets_many", None)
    if many is None:
        return [span_counter(count, text) for text in texts]
    return [_from_offsets(offsets) for offsets in many(texts)]
