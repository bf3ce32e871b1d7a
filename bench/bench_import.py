"""How long until an imported PDF is keyword-searchable, side by side with a bare-minimum baseline.

The baseline is the cheapest thing that could work — PyMuPDF's plain ``get_text()`` of every page
into one FTS5 row per page, in memory — so the difference is what structure-aware parsing
(reading order, headings, tables, running headers), chunking and durable storage cost. The
issue's target for the 134-page SDCC manual is ≤ 3 s on a 2-core machine.

Run:  .venv/bin/python bench/bench_import.py [PDF]
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

import pymupdf

from kbapp.library import KnowledgeBase

DEFAULT_PDF = Path(__file__).resolve().parents[1].parent / "shared/eval/manuals_pdf_dev/docs/sdccman.pdf"
TARGET_S = 3.0


def baseline(pdf: Path) -> float:
    started = time.perf_counter()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE pages USING fts5(body)")
    with pymupdf.open(pdf) as doc:
        db.executemany("INSERT INTO pages(body) VALUES (?)", ((page.get_text(),) for page in doc))
    db.commit()
    return time.perf_counter() - started


def kbapp_import(pdf: Path) -> tuple[float, int, int]:
    with tempfile.TemporaryDirectory() as tmp, KnowledgeBase(Path(tmp)) as kb:
        kb.model.token_counter()  # load the tokenizer before the clock starts, as a running app has
        started = time.perf_counter()
        report = kb.import_paths([pdf])
        elapsed = time.perf_counter() - started
        [file] = report.files
        assert file.ok, file.message
        assert kb.search("interrupt", mode="lexical").results, "imported but not searchable"
        return elapsed, file.pages or 0, file.chunks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pdf", nargs="?", type=Path, default=DEFAULT_PDF)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    base = min(baseline(args.pdf) for _ in range(args.repeat))
    runs = [kbapp_import(args.pdf) for _ in range(args.repeat)]
    best, pages, chunks = min(runs)
    print(f"{args.pdf.name}: {pages} pages, {chunks} passages (best of {args.repeat})")
    print(f"{'':28}{'seconds':>9}{'pages/s':>10}")
    print(f"{'baseline: get_text + FTS':28}{base:9.2f}{pages / base:10.0f}")
    print(f"{'kbapp import (searchable)':28}{best:9.2f}{pages / best:10.0f}   target <= {TARGET_S:.1f} s")


if __name__ == "__main__":
    main()
