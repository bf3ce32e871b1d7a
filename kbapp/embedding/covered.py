"""A tokenizer that keeps in memory only the pieces of the scripts a library is written in.

The default model's SentencePiece vocabulary has 250,002 pieces for about 100 languages. The
tokenizers library builds a character trie of all of them: 0.37 s holding the GIL and 282 MB
resident (measured on this project's machine), the largest single cost of a search process.
Pieces made only of Latin, Greek and CJK characters, punctuation, symbols and the private-use
glyphs PDFs use for bullets are 145,105 of them: 0.15 s and 146 MB.

The result is exact, not an approximation. The model pack also carries the same tokenizer with
every other piece replaced by a placeholder that no text produces (ids stay where they are, so
the model sees the same numbers). A removed piece holds a character outside those scripts, so it
can only match a text that, once normalised, holds one too; for any other text the candidate
segmentations, and so the chosen one, are identical. The small tokenizer shows such a text by
``<unk>`` (or the placeholder, if a text holds that very character), and only then is the text
checked character by character and, if it leaves those scripts, tokenized again by the full
vocabulary, loaded on first need: a Russian or Arabic manual costs the full 282 MB, a Chinese and
English library never does. (``<unk>`` alone is common: rare Han characters such as 苻 have no
piece in either vocabulary.)
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the pack module imports this one: keyword-only commands load no tokenizer
    from tokenizers import Encoding, Tokenizer

PLACEHOLDER = "\U0010fffd"  # a private-use character of the last plane: not text anyone writes
UNKNOWN = "<unk>"

# Code point ranges [start, end) kept in the small tokenizer. Exactness does not depend on this
# choice, only memory and how often the full vocabulary is needed.
KEPT_RANGES = (
    (0x0000, 0x0400),  # Latin, IPA, spacing modifiers, combining diacritics, Greek
    (0x1E00, 0x2000),  # Latin Extended Additional (Vietnamese), Greek Extended
    (0x2000, 0x2C00),  # punctuation, super/subscripts, currency, letterlike, arrows, math, boxes
    (0x2C60, 0x2C80),  # Latin Extended-C
    (0x2E80, 0xA000),  # CJK radicals, CJK punctuation, kana, bopomofo, CJK unified ideographs
    (0xA720, 0xA800),  # Latin Extended-D
    (0xE000, 0xFB00),  # private use (PDF bullet glyphs), CJK compatibility ideographs
    (0xFB00, 0xFB07),  # Latin ligatures (ﬁ, ﬂ)
    (0xFE30, 0xFE70),  # CJK compatibility and small forms
    (0xFF00, 0xFFF0),  # fullwidth and halfwidth forms
    (0x1F000, 0x1FB00),  # emoji and pictographs
    (0x20000, 0x40000),  # CJK extensions B and later
)


@cache
def _kept() -> re.Pattern[str]:
    return re.compile("[" + "".join(f"\\U{start:08x}-\\U{end - 1:08x}" for start, end in KEPT_RANGES) + "]*")


# The file's name carries the ranges' digest: a pack made with other ranges is simply not used.
_RANGES_DIGEST = hashlib.sha256(repr(KEPT_RANGES).encode()).hexdigest()[:8]


def common_tokenizer_json(tokenizer_json: str) -> str | None:
    """The small tokenizer's JSON for a full one; None for a vocabulary this cannot shrink exactly
    (not a Unigram model, or its unknown piece is not ``<unk>``, which ``CoveredTokenizer`` looks for)."""
    data = json.loads(tokenizer_json)
    model = data.get("model") or {}
    vocab: list[list[Any]] = model.get("vocab") or []
    unk = model.get("unk_id")
    if model.get("type") != "Unigram" or unk is None or vocab[unk][0] != UNKNOWN:
        return None
    if any(piece == PLACEHOLDER for piece, _ in vocab):
        return None
    special = {token["id"] for token in data.get("added_tokens", [])} | {unk}
    model["vocab"] = [
        entry if i in special or _kept().fullmatch(entry[0]) else [PLACEHOLDER, entry[1]]
        for i, entry in enumerate(vocab)
    ]
    return json.dumps(data, ensure_ascii=False)


def common_path(tokenizer_path: Path) -> Path:
    return tokenizer_path.with_name(f"{tokenizer_path.stem}.common-{_RANGES_DIGEST}.json")


class CoveredTokenizer:
    """The small tokenizer, answering with the full one for the texts it does not cover."""

    def __init__(self, common: Tokenizer, load_full: Callable[[], Tokenizer]) -> None:
        self._common = common
        self._load_full = load_full
        self._full: Tokenizer | None = None
        self._lock = threading.Lock()
        self._unknown = common.token_to_id(UNKNOWN)
        self._placeholder = common.token_to_id(PLACEHOLDER)
        self._normalizer = common.normalizer

    def _covered(self, text: str, encoding: Encoding) -> bool:
        ids = encoding.ids
        if self._placeholder in ids:
            return False
        if self._unknown not in ids:
            return True
        normalized = self._normalizer.normalize_str(text) if self._normalizer is not None else text
        return _kept().fullmatch(normalized) is not None

    @property
    def normalizer(self) -> Any:
        """Both vocabularies' normalizer (they share the pipeline around the model)."""
        return self._normalizer

    @property
    def pre_tokenizer(self) -> Any:
        return self._common.pre_tokenizer

    def get_added_tokens_decoder(self) -> dict[int, Any]:
        return self._common.get_added_tokens_decoder()

    def full(self) -> Tokenizer:
        with self._lock:
            if self._full is None:
                self._full = self._load_full()
            return self._full

    @property
    def full_loaded(self) -> bool:
        return self._full is not None

    def encode(self, sequence: str, *, add_special_tokens: bool = True) -> Encoding:
        encoding = self._common.encode(sequence, add_special_tokens=add_special_tokens)
        if self._covered(sequence, encoding):
            return encoding
        return self.full().encode(sequence, add_special_tokens=add_special_tokens)

    def encode_batch(self, texts: Sequence[str], *, add_special_tokens: bool = True) -> list[Encoding]:
        encodings = self._common.encode_batch(list(texts), add_special_tokens=add_special_tokens)
        redo = [i for i, encoding in enumerate(encodings) if not self._covered(texts[i], encoding)]
        if redo:
            again = self.full().encode_batch([texts[i] for i in redo], add_special_tokens=add_special_tokens)
            for i, encoding in zip(redo, again, strict=True):
                encodings[i] = encoding
        return encodings
