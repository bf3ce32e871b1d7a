"""Reading and chunking throughput (MB/s) for the input shapes that used to be slow — one long line
of ordinary words, one long run of characters without a space — and for ordinary text, at two
sizes, so the report shows both the speed and whether it stays flat as the input grows.

kbapp's figure is parsing the file (``.txt`` and ``.md``) and cutting it into passages with the
model pack's tokenizer, as the importer does. The baseline, measured on the same text in the same
run, is one plain pass of the same tokenizer over it: the floor for anything that sizes passages
in model tokens. Each figure is the best of three (outside load only ever slows a run down).

Run:  python -m bench.bench_reading [--sizes 1 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kbapp.chunking import ChunkingConfig, chunk_document
from kbapp.chunking.spans import TokenizerCounter
from kbapp.embedding import default_pack_dir, load_pack
from kbapp.embedding.budget import load_tokenizer
from kbapp.ingest import parse_file

WORDS = [
    "the",
    "exposure",
    "time",
    "controls",
    "how",
    "long",
    "the",
    "sensor",
    "collects",
    "light",
    "increase",
    "it",
    "when",
    "the",
    "image",
    "is",
    "too",
    "dark",
    "and",
    "decrease",
    "it",
    "when",
    "moving",
    "parts",
    "look",
    "blurred",
    "trigger",
    "mode",
    "captures",
    "one",
    "frame",
    "per",
    "pulse",
]


def _long_line(n: int, rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n // 4))[:n]


def _long_word(n: int, rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def _ordinary(n: int, rng: random.Random) -> str:
    paragraphs = (" ".join(rng.choice(WORDS) for _ in range(60)) + "." for _ in range(n // 250 + 1))
    return "\n\n".join(paragraphs)[:n]


SHAPES: dict[str, Callable[[int, random.Random], str]] = {
    "long line (one line of words)": _long_line,
    "long word (no spaces)": _long_word,
    "ordinary text (paragraphs)": _ordinary,
}


def _best(fn: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=float, nargs=2, default=[1.0, 3.0], help="two sizes in MB")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)
    tok = load_tokenizer(load_pack(default_pack_dir()).tokenizer_path)
    count = TokenizerCounter(tok)
    results = []
    print(f"{'shape':<32}{'file':>5}{'MB':>6}{'kbapp MB/s':>12}{'tokenizer MB/s':>16}")
    with tempfile.TemporaryDirectory() as tmp:
        for shape, make in SHAPES.items():
            for mb in args.sizes:
                text = make(int(mb * 1_000_000), random.Random(5))
                size = len(text.encode("utf-8")) / 1_000_000
                base = _best(lambda text=text: tok.encode(text, add_special_tokens=False))
                for suffix in (".txt", ".md"):
                    path = Path(tmp) / f"input{suffix}"
                    path.write_text(text, encoding="utf-8")
                    ours = _best(lambda path=path: chunk_document(parse_file(path), count, ChunkingConfig()))
                    results.append(
                        {"shape": shape, "suffix": suffix, "mb": size, "kbapp_s": ours, "tokenizer_s": base}
                    )
                    print(
                        f"{shape:<32}{suffix:>5}{size:6.1f}{size / ours:12.2f}{size / base:16.2f}", flush=True
                    )
    if args.json:
        args.json.write_text(json.dumps(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
