"""Turn texts into model inputs: prefix, tokenize, and cut into windows the model can take.

The model only has ``max_tokens`` positions (onnxruntime fails beyond them), so a longer text is
split into windows that each repeat ``<s>`` + prefix and end in ``</s>``. A text that fits gets
exactly the standard ``<s> prefix text </s>`` encoding, so ordinary inputs match the model's
reference behaviour token for token.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from tokenizers import Encoding, Tokenizer

from kbapp.embedding.covered import CoveredTokenizer, common_path


class TextTokenizer(Protocol):
    """What the encoder and the chunker ask of a tokenizer: a ``Tokenizer`` or a ``CoveredTokenizer``."""

    def encode(self, sequence: str, /, *, add_special_tokens: bool = True) -> Encoding: ...

    def encode_batch(self, texts: Sequence[str], /, *, add_special_tokens: bool = True) -> list[Encoding]: ...


def plain_tokenizer(tokenizer_json: str) -> Tokenizer:
    """A tokenizer with any padding/truncation baked into the JSON switched off (we window instead)."""
    return _plain(Tokenizer.from_str(tokenizer_json))


def load_tokenizer(tokenizer_path: Path) -> TextTokenizer:
    """``plain_tokenizer`` of a file, read by the tokenizers library itself (decoding the 17 MB
    file into a Python string first cost about 0.04 s more of each one-shot search); through its
    small sibling (``covered``) when the pack has one."""

    def full() -> Tokenizer:
        return _plain(Tokenizer.from_file(str(tokenizer_path)))

    small = common_path(tokenizer_path)
    return CoveredTokenizer(_plain(Tokenizer.from_file(str(small))), full) if small.is_file() else full()


def _plain(tok: Tokenizer) -> Tokenizer:
    tok.no_padding()
    tok.no_truncation()
    return tok


def special_ids(tok: Tokenizer) -> tuple[int, int, int]:
    """``(bos, eos, pad)`` ids as the tokenizer's own post-processor and vocabulary define them."""
    plain = tok.encode("a", add_special_tokens=False).ids
    framed = tok.encode("a", add_special_tokens=True).ids
    if len(framed) != len(plain) + 2 or framed[1:-1] != plain:
        raise ValueError("tokenizer does not frame a single text as <bos> text <eos>")
    pad = next((i for i in map(tok.token_to_id, ("<pad>", "[PAD]")) if i is not None), None)
    if pad is None:
        raise ValueError("tokenizer has no <pad> or [PAD] token")
    return framed[0], framed[-1], pad


class Windower:
    """Tokenizes prefixed texts into windows of at most ``max_tokens`` ids, specials included."""

    def __init__(self, tok: TextTokenizer, *, max_tokens: int, bos: int, eos: int) -> None:
        self._tok = tok
        self._max = max_tokens
        self._bos = bos
        self._eos = eos

    def count(self, text: str) -> int:
        """Tokens of ``text`` alone: no prefix, no specials (so counts of pieces add up)."""
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def boundaries(self, text: str) -> frozenset[int]:
        """Offsets in ``text`` where one of its tokens starts or ends. A token overlapping the next
        one is left out: a SentencePiece tokenizer gives the word-start mark ``▁`` it adds in front
        of a text the span of the first character, (0, 1), which is no split of 最大 (0, 2)."""
        offsets = self._tok.encode(text, add_special_tokens=False).offsets
        kept = [
            span
            for span, after in zip(offsets, [*offsets[1:], None], strict=True)
            if not (after and after[0] < span[1])
        ]
        return frozenset(i for span in kept for i in span)

    def prefix_ids(self, prefix: str) -> list[int]:
        """Ids a prefix contributes in front of a text; its trailing space belongs to the text."""
        return self._tok.encode(prefix.strip(), add_special_tokens=False).ids if prefix.strip() else []

    def body_budget(self, prefix: str) -> int:
        """Most text tokens one window holds beside ``<s>``, ``prefix`` and ``</s>``."""
        return self._max - 2 - len(self.prefix_ids(prefix))

    def windows(self, texts: Sequence[str], prefix: str) -> list[list[list[int]]]:
        """For each text, its windows (one unless the text is too long), each framed by specials."""
        head = self.prefix_ids(prefix)
        encoded = self._tok.encode_batch([prefix + t for t in texts], add_special_tokens=False)
        result = []
        for enc in encoded:
            ids = enc.ids
            # Repeat the prefix in every window only if it tokenized as a separable head.
            lead = head if ids[: len(head)] == head else []
            body = ids[len(lead) :]
            size = self._max - 2 - len(lead)
            result.append(
                [
                    [self._bos, *lead, *body[start : start + size], self._eos]
                    for start in range(0, max(len(body), 1), size)
                ]
            )
        return result
