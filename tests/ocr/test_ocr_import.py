"""The OCR stage end to end: scanned PDFs and image files imported, OCR'd page by page, searchable.

Scans are made in the test: generated PDF pages rendered to pixels and put back as image-only
pages or saved as PNG/JPEG/TIFF. The library is real (SQLite, the parse worker process).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image

from kbapp.gui.preview.scan_marks import word_boxes
from kbapp.importing.limits import ParseLimits
from kbapp.library import KnowledgeBase
from kbapp.store.ocr_pages import OcrState
from tests.ocr.conftest import ZH_LINES, scan, scanned_pdf, text_pdf

REPO = Path(__file__).resolve().parents[2]
PAGES = [
    ["Chapter 1 Gearbox maintenance", "Drain the gearbox oil every 500 hours."],
    ["Chapter 2 Thermostat calibration", "Set the thermostat offset before the first run."],
    ["Chapter 3 Conveyor alignment", "Align the conveyor rollers with a laser level."],
    ["Chapter 4 Hydraulic pressure", "Check the hydraulic pressure gauge weekly."],
]


def library(path: Path, worker: bool = False) -> KnowledgeBase:
    return KnowledgeBase(path, pack_dir=None, parse_limits=ParseLimits() if worker else None)


def found(kb: KnowledgeBase, word: str) -> list[tuple[str, int | None]]:
    return [(Path(r.path).name, r.page) for r in kb.search(word, mode="lexical").results]


def test_image_only_pdf_is_searchable_after_ocr_in_the_worker(tmp_path: Path) -> None:
    pdf = scanned_pdf(tmp_path / "service.pdf", PAGES[:2])
    with library(tmp_path / "lib", worker=True) as kb:
        [report] = kb.import_paths([pdf]).files
        assert report.ok and report.chunks == 0 and "needs OCR" in report.message
        assert kb.pending_ocr() == 2 and found(kb, "thermostat") == []
        seen = []
        ocr = kb.run_ocr(progress=seen.append)
        assert ocr.pages == 2 and not ocr.failed and not ocr.cancelled
        assert [(p.file, p.page) for p in seen] == [("service.pdf", 1), ("service.pdf", 2), ("", 0)]
        assert seen[1].seconds_left is not None and seen[-1].done == seen[-1].total == 2
        assert found(kb, "thermostat") == [("service.pdf", 2)]
        assert found(kb, "gearbox") == [("service.pdf", 1)]
        result = kb.search("thermostat", mode="lexical").results[0]
        assert result.why["ocr"] is True
        assert kb.ocr_states() == {report.doc_id: OcrState(done=2)}
        assert kb.documents()[0].warnings == "no usable text on pages 1–2; read by OCR"


def test_matched_words_are_boxed_on_the_scan(tmp_path: Path) -> None:
    pdf = scanned_pdf(tmp_path / "service.pdf", PAGES[:2])
    with library(tmp_path / "lib") as kb:
        [report] = kb.import_paths([pdf]).files
        kb.run_ocr()
        assert report.doc_id is not None
        [text] = [text for number, text in kb.pages(report.doc_id) if number == 2]
        start = text.index("offset")
        [box] = word_boxes(kb.ocr_lines(report.doc_id)[2], start, start + len("offset"))
    [truth] = text_pdf(PAGES[1])[0].search_for("offset")
    # Within a few points of where the word is printed on the scan: the mark sits on the word.
    assert abs(box[0] - truth.x0) < 6 and abs(box[2] - truth.x1) < 6
    assert box[1] < (truth.y0 + truth.y1) / 2 < box[3]


def test_mixed_pdf_text_pages_first_scanned_pages_after_ocr(tmp_path: Path) -> None:
    pdf = scanned_pdf(tmp_path / "mixed.pdf", [None, PAGES[2]])
    with library(tmp_path / "lib") as kb:
        [report] = kb.import_paths([pdf]).files
        assert report.chunks == 1 and kb.pending_ocr() == 1
        assert found(kb, "safety") == [("mixed.pdf", 1)]
        assert "ocr" not in kb.search("safety", mode="lexical").results[0].why
        kb.run_ocr()
        assert found(kb, "conveyor") == [("mixed.pdf", 2)]
        assert found(kb, "safety") == [("mixed.pdf", 1)]


def test_a_library_searched_before_ocr_knows_the_scans_language_after_it(tmp_path: Path) -> None:
    # Search keeps what it knows of the library (its languages, its size) until the library's text
    # changes; OCR adds text without adding a document, and must count as a change too.
    (tmp_path / "guide.txt").write_text("Guide\n\nClean the lens with a dry cloth.\n", encoding="utf-8")
    pdf = scanned_pdf(tmp_path / "camera.pdf", [ZH_LINES], fontname="china-s")
    with library(tmp_path / "lib") as kb:
        assert kb.import_paths([tmp_path / "guide.txt", pdf]).ok
        assert found(kb, "exposure") == []
        kb.run_ocr()
        # An English question reaches the Chinese scan through the dictionary (曝光), which is
        # only consulted for a library known to hold Chinese.
        assert found(kb, "exposure") == [("camera.pdf", 1)]


def test_png_jpeg_and_multi_page_tiff_are_read(tmp_path: Path) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    Image.fromarray(scan(PAGES[0])).save(folder / "label.png")
    Image.fromarray(scan(PAGES[1])).save(folder / "photo.jpg", quality=90)
    first, second = (Image.fromarray(scan(lines)) for lines in PAGES[2:])
    first.save(folder / "manual.tiff", save_all=True, append_images=[second], compression="tiff_deflate")
    with library(tmp_path / "lib") as kb:
        reports = kb.import_paths([folder]).files
        assert sorted((Path(r.path).name, r.outcome, r.pages) for r in reports) == [
            ("label.png", "imported", 1),
            ("manual.tiff", "imported", 2),
            ("photo.jpg", "imported", 1),
        ]
        assert kb.run_ocr().pages == 4
        assert found(kb, "gearbox") == [("label.png", 1)]
        assert found(kb, "thermostat") == [("photo.jpg", 1)]
        assert found(kb, "conveyor") == [("manual.tiff", 1)]
        assert found(kb, "hydraulic") == [("manual.tiff", 2)]


def test_an_empty_white_scan_is_done_with_nothing_to_find(tmp_path: Path) -> None:
    Image.new("L", (1275, 1650), 255).save(tmp_path / "blank.png")
    with library(tmp_path / "lib") as kb:
        [report] = kb.import_paths([tmp_path / "blank.png"]).files
        ocr = kb.run_ocr()
        assert ocr.pages == 1 and not ocr.failed
        assert kb.ocr_states() == {report.doc_id: OcrState(done=1)}
        assert kb.pending_ocr() == 0


def test_corrupt_and_oversized_images_fail_with_reason_and_lose_nothing(tmp_path: Path) -> None:
    good = tmp_path / "good.png"
    Image.fromarray(scan(PAGES[0])).save(good)
    broken = tmp_path / "broken.png"
    broken.write_bytes(good.read_bytes()[:3000])
    poster = tmp_path / "poster.png"
    Image.new("1", (10_000, 10_000), 1).save(poster)
    with library(tmp_path / "lib") as kb:
        kb.import_paths([good])
        kb.run_ocr()
        reports = {Path(r.path).name: r for r in kb.import_paths([broken, poster]).files}
        assert reports["broken.png"].kind == "corrupt"
        assert reports["broken.png"].message.startswith("broken.png: the image is damaged")
        assert reports["poster.png"].kind == "too large"
        assert reports["poster.png"].message == (
            "poster.png: image is 10000×10000 pixels (100 MP), over the 36 MP limit for OCR; "
            "scale it down and import it again"
        )
        assert kb.pending_ocr() == 0
        assert found(kb, "gearbox") == [("good.png", 1)]


def test_a_page_that_breaks_ocr_fails_alone(tmp_path: Path) -> None:
    pdf = scanned_pdf(tmp_path / "two.pdf", PAGES[:2])
    with library(tmp_path / "lib") as kb:
        kb.import_paths([pdf])
        # OCR reads the kept copy, or the original when the copy is gone: damage both after import
        # to make page reading fail.
        [doc] = kb.documents()
        assert doc.copy_path is not None
        kb.copies.remove([doc.copy_path])
        pdf.write_bytes(b"%PDF-1.7\n" + os.urandom(2000))
        ocr = kb.run_ocr()
        assert ocr.pages == 0 and len(ocr.failed) == 2
        assert all(message.startswith("two.pdf page") for message in ocr.failed)
        assert kb.pending_ocr() == 0


def _cli(data: Path, folder: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "KBAPP_MODEL_DIR": "/nonexistent/kbapp-test-no-pack", "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "kbapp", "--data-dir", str(data), "import", str(folder)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def test_kill_during_ocr_then_the_next_import_resumes(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    scanned_pdf(folder / "manual.pdf", PAGES)
    data = tmp_path / "lib"
    proc = _cli(data, folder)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("OCR       2/4"):  # page 1 is committed; page 2 is being read
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait(60)
    assert proc.returncode == -signal.SIGKILL, "".join(lines)
    with library(data) as kb:
        [state] = kb.ocr_states().values()
        assert state.done >= 1 and state.pending >= 1 and state.done + state.pending == 4
        left = state.pending
    resumed = _cli(data, folder)
    output, _ = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, output
    assert f"OCR of {left} scanned pages" in output and "UNCHANGED" in output
    with library(data) as kb:
        assert kb.ocr_states() == {1: OcrState(done=4)}
        for word, page in [("gearbox", 1), ("thermostat", 2), ("conveyor", 3), ("hydraulic", 4)]:
            assert found(kb, word) == [("manual.pdf", page)]


def test_a_scan_turned_on_its_side_is_found_on_its_page(tmp_path: Path) -> None:
    Image.fromarray(np.ascontiguousarray(np.rot90(scan(PAGES[3])))).save(tmp_path / "sideways.png")
    with library(tmp_path / "lib") as kb:
        kb.import_paths([tmp_path / "sideways.png"])
        kb.run_ocr()
        assert found(kb, "hydraulic") == [("sideways.png", 1)]


def _typeset_scan(path: Path, pages: list[list[tuple[str, float]]]) -> Path:
    """An image-only PDF whose pages hold (text, font size) lines, as a scanner would see them."""
    doc = pymupdf.open()
    for lines in pages:
        source = pymupdf.open()
        page = source.new_page()
        y = 80.0
        for text, size in lines:
            y += size * 1.8
            page.insert_text((72, y), text, fontsize=size)
        pix = page.get_pixmap(dpi=150, colorspace=pymupdf.csRGB, alpha=False)
        doc.new_page().insert_image(pymupdf.Rect(0, 0, 595, 842), pixmap=pix)
    doc.save(path)
    return path


def test_scanned_headings_head_their_passages_and_carry_over_to_the_next_page(tmp_path: Path) -> None:
    body = [
        ("The interrupt vector table lists one entry for each source of interrupts.", 10.0),
        ("Keep the service routine short and save every register it changes.", 10.0),
        ("Shared variables must be declared volatile so the compiler rereads them.", 10.0),
    ]
    pdf = _typeset_scan(
        tmp_path / "scanned.pdf",
        [
            [("Chapter 3 Using the compiler", 22.0), *body, ("3.8 Interrupt Service Routines", 14.0), *body],
            [("A critical function disables interrupts while it runs, then restores them.", 10.0), *body],
        ],
    )
    with library(tmp_path / "lib", worker=True) as kb:
        kb.import_paths([pdf])
        assert kb.run_ocr().pages == 2
        [first] = kb.search("interrupt service routines", mode="lexical").results[:1]
        assert first.heading == "Chapter 3 Using the compiler > 3.8 Interrupt Service Routines"
        results = kb.search("critical function disables", mode="lexical").results
        [critical] = [r for r in results if r.page == 2]
        assert critical.heading == "Chapter 3 Using the compiler > 3.8 Interrupt Service Routines"


def test_a_scanned_table_is_found_by_its_header_and_row(tmp_path: Path) -> None:
    """A question naming a column and a row's key lands on the row, under its header, as on a text layer."""
    source = pymupdf.open()
    page = source.new_page()
    page.insert_text(
        (72, 100), "The vector of each interrupt source is listed in the table below.", fontsize=10
    )
    rows = [("Interrupt", "Description", "Vector Address"), ("0", "External 0", "0x0003")]
    rows += [("1", "Timer 0", "0x000b"), ("2", "External 1", "0x0013"), ("3", "Timer 1", "0x001b")]
    for number, row in enumerate(rows):
        for x, cell in zip((90, 220, 380), row, strict=True):
            page.insert_text((x, 130 + 16 * number), cell, fontsize=10)
    pix = page.get_pixmap(dpi=150, colorspace=pymupdf.csRGB, alpha=False)
    scanned = pymupdf.open()
    scanned.new_page().insert_image(pymupdf.Rect(0, 0, 595, 842), pixmap=pix)
    scanned.save(tmp_path / "vectors.pdf")
    with library(tmp_path / "lib") as kb:
        kb.import_paths([tmp_path / "vectors.pdf"])
        assert kb.run_ocr().pages == 1
        [result] = [
            r for r in kb.search("Timer 1 vector address", mode="lexical").results if "Timer 1 |" in r.text
        ]
    assert "Interrupt | Description | Vector Address" in result.text
    assert any(
        row.startswith("3 | Timer 1 | 0x001") for row in result.text.splitlines()
    )  # OCR may misread the last digits
