"""Scanned documents in the window: read by OCR in the background after their text pages are
searchable, with pages done/total in the progress panel, cancellable, and resumed at the next start.

The scans are image-only PDFs made in the test (see ``tests/ocr``); the OCR models and the library
are real.
"""

from __future__ import annotations

from pathlib import Path

from kbapp.contract import OcrState
from kbapp.gui.jobs import IMPORT, OCR, JobProgress
from kbapp.library.knowledge_base import ParseLimits
from tests.gui.conftest import WAIT_MS, drop_paths, screenshot, search
from tests.ocr.conftest import scanned_pdf

PAGES = [
    ["Chapter 1 Gearbox maintenance", "Drain the gearbox oil every 500 hours."],
    ["Chapter 2 Thermostat calibration", "Set the thermostat offset before the first run."],
    ["Chapter 3 Conveyor alignment", "Align the conveyor rollers with a laser level."],
    ["Chapter 4 Hydraulic pressure", "Check the hydraulic pressure gauge weekly."],
]
OCR_WAIT_MS = 240_000  # seconds a page on a shared 2-core machine, plus the OCR worker's start


def status_of(window, name: str) -> str:  # type: ignore[no-untyped-def]
    """The library panel's status of the document of file ``name`` ("" while it is not listed)."""
    model = window.library.model
    docs = [doc for doc in model.documents() if Path(doc.path).name == name]
    return str(model.status_text(docs[0])) if docs else ""


def found(window, word: str) -> list[tuple[str, int | None]]:  # type: ignore[no-untyped-def]
    return [(Path(r.path).name, r.page) for r in window.kb.search(word, mode="lexical").results]


def test_a_dropped_scan_is_read_in_the_background(qtbot, open_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdf = scanned_pdf(tmp_path / "service.pdf", PAGES[:3])
    window = open_window(parse_limits=ParseLimits())  # read in the worker processes, as in the app
    ocr_steps: list[JobProgress] = []
    window.jobs.progress.connect(lambda p: ocr_steps.append(p) if p.kind == OCR else None)
    statuses: list[str] = []
    window.libraryLoaded.connect(lambda: statuses.append(status_of(window, "service.pdf")))
    with qtbot.waitSignal(window.jobs.ocrFinished, timeout=OCR_WAIT_MS) as finished:
        with qtbot.waitSignal(window.jobs.importFinished, timeout=WAIT_MS) as imported:
            drop_paths(window, [pdf])
        [report] = imported.args[0].files
        assert report.ok and "needs OCR" in report.message
        qtbot.waitUntil(lambda: any(p.done >= 1 for p in ocr_steps), timeout=OCR_WAIT_MS)
        assert window.jobs.current_kind == OCR and window.progress.isVisible()
        assert window.progress.headline.text().startswith("Reading scanned pages (OCR): ")
        assert "service.pdf, page " in window.progress.detail.text()
        screenshot(window, "07-ocr-in-progress")
    assert finished.args[0].pages == 3 and not finished.args[0].failed
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=WAIT_MS)

    # Every event says how many of the three pages are done, counting up.
    dones = [p.done for p in ocr_steps]
    assert {p.total for p in ocr_steps} == {3} and dones == sorted(dones) and dones[0] == 0
    # The library panel counted the pending pages down as they were read, then dropped the note.
    pending = [int(s.split("OCR pending on ")[1].split()[0]) for s in statuses if "OCR pending" in s]
    assert pending[0] == 3 and pending == sorted(pending, reverse=True) and min(pending) < 3
    qtbot.waitUntil(lambda: status_of(window, "service.pdf") == "Searchable", timeout=WAIT_MS)
    assert window.kb.ocr_states() == {report.doc_id: OcrState(done=3)}
    assert "3 scanned pages read" in window.status.currentMessage()
    search(qtbot, window, "thermostat offset")
    assert [(Path(r.path).name, r.page) for r in window.results_area.response.results] == [("service.pdf", 2)]
    assert not window.progress.isVisible()
    screenshot(window, "08-ocr-done")


def test_cancelled_ocr_leaves_the_rest_pending_and_the_next_start_reads_it(  # type: ignore[no-untyped-def]
    qtbot, open_window, tmp_path: Path
) -> None:
    pdf = scanned_pdf(tmp_path / "manual.pdf", PAGES)
    library = tmp_path / "library"
    window = open_window(data_dir=library)
    read: list[int] = []
    window.jobs.progress.connect(lambda p: read.append(p.done) if p.kind == OCR else None)
    with qtbot.waitSignal(window.jobs.ocrFinished, timeout=OCR_WAIT_MS) as finished:
        drop_paths(window, [pdf])
        qtbot.waitUntil(lambda: any(done >= 1 for done in read), timeout=OCR_WAIT_MS)
        window.progress.cancel_button.click()
    assert finished.args[0].cancelled
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=WAIT_MS)
    [state] = window.kb.ocr_states().values()
    assert state.done >= 1 and state.pending >= 1 and state.done + state.pending == 4
    qtbot.waitUntil(
        lambda: status_of(window, "manual.pdf") == f"Searchable · OCR pending on {state.pending} pages",
        timeout=WAIT_MS,
    )
    assert "the other pages are read at the next import or start" in window.status.currentMessage()
    assert found(window, "gearbox") == [("manual.pdf", 1)]  # the pages read stay read
    window.close()

    again = open_window(data_dir=library)  # returns once the start-up work is done
    assert again.kb.ocr_states() == {1: OcrState(done=4)}
    assert found(again, "hydraulic") == [("manual.pdf", 4)]
    qtbot.waitUntil(lambda: status_of(again, "manual.pdf") == "Searchable", timeout=WAIT_MS)


def test_an_import_dropped_during_ocr_goes_first(qtbot, open_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdf = scanned_pdf(tmp_path / "scan.pdf", PAGES[:3])
    notes = tmp_path / "notes.txt"
    notes.write_text("Valve notes\n\nTighten the valve bonnet to 30 N·m.\n", encoding="utf-8")
    window = open_window()
    said: list[str] = []
    window.jobs.started.connect(said.append)
    window.jobs.importFinished.connect(lambda report: said.append(Path(report.files[0].path).name))
    window.jobs.ocrFinished.connect(lambda report: said.append(f"read {report.pages}"))
    drop_paths(window, [pdf])
    qtbot.waitUntil(lambda: window.jobs.current_kind == OCR, timeout=OCR_WAIT_MS)
    with qtbot.waitSignal(window.jobs.importFinished, timeout=OCR_WAIT_MS):
        drop_paths(window, [notes])
    assert window.kb.pending_ocr() > 0  # the notes went first: the scan's pages wait
    assert found(window, "bonnet") == [("notes.txt", None)]
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=OCR_WAIT_MS)
    # The OCR that gave way is not reported as finished; the one after the notes reads the rest.
    assert said[:6] == [IMPORT, "scan.pdf", OCR, IMPORT, "notes.txt", OCR]
    assert len(said) == 7 and said[6].startswith("read ")
    assert window.kb.pending_ocr() == 0 and found(window, "conveyor") == [("scan.pdf", 3)]
