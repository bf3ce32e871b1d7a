"""A long PDF scanned from both ends (a helper process from the back) reads exactly as when one
process scans every page, whether the helper scans many pages or dies at once; through a bounded
reader worker it is imported whole."""

from __future__ import annotations

import time
from pathlib import Path

import pymupdf
import pytest

from kbapp.importing.limits import ParseLimits
from kbapp.ingest import pdf_pages
from kbapp.ingest.helping import helpers_allowed
from kbapp.ingest.pdf import parse_pdf
from kbapp.library import KnowledgeBase
from tests.ingest.test_pdf import new_page, ruled_table, save

PAGES = pdf_pages.MIN_HELPED_PAGES + 20


def _word(number: int) -> str:
    """A word only page ``number`` holds (letters only: a word with digits is also split)."""
    return "zq" + "".join(chr(ord("a") + int(d)) for d in str(number))


@pytest.fixture(scope="module")
def long_manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    doc = pymupdf.open()
    for number in range(1, PAGES + 1):
        page = new_page(doc)
        page.insert_text(
            (50, 80), f"{number // 10 + 1}.{number % 10} Valve {_word(number)}", fontsize=14, fontname="hebo"
        )
        page.insert_textbox(
            pymupdf.Rect(50, 100, 545, 400),
            f"Isolate pump {number} and check the seal. " * 6,
            fontsize=10,
            fontname="helv",
        )
        if number % 7 == 0:
            ruled_table(page, 450, [["Code", "Meaning", "Action"], [f"E{number}", "overheat", "stop"]])
    doc.set_metadata({"title": "Pump station manual"})
    doc.set_toc([[1, f"Chapter {n // 10 + 1}", n] for n in range(1, PAGES + 1, 10)])
    return save(doc, tmp_path_factory.mktemp("pdf") / "long.pdf")


def test_helped_scan_reads_the_same_document(long_manual: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = parse_pdf(long_manual)
    # This process scans slowly, so the helper (which is not slowed) gets to scan many pages.
    scan = pdf_pages._scan
    monkeypatch.setattr(pdf_pages, "_scan", lambda page: (time.sleep(0.04), scan(page))[1])
    delivered: list[int] = []
    collect = pdf_pages._Helper.collect
    monkeypatch.setattr(
        pdf_pages._Helper, "collect", lambda self, into: (collect(self, into), delivered.append(len(into)))
    )
    with helpers_allowed(True):
        helped = parse_pdf(long_manual)
    assert max(delivered) > 0  # the helper scanned pages from the back
    assert helped == alone
    assert len(alone.pages) == PAGES


def test_a_helper_that_dies_leaves_the_document_whole(
    long_manual: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = parse_pdf(long_manual)
    start = pdf_pages._Helper.start

    def dead_on_arrival(path: Path, count: int) -> pdf_pages._Helper | None:
        helper = start(path, count)
        assert helper is not None
        helper._proc.kill()
        return helper

    monkeypatch.setattr(pdf_pages._Helper, "start", staticmethod(dead_on_arrival))
    with helpers_allowed(True):
        assert parse_pdf(long_manual) == alone


def test_a_long_pdf_imports_whole_through_the_reader_worker(long_manual: Path, tmp_path: Path) -> None:
    with KnowledgeBase(tmp_path / "lib", pack_dir=None, parse_limits=ParseLimits(seconds=120)) as kb:
        report = kb.import_paths([long_manual])
        assert [f.ok for f in report.files] == [True]
        for number in (1, PAGES // 2, PAGES):
            hits = kb.search(_word(number), k=5, mode="lexical").results
            assert [r.page for r in hits] == [number]
