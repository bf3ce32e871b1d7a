"""Scanned documents in the window: read by OCR in the background after their text pages are
searchable, with pages done/total in the progress panel, cancellable, giving way to a new import,
and resumed at the next start.

The scans are image-only PDFs made in the test (see ``tests/ocr``); the OCR models and the library
are real. Pages are read in this process, where the test can hold page 2 until it has acted, so it
acts while OCR is under way at a known page however fast the machine is (``tests/gui/test_jobs.py``
reads a scan in the worker processes).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbapp.contract import OcrState
from kbapp.gui.jobs import IMPORT, OCR, JobProgress
from tests.gui.conftest import WAIT_MS, drop_paths, screenshot, search
from tests.ocr.conftest import scanned_pdf

PAGES = [
    ["Chapter 1 Gearbox maintenance", "Drain the gearbox oil every 500 hours."],
    ["Chapter 2 Thermostat calibration", "Set the thermostat offset before the first run."],
    ["Chapter 3 Conveyor alignment", "Align the conveyor rollers with a laser level."],
    ["Chapter 4 Hydraulic pressure", "Check the hydraulic pressure gauge weekly."],
]
OCR_WAIT_MS = 240_000  # seconds a page on a shared 2-core machine


class PageTwo:
    """Page 2 of any scan is held before it is read: ``reached`` once OCR is there (page 1 is
    committed), read once ``go`` is set."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.go = threading.Event()


@pytest.fixture
def page_two(monkeypatch: pytest.MonkeyPatch) -> Iterator[PageTwo]:
    from kbapp.ocr import page_reader  # what the library's in-process page reader calls

    held = PageTwo()
    read = page_reader.ocr_page

    def ocr_page(path: Path, number: int) -> object:
        if number == 2:
            held.reached.set()
            held.go.wait(OCR_WAIT_MS / 1000)
        return read(path, number)

    monkeypatch.setattr(page_reader, "ocr_page", ocr_page)
    yield held
    held.go.set()  # never leave a reader waiting for a test that failed


def status_of(window, name: str) -> str:  # type: ignore[no-untyped-def]
    """The library panel's status of the document of file ``name`` ("" while it is not listed)."""
    model = window.library.model
    docs = [doc for doc in model.documents() if Path(doc.path).name == name]
    return str(model.status_text(docs[0])) if docs else ""


def found(window, word: str) -> list[tuple[str, int | None]]:  # type: ignore[no-untyped-def]
    return [(Path(r.path).name, r.page) for r in window.kb.search(word, mode="lexical").results]


def test_a_dropped_scan_is_read_in_the_background(qtbot, open_window, page_two, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdf = scanned_pdf(tmp_path / "service.pdf", PAGES[:3])
    window = open_window()
    ocr_steps: list[JobProgress] = []
    window.jobs.progress.connect(lambda p: ocr_steps.append(p) if p.kind == OCR else None)
    with qtbot.waitSignal(window.jobs.importFinished, timeout=WAIT_MS) as imported:
        drop_paths(window, [pdf])
    [report] = imported.args[0].files
    assert report.ok and "needs OCR" in report.message
    assert page_two.reached.wait(OCR_WAIT_MS / 1000)
    # Page 1 is read, page 2 under way: the panel counts pages, the library counts down, and page
    # 1 is searchable while the rest is read.
    qtbot.waitUntil(
        lambda: status_of(window, "service.pdf") == "Searchable · OCR pending on 2 pages", timeout=WAIT_MS
    )
    qtbot.waitUntil(lambda: "1 of 3 done" in window.progress.headline.text(), timeout=WAIT_MS)
    assert window.jobs.current_kind == OCR and window.progress.isVisible()
    assert window.progress.headline.text() == "Reading scanned pages (OCR): 1 of 3 done"
    assert window.progress.detail.text().startswith("service.pdf, page 2")
    search(qtbot, window, "gearbox")
    assert [(Path(r.path).name, r.page) for r in window.results_area.response.results] == [("service.pdf", 1)]
    qtbot.waitUntil(lambda: window.preview.shown_doc == report.doc_id, timeout=WAIT_MS)
    screenshot(window, "07-ocr-in-progress")
    with qtbot.waitSignal(window.jobs.ocrFinished, timeout=OCR_WAIT_MS) as finished:
        page_two.go.set()
    assert finished.args[0].pages == 3 and not finished.args[0].failed
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=WAIT_MS)

    # Every event says how many of the three pages are done, counting up.
    dones = [p.done for p in ocr_steps]
    assert {p.total for p in ocr_steps} == {3} and dones == sorted(dones) and dones[:2] == [0, 1]
    qtbot.waitUntil(lambda: status_of(window, "service.pdf") == "Searchable", timeout=WAIT_MS)
    assert window.kb.ocr_states() == {report.doc_id: OcrState(done=3)}
    assert "3 scanned pages read" in window.status.currentMessage()
    search(qtbot, window, "thermostat offset")
    assert [(Path(r.path).name, r.page) for r in window.results_area.response.results] == [("service.pdf", 2)]
    assert not window.progress.isVisible()
    qtbot.waitUntil(lambda: window.preview.page_label.text().startswith("2 /"), timeout=WAIT_MS)
    screenshot(window, "08-ocr-done")


def test_cancelled_ocr_leaves_the_rest_pending_and_the_next_start_reads_it(  # type: ignore[no-untyped-def]
    qtbot, open_window, page_two, tmp_path: Path
) -> None:
    pdf = scanned_pdf(tmp_path / "manual.pdf", PAGES)
    library = tmp_path / "library"
    window = open_window(data_dir=library)
    with qtbot.waitSignal(window.jobs.ocrFinished, timeout=OCR_WAIT_MS) as finished:
        drop_paths(window, [pdf])
        assert page_two.reached.wait(OCR_WAIT_MS / 1000)
        qtbot.waitUntil(lambda: window.jobs.current_kind == OCR, timeout=WAIT_MS)
        window.progress.cancel_button.click()
        page_two.go.set()  # the page under way is finished (read in this process), then OCR stops
    assert finished.args[0].cancelled and finished.args[0].pages == 2
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=WAIT_MS)
    assert window.kb.ocr_states() == {1: OcrState(pending=2, done=2)}
    qtbot.waitUntil(
        lambda: status_of(window, "manual.pdf") == "Searchable · OCR pending on 2 pages", timeout=WAIT_MS
    )
    assert "the other pages are read at the next import or start" in window.status.currentMessage()
    assert found(window, "thermostat") == [("manual.pdf", 2)]  # the pages read stay read
    assert found(window, "hydraulic") == []
    window.close()

    again = open_window(data_dir=library)  # returns once the start-up work is done
    assert again.kb.ocr_states() == {1: OcrState(done=4)}
    assert found(again, "hydraulic") == [("manual.pdf", 4)]
    qtbot.waitUntil(lambda: status_of(again, "manual.pdf") == "Searchable", timeout=WAIT_MS)


def test_an_import_dropped_during_ocr_goes_first(qtbot, open_window, page_two, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdf = scanned_pdf(tmp_path / "scan.pdf", PAGES[:3])
    notes = tmp_path / "notes.txt"
    notes.write_text("Valve notes\n\nTighten the valve bonnet to 30 N·m.\n", encoding="utf-8")
    window = open_window()
    said: list[str] = []
    window.jobs.started.connect(said.append)
    window.jobs.importFinished.connect(lambda report: said.append(Path(report.files[0].path).name))
    window.jobs.ocrFinished.connect(lambda report: said.append(f"read {report.pages}"))
    drop_paths(window, [pdf])
    assert page_two.reached.wait(OCR_WAIT_MS / 1000)
    qtbot.waitUntil(lambda: window.jobs.current_kind == OCR, timeout=WAIT_MS)
    with qtbot.waitSignal(window.jobs.importFinished, timeout=OCR_WAIT_MS):
        drop_paths(window, [notes])
        page_two.go.set()
    assert window.kb.ocr_states() == {1: OcrState(pending=1, done=2)}  # the notes went before page 3
    assert found(window, "bonnet") == [("notes.txt", None)]
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=OCR_WAIT_MS)
    # The OCR that gave way is not reported as finished; the one after the notes reads the rest.
    assert said == [IMPORT, "scan.pdf", OCR, IMPORT, "notes.txt", OCR, "read 1"]
    assert window.kb.pending_ocr() == 0 and found(window, "conveyor") == [("scan.pdf", 3)]
