"""Token offsets of many texts, put together from a cache of the words they are made of.

The chunker needs every page's token offsets (``chunking.spans``), and on many small files that
tokenizing was most of what the reader process did: importing SciFact's 5,183 abstracts, it spent
6.1 of its 14 busy seconds in the tokenizer (py-spy, one thread, as readers run). Yet the default
model's tokenizer normalizes characters one by one and then splits at spaces, and SentencePiece
cuts each space-led word on its own: a text's tokens are its words' tokens, set at the words'
places, and a library repeats its words. So each distinct word is tokenized once and its pieces
placed wherever it recurs. The abstracts one at a time, one thread: 4.2-5.0 s through the
tokenizer, 3.5 s learning the words as they come, 1.7-2.0 s once they are known. Reading and
cutting all 5,183 files in one process took 6.9-8.0 s of processor time instead of 8.6-9.9 s; the
keyword import of the 500 mixed documents 9.5 -> 8.8 s (medians of three alternating runs). For
SciFact's files the importing process, which copies and stores each one, keeps the import's wall
time where it was, and the 311-page manual is unchanged.

The result is exact: the same offsets the tokenizer gives for the whole text, quirks included
(the piece "▁" alone takes the space before its word, or the CR of a CR LF; whitespace at the end
of a text is a token of its own). That holds only where every character of a word normalizes to
itself and none is a control, format, combining or separator character, so that no word boundary
moves and no two characters merge; any other text is tokenized whole, as before (Chinese text
nearly always: its full-width punctuation normalizes to ASCII). Checked against the tokenizer on
the texts that take the word path: 5,106 of SciFact's 5,183 abstracts, 74 of 146 manual pages,
558 of 636 PDF pages and 60,000 random texts of awkward characters; the passages of the import
benchmark's three folders came out identical. ``WordOffsets.for_tokenizer``
checks the tokenizer's pipeline (Metaspace splitting at spaces, prepending to every word) and
compares a probe of those quirks with the tokenizer's own answer before it uses the cache at all;
``tests/embedding/test_word_offsets.py`` compares them on random and real text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, Protocol

Offsets = list[tuple[int, int]]
# A cached word: where its first token ends when the word starts a text, whether that token is "▁"
# alone, and the other tokens' offsets, all from the word's first character.
_Word = tuple[int, bool, tuple[tuple[int, int], ...]]

_WORD_RE = re.compile(r"[^ \t\n\r]+")
_SPACES = " \t\n\r"  # what the normalizer turns into one space, whatever the run
_ASCII_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CACHED_WORD_CHARS = 40  # longer words (a CJK run, a URL) are tokenized but not kept
_CACHE_WORDS = 100_000  # about 36 MB (SciFact's 5,183 abstracts hold 95,000 distinct words: 34 MB)
_LONE_MARK = "▁"
# Texts whose offsets must come out right before the cache is trusted: a lone "▁" piece after a
# space and at the start, runs of mixed whitespace, leading and trailing whitespace, punctuation.
_PROBES = [
    "  diagnosis of\tthe (x) A1c\r\n\n diagnosis µm–β 'quoted'  end \n",
    "diagnosis\r\nof \r\n\r\n‘i‘\r\n’s\r\n",
    " ",
    "",
]


class _Encoding(Protocol):
    @property
    def offsets(self) -> list[tuple[int, int]]: ...

    @property
    def tokens(self) -> list[str]: ...


class _Tokenizer(Protocol):
    def encode_batch(
        self, texts: Sequence[str], *, add_special_tokens: bool = ...
    ) -> Sequence[_Encoding]: ...


class WordOffsets:
    """``offsets_many(texts)``: what ``[e.offsets for e in tok.encode_batch(texts)]`` gives, without
    special tokens."""

    def __init__(self, tok: _Tokenizer, normalize: Callable[[str], str], specials: Sequence[str]) -> None:
        self._tok = tok
        self._normalize = normalize  # the tokenizer's normalizer
        self._specials = tuple(specials)  # added tokens ("<s>"): matched in the raw text, before words
        self._words: dict[str, _Word] = {}
        self._plain_chars: dict[str, bool] = {}

    @classmethod
    def for_tokenizer(cls, tok: Any) -> WordOffsets | None:
        """The cache for ``tok`` (a ``tokenizers.Tokenizer`` or ``CoveredTokenizer``), or None when its
        pipeline is not one whose words tokenize alone."""
        pre = getattr(tok, "pre_tokenizer", None)
        normalizer = getattr(tok, "normalizer", None)
        added = getattr(tok, "get_added_tokens_decoder", None)
        if type(pre).__name__ != "Metaspace" or normalizer is None or added is None:
            return None
        if not (getattr(pre, "split", False) and getattr(pre, "prepend_scheme", "") == "always"):
            return None
        if getattr(pre, "replacement", "") != _LONE_MARK:
            return None
        words = cls(tok, normalizer.normalize_str, [t.content for t in added().values() if t.content])
        expected = [e.offsets for e in tok.encode_batch(_PROBES, add_special_tokens=False)]
        return words if words.offsets_many(_PROBES) == expected else None

    def offsets_many(self, texts: Sequence[str]) -> list[Offsets]:
        plain = [self._plain_text(text) for text in texts]
        new: set[str] = set()
        for text, ok in zip(texts, plain, strict=True):
            if ok:
                new.update(_WORD_RE.findall(text))
        uncached = self._learn(sorted(word for word in new if word not in self._words))
        out = [self._place(text, uncached) if ok else [] for text, ok in zip(texts, plain, strict=True)]
        whole = [i for i, ok in enumerate(plain) if not ok]
        if whole:
            encodings = self._tok.encode_batch([texts[i] for i in whole], add_special_tokens=False)
            for i, encoding in zip(whole, encodings, strict=True):
                out[i] = encoding.offsets
        return out

    def _plain_text(self, text: str) -> bool:
        """No character in the text can move a word boundary, and it names no added token."""
        if _ASCII_CONTROL_RE.search(text) or any(special in text for special in self._specials):
            return False
        return text.isascii() or all(self._plain(c) for c in set(text) if not c.isascii())

    def _plain(self, char: str) -> bool:
        """A character that normalizes to itself and cannot join, split or vanish."""
        known = self._plain_chars.get(char)
        if known is None:
            category = unicodedata.category(char)
            known = category[0] in "LNPS" and not _hangul_jamo(char) and self._normalize(char) == char
            self._plain_chars[char] = known
        return known

    def _learn(self, words: list[str]) -> dict[str, _Word]:
        """Tokenize ``words`` into the cache; those it does not keep, for this call.

        They are tokenized as one text, one space between them (a word tokenizes the same there
        as anywhere after a space): one encoding per call instead of one per word, whose Python
        objects cost more than tokenizing a word (19 us a word, learning SciFact's 96,000)."""
        uncached: dict[str, _Word] = {}
        if not words:
            return uncached
        encoding = self._tok.encode_batch([" ".join(words)], add_special_tokens=False)[0]
        offsets, tokens = encoding.offsets, encoding.tokens
        room = _CACHE_WORDS - len(self._words)
        at, j = 0, 0
        for word in words:
            # The word's tokens: from the one taking the space before it up to the next word's.
            following = at + len(word)  # the space after the word
            first = j
            j += 1
            while j < len(offsets) and offsets[j][0] < following:
                j += 1
            lone = tokens[first] == _LONE_MARK
            # Where the word starts a text (no space before it), its "▁" lies on its first character.
            end = 1 if lone else offsets[first][1] - at
            tail = tuple((s - at, e - at) for s, e in offsets[first + 1 : j])
            entry = (end, lone, tail)
            if len(word) <= _CACHED_WORD_CHARS and room > 0:
                self._words[word] = entry
                room -= 1
            else:
                uncached[word] = entry
            at = following + 1
        if j != len(offsets):
            raise ValueError("the words' tokens did not come out one word after another")
        return uncached

    def _place(self, text: str, uncached: dict[str, _Word]) -> Offsets:
        out: Offsets = []
        append, extend = out.append, out.extend
        cached = self._words.get
        crlf = "\r\n" in text
        for match in _WORD_RE.finditer(text):
            word, at = match.group(), match.start()
            end, lone, tail = cached(word) or uncached[word]
            if at == 0:
                append((0, end))
            else:
                # The whitespace before the word, one space once normalized, is where its "▁" comes
                # from: its last character, or a closing CR LF (whose CR alone for a lone "▁").
                space = at - 2 if crlf and text[at - 2 : at] == "\r\n" else at - 1
                append((space, space + 1) if lone else (space, at + end))
            if tail:
                extend([(at + s, at + e) for s, e in tail])
        if text and text[-1] in _SPACES:  # trailing whitespace is a "▁" of its own
            n = len(text)
            append((n - 2, n - 1) if text.endswith("\r\n") else (n - 1, n))
        return out


def _hangul_jamo(char: str) -> bool:
    """Conjoining jamo compose with their neighbours under NFKC."""
    code = ord(char)
    return 0x1100 <= code <= 0x11FF or 0xA960 <= code <= 0xA97F or 0xD7B0 <= code <= 0xD7FF
