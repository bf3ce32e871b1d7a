"""Reading and chunking stay linear in the input's size, also for shapes that used to be quadratic:
one long line of ordinary words, one run of characters without a single space, one paragraph
hard-wrapped into thousands of lines, and plain text.

No wall-clock limits: the tokenizer work is counted (characters handed to the counter per input
character must not grow with the size), and the time per megabyte of the largest input is
compared with that of the smallest (best of three each, so a burst of outside load does not
decide it); a quadratic step makes the ratio grow with the size ratio (8× here), a linear one
keeps it near 1.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kbapp.chunking import ChunkingConfig, chunk_document
from kbapp.chunking.estimate import estimate_tokens
from kbapp.ingest import parse_file
from kbapp.ingest.unwrap import unwrap, wrap_width

SMALL, LARGE = 40_000, 320_000
WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "exposure",
    "time",
    "and",
    "trigger",
    "mode",
    "change",
]


def _long_word(n: int, rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def _long_line(n: int, rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n // 4))[:n]


def _ordinary(n: int, rng: random.Random) -> str:
    paragraphs = (" ".join(rng.choice(WORDS) for _ in range(60)) + "." for _ in range(n // 250 + 1))
    return "\n\n".join(paragraphs)[:n]


def _wrapped(n: int, rng: random.Random) -> str:
    """One paragraph hard-wrapped at 78 columns, as an editor or a text export leaves it: every
    line break is joined again (``kbapp.ingest.unwrap``)."""
    lines, line = [], ""
    for word in (rng.choice(WORDS) for _ in range(n // 4)):
        if len(line) + 1 + len(word) > 78:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "\n".join([*lines, line])[:n]


SHAPES: dict[str, Callable[[int, random.Random], str]] = {
    "long word": _long_word,
    "long line": _long_line,
    "ordinary": _ordinary,
    "wrapped": _wrapped,
}


class _Counting:
    """``estimate_tokens`` that also counts the characters it is handed."""

    def __init__(self) -> None:
        self.chars = 0

    def __call__(self, text: str) -> int:
        self.chars += len(text)
        return estimate_tokens(text)

    def offsets(self, text: str) -> list[tuple[int, int]]:
        self.chars += len(text)
        return estimate_tokens.offsets(text)


def _read_and_chunk(path: Path, counter: _Counting) -> float:
    started = time.perf_counter()
    chunks = chunk_document(parse_file(path), counter, ChunkingConfig())
    elapsed = time.perf_counter() - started
    assert chunks
    return elapsed


@pytest.mark.parametrize("suffix", [".txt", ".md"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_reading_and_chunking_are_linear(tmp_path: Path, shape: str, suffix: str) -> None:
    rng = random.Random(3)
    per_char_work, per_char_seconds = {}, {}
    for size in (SMALL, LARGE):
        path = tmp_path / f"{size}{suffix}"
        path.write_text(SHAPES[shape](size, rng), encoding="utf-8")
        counters = [_Counting() for _ in range(3)]
        seconds = min(_read_and_chunk(path, c) for c in counters)
        per_char_work[size] = counters[0].chars / size
        per_char_seconds[size] = seconds / size
    assert per_char_work[LARGE] <= 1.2 * per_char_work[SMALL] + 0.5, per_char_work
    assert per_char_work[LARGE] <= 4, f"the tokenizer sees the text {per_char_work[LARGE]:.1f} times"
    assert per_char_seconds[LARGE] <= 3 * per_char_seconds[SMALL], per_char_seconds


def test_joining_wrapped_lines_is_linear() -> None:
    """Joining a long hard-wrapped paragraph (tens of thousands of lines) is linear too: read with
    chunking above, its cost hides below 320,000 characters, so it is timed on its own here."""
    rng = random.Random(5)
    per_char = {}
    for size in (200_000, 1_600_000):
        paragraph = _wrapped(size, rng)
        timings = []
        for _ in range(3):
            started = time.perf_counter()
            joined = unwrap(paragraph, wrap_width([paragraph]))
            timings.append(time.perf_counter() - started)
        assert joined.count("\n") == 0
        per_char[size] = min(timings) / len(paragraph)
    assert per_char[1_600_000] <= 3 * per_char[200_000], per_char
