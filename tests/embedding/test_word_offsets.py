"""Token offsets put together from cached words must be exactly the tokenizer's own, text by text."""

from __future__ import annotations

import random

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from kbapp.embedding import word_offsets
from kbapp.embedding.pack import ModelPack
from kbapp.embedding.tokens import TextTokenizer, load_tokenizer
from kbapp.embedding.word_offsets import WordOffsets

# Characters that move word boundaries (no-break and ideographic spaces, zero-width space, NEL,
# form feed, a control character), vanish or merge (soft hyphen, a combining accent, conjoining
# jamo), change under normalization (ﬁ, full-width letters and punctuation, ½, ㎏), added-token
# text, and the ordinary words, CJK and punctuation around them.
_POOL = [
    *" \t\n\r",
    "\r\n",
    "\r\n",
    *"abcdefghijklmnopqrstuvwxyzABCXYZ0123456789.,;:()[]'\"-_/\\@#",
    *"éβµ–—’“”°±×中文测试，。、；：「」ａｂ１…½㎏한ﬁ‘",
    *"\u00a0\u3000\u200b\u00ad\x85\x0c\x01\u0301\u1100\u1161",
    "<s>",
    "</s>",
    "<unk>",
    "diagnosis",
    "Exposure",
    "E5021",
    "XK-200",
    "曝光时间",
]


@pytest.fixture(scope="module")
def tok(default_pack: ModelPack) -> TextTokenizer:
    return load_tokenizer(default_pack.tokenizer_path)


@pytest.fixture()
def words(tok: TextTokenizer) -> WordOffsets:
    cache = WordOffsets.for_tokenizer(tok)
    assert cache is not None, "the default model's tokenizer splits words at spaces"
    return cache


def _expected(tok: TextTokenizer, texts: list[str]) -> list[list[tuple[int, int]]]:
    return [e.offsets for e in tok.encode_batch(texts, add_special_tokens=False)]


def _random_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_POOL) for _ in range(rng.randint(0, 30))) for _ in range(count)]


def test_random_texts_match_the_tokenizer(tok: TextTokenizer, words: WordOffsets) -> None:
    texts = _random_texts(seed=7, count=4000)
    assert words.offsets_many(texts) == _expected(tok, texts)
    # Again, now from the cache, one text at a time as a reader asks.
    assert [words.offsets_many([text])[0] for text in texts[:500]] == _expected(tok, texts[:500])


def test_prose_with_the_tokenizers_quirks(tok: TextTokenizer, words: WordOffsets) -> None:
    texts = [
        "diagnosis first: a lone ▁ piece where a word starts the text",
        "  leading spaces, tabs\tand\r\nWindows lines\r\n\r\nend with CR LF\r\n",
        "trailing newline\n",
        "Set the exposure time (曝光时间) before the first frame; error E5021 on the XK-200.",
        "An <s> in the text is the tokenizer's own token, matched before any word.",
        "µm, 37 °C ± 2, β-blockers – and ‘quoted’ words",
        "",
        " ",
        "\n\n",
    ]
    assert words.offsets_many(texts) == _expected(tok, texts)


def test_words_beyond_the_cache_are_exact_too(
    tok: TextTokenizer, words: WordOffsets, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(word_offsets, "_CACHE_WORDS", 5)
    text = "a short text with more distinct words than the cache keeps and a " + "long" * 20
    assert words.offsets_many([text, text]) == _expected(tok, [text, text])


def test_a_tokenizer_that_does_not_split_at_spaces_gets_no_cache() -> None:
    plain = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    plain.pre_tokenizer = pre_tokenizers.Whitespace()
    assert WordOffsets.for_tokenizer(plain) is None
