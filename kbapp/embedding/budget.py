"""Counting tokens for chunk budgets: the model pack's tokenizer, or an estimate without a pack.

Used by the importing process and by the parse worker, which must count exactly as the importer
would have (chunk boundaries depend on it).
"""

from __future__ import annotations

from pathlib import Path

from kbapp.chunking.estimate import estimate_tokens
from kbapp.chunking.spans import TokenCounter, TokenizerCounter
from kbapp.embedding.tokens import TextTokenizer, load_tokenizer
from kbapp.embedding.word_offsets import WordOffsets


def counter_for(tok: TextTokenizer) -> TokenizerCounter:
    words = WordOffsets.for_tokenizer(tok)
    return TokenizerCounter(tok, words.offsets_many if words is not None else None)


def token_counter(tokenizer_path: Path | None) -> TokenCounter:
    return counter_for(load_tokenizer(tokenizer_path)) if tokenizer_path is not None else estimate_tokens
