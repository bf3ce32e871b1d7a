"""Counting tokens for chunk budgets: the model pack's tokenizer, or an estimate without a pack.

Used by the importing process and by the parse worker, which must count exactly as the importer
would have (chunk boundaries depend on it).
"""

from __future__ import annotations

from pathlib import Path

from kbapp.chunking.estimate import estimate_tokens
from kbapp.chunking.spans import TokenCounter, TokenizerCounter
from kbapp.embedding.tokens import TextTokenizer, load_tokenizer


def counter_for(tok: TextTokenizer) -> TokenCounter:
    return TokenizerCounter(tok)


def token_counter(tokenizer_path: Path | None) -> TokenCounter:
    return counter_for(load_tokenizer(tokenizer_path)) if tokenizer_path is not None else estimate_tokens
