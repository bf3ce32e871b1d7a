"""The real window, driven as a user would: drop a folder, type, read, copy, open, cancel."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pymupdf
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QInputMethodEvent, QTextDocument
from PySide6.QtWidgets import QApplication

from kbapp.gui.jobs import IMPORT
from kbapp.gui.results_view import HtmlRole
from kbapp.gui.search_runner import SearchRequest
from kbapp.library.knowledge_base import ParseLimits
from tests.gui.conftest import WAIT_MS, drop_paths, import_by_drop, screenshot, search
from tests.gui.slow_parser import slow_parse


def rows(window) -> list[str]:  # type: ignore[no-untyped-def]
    model = window.results_area.results_view.model()
    return [model.index(i).data(HtmlRole) for i in range(model.rowCount())]


def plain(html: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


def test_first_launch_shows_what_to_drop(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    area = window.results_area
    assert area.stack.currentWidget() is area.welcome
    assert (
        "Drop PDFs, Word, Markdown, text or HTML files or whole folders here" in area.welcome.drop_hint.text()
    )
    assert area.welcome.sample_button.text() == "Try the sample library"
    assert not window.menu_actions.context_action.isEnabled()
    screenshot(window, "01-first-launch")


def test_sample_library_button_imports_it(qtbot, open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    area = window.results_area
    with qtbot.waitSignal(window.jobs.importFinished, timeout=WAIT_MS) as finished:
        area.welcome.sample_button.click()
    report = finished.args[0]
    assert report.ok and len(report.files) >= 4
    qtbot.waitUntil(lambda: area.stack.currentWidget() is area.message_page, timeout=WAIT_MS)
    search(qtbot, window, "E5021")
    assert {Path(r.path).suffix for r in area.response.results} >= {".md", ".pdf"}


def test_drop_folder_then_search_english_and_chinese(qtbot, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window(parse_limits=ParseLimits())  # files are read in the worker process, as in the app
    area = window.results_area
    report = import_by_drop(qtbot, window, [manuals])
    outcomes = [(Path(f.path).name, str(f.outcome), f.message) for f in report.files]
    assert [Path(f.path).name for f in report.failed] == ["broken.pdf"], outcomes
    dialog = window.feedback.report_dialog
    assert dialog is not None and dialog.isVisible()
    assert "broken.pdf" in dialog.reasons()
    assert dialog.reasons()["broken.pdf"]  # a reason, not just a name
    dialog.close()
    qtbot.waitUntil(lambda: window.library.model.rowCount() == 6, timeout=WAIT_MS)
    statuses = {
        window.library.model.index(r, 0).data(): window.library.model.index(r, 1).data() for r in range(6)
    }
    assert statuses["broken.pdf"].startswith("Failed: ")

    search(qtbot, window, "exposure trigger")
    html = rows(window)
    assert html and area.stack.currentWidget() is area.results_view
    for n, row in enumerate(html, start=1):
        assert row.startswith(f"<b>[{n}]</b>")
    assert any(">exposure</span>" in row.casefold() for row in html)

    # Typed through an input method, as Chinese is: search-as-you-type fires after the debounce.
    window.search_bar.clear()
    typed = QInputMethodEvent()
    typed.setCommitString("曝光时间")
    with qtbot.waitSignal(window.resultsShown, timeout=WAIT_MS):
        QApplication.sendEvent(window.search_bar, typed)
    qtbot.waitUntil(lambda: window.preview.shown_doc == area.response.results[0].doc_id, timeout=WAIT_MS)
    first = rows(window)[0]
    assert ">曝光时间</span>" in first
    assert "camera_zh" in area.response.results[0].path
    screenshot(window, "03-results-text-preview")


def test_document_markup_is_shown_as_text(qtbot, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    import_by_drop(qtbot, window, [manuals / "valve_notes.txt"])
    search(qtbot, window, "valve bonnet")
    row = rows(window)[0]
    assert "<script>" not in row and "<b>bold</b>" not in row
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in row and "&lt;b&gt;bold&lt;/b&gt;" in row
    assert "<script>alert(1)</script>" in plain(row) and "<b>bold</b>" in plain(row)
    qtbot.waitUntil(
        lambda: window.preview.result is not None and window.preview.text_view.passage_range is not None,
        timeout=WAIT_MS,
    )
    assert "<script>alert(1)</script>" in window.preview.text_view.toPlainText()


def test_keyboard_copy_and_copy_as_context(qtbot, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    import_by_drop(qtbot, window, [manuals / "camera_en.md", manuals / "pump.pdf"])
    search(qtbot, window, "coupling exposure")
    results = window.results_area.response.results
    assert len(results) >= 2
    view = window.results_area.results_view
    qtbot.keyClick(window.search_bar, Qt.Key.Key_Down)  # from the field into the list
    assert view.hasFocus() or QApplication.focusWidget() is view
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.currentIndex().row() == 1
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    second = results[1]
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith(f"[2] {second.text.strip()[:30]}")
    assert copied.endswith(
        f"(source: {Path(second.path).name}{', p. ' + str(second.page) if second.page else ''})"
    )

    window.menu_actions.context_action.trigger()
    context = QGuiApplication.clipboard().text()
    first_line = context.splitlines()[0]
    assert "ignore any passage that does not" in first_line
    assert "Question: coupling exposure" in context
    for r in results[:5]:
        assert f"[{r.citation}] " in context
    assert "(source: pump.pdf, p. 2)" in context


def test_pdf_result_shows_the_page_with_marks(qtbot, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    import_by_drop(qtbot, window, [manuals / "pump.pdf", manuals / "camera_en.md"])
    with qtbot.waitSignal(window.preview.ready, timeout=WAIT_MS):
        search(qtbot, window, "coupling alignment")
    result = window.preview.result
    assert result is not None and Path(result.path).name == "pump.pdf" and result.page == 2
    pdf = window.preview.pdf_view
    assert window.preview.stack.currentWidget() is pdf and pdf.page_number == 2
    image = pdf.rendered_image()
    assert image is not None and image.width() > 300

    terms = result.why["matched_terms"]
    with pymupdf.open(manuals / "pump.pdf") as doc:
        expected = {(round(r.x0), round(r.y0)) for t in terms for r in doc[1].search_for(t)}
        on_page = doc[1].search_for("coupling")
    marked = {(round(r.x0), round(r.y0)) for r in pdf.highlight_rects}
    assert marked and marked <= expected  # marks sit on the matched words of the cited page
    # The mark is painted: the pixel in the middle of the first rectangle is tinted, not white paper.
    scale = pdf.page_scale()
    rect = on_page[0]
    pixel = image.pixelColor(int((rect.x0 + rect.x1) / 2 * scale), int((rect.y0 + rect.y1) / 2 * scale))
    assert pixel.blue() < 200 and pixel.red() > 150
    screenshot(window, "04-results-pdf-preview")

    window.preview.prev_button.click()
    assert pdf.page_number == 1 and not pdf.highlight_rects  # the passage is on page 2 only
    pdf.verticalScrollBar().setValue(pdf.verticalScrollBar().maximum())
    qtbot.keyClick(pdf, Qt.Key.Key_PageDown)  # at the end of a page: turns to the next
    assert pdf.page_number == 2
    qtbot.keyClick(pdf, Qt.Key.Key_PageUp)
    qtbot.keyClick(pdf, Qt.Key.Key_PageUp)
    assert pdf.page_number == 1
    window.preview.next_button.click()
    assert pdf.page_number == 2
    before = pdf.rendered_image().width()
    window.preview.zoom_in_button.click()
    assert pdf.rendered_image().width() > before


def test_text_preview_marks_passage_after_astral_characters(qtbot, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    import_by_drop(qtbot, window, [manuals / "wrench_🔧.txt"])
    with qtbot.waitSignal(window.preview.ready, timeout=WAIT_MS):
        search(qtbot, window, "calibration")
    view = window.preview.text_view
    assert window.preview.stack.currentWidget() is view
    result = window.preview.result
    assert view.marked_text() == result.text
    text = view.toPlainText()
    utf16 = text.encode("utf-16-le")
    marked = {utf16[2 * a : 2 * b].decode("utf-16-le") for a, b in view.term_ranges}
    assert marked == {"calibration"}


def test_nothing_found_is_said_plainly(qtbot, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    area = window.results_area
    import_by_drop(qtbot, window, [manuals / "camera_en.md"])
    search(qtbot, window, "zebra giraffe")
    assert area.stack.currentWidget() is area.message_page
    assert area.message_page.title.text() == "Nothing found for “zebra giraffe”"
    assert "No passage in the library contains these words." in area.message_page.body.text()
    assert area.results_view.model().rowCount() == 0 and not window.menu_actions.context_action.isEnabled()
    screenshot(window, "05-no-results")


def test_search_only_selected_documents(qtbot, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    area = window.results_area
    import_by_drop(qtbot, window, [manuals / "camera_en.md", manuals / "camera_zh.txt"])
    qtbot.waitUntil(lambda: window.library.model.rowCount() == 2, timeout=WAIT_MS)
    search(qtbot, window, "E5021")
    assert {Path(r.path).name for r in area.response.results} == {"camera_en.md", "camera_zh.txt"}
    table = window.library.table
    row = next(r for r in range(2) if table.model().index(r, 0).data() == "XK-200 相机说明书")
    with qtbot.waitSignal(window.resultsShown, timeout=WAIT_MS):
        table.selectRow(row)
        window.library.scope.setChecked(True)
    assert {Path(r.path).name for r in area.response.results} == {"camera_zh.txt"}
    assert "Searching only 1 selected documents." in area.info.text() or "1 selected" in area.info.text()


def test_cancel_half_way_leaves_a_consistent_library(qtbot, open_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(30):
        (folder / f"manual_{i:02d}.md").write_text(
            f"# Unit {i}\n\nReplace filter F-{i:03d} on unit {i} every {100 + i} hours.\n", encoding="utf-8"
        )
    window = open_window(parse=slow_parse, parse_limits=ParseLimits())
    with qtbot.waitSignal(window.jobs.importFinished, timeout=WAIT_MS) as finished:
        drop_paths(window, [folder])
        qtbot.waitUntil(
            lambda: window.progress.isVisible() and window.progress.bar.value() >= 5, timeout=WAIT_MS
        )
        assert window.jobs.current_kind == IMPORT
        assert "of 30" in window.progress.headline.text()
        # Searching keeps working while the import runs, and finds what is already in.
        search(qtbot, window, "filter")
        assert window.results_area.response.results
        qtbot.waitUntil(lambda: window.library.model.rowCount() > 0, timeout=WAIT_MS)  # listed as they come
        screenshot(window, "02-importing")
        window.progress.cancel_button.click()
    report = finished.args[0]
    assert report.cancelled and 5 <= len(report.files) < 30
    kb = window.kb
    assert kb.verify().ok
    docs = kb.documents()
    assert len(docs) == len(report.files)
    for doc in docs:  # every document is complete: its passages are all there and searchable
        assert doc.status == "ready" and doc.chunk_count >= 1
        assert kb.search(f"F-{int(doc.title.split()[-1]):03d}", mode="lexical").results
    qtbot.waitUntil(lambda: not window.progress.isVisible(), timeout=WAIT_MS)


def test_window_layout_is_remembered(qtbot, open_window, manuals: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window(data_dir=tmp_path / "first")
    assert not window.preview.isVisible()  # an empty library: the welcome page takes the width
    import_by_drop(qtbot, window, [manuals / "camera_en.md"])
    qtbot.waitUntil(window.preview.isVisible, timeout=WAIT_MS)  # shown once the library lists it
    window.splitter.setSizes([300, 700])
    sizes = window.splitter.sizes()
    window.close()
    again = open_window(data_dir=tmp_path / "first")
    assert again.splitter.sizes() == sizes


_LAUNCH = """
import sys, time
from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication
app = QApplication([])
from kbapp.gui.main_window import MainWindow
from kbapp.library import KnowledgeBase
kb = KnowledgeBase(sys.argv[1], autoload_model=False, pack_dir=None)
window = MainWindow(kb)
window.resize(1360, 860)
window.show()
window.start()
end = time.time() + 2
while time.time() < end:
    app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    time.sleep(0.02)
print(type(window.childAt(20, window.menuBar().height() // 2)).__name__)
window.close()
kb.close()
"""


def test_restored_docks_leave_no_tab_bar_over_the_menu(tmp_path: Path) -> None:
    """The docks' saved layout restored before the second dock existed left a tab bar of its own
    over the menu bar, from the second start on. It showed in a fresh process on Qt's default
    offscreen screen (800×800, smaller than the window), never in this test process's windows:
    hence fresh processes, each start with the settings the one before saved."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"))
    under = [
        subprocess.run(
            [sys.executable, "-c", _LAUNCH, str(tmp_path / "lib")],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout.split()[-1]
        for _ in range(3)
    ]
    assert under == ["QMenuBar"] * 3


def test_interrupted_import_is_offered_and_resumed(qtbot, open_window, manuals: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from kbapp.library import KnowledgeBase
    from kbapp.store import journal
    from kbapp.store.database import write_transaction

    library = tmp_path / "interrupted"
    files = [manuals / "camera_en.md", manuals / "camera_zh.txt"]
    # An import that was recorded but never ran, as after a crash.
    with KnowledgeBase(library, pack_dir=None, parse_limits=None) as kb, write_transaction(kb.engine) as conn:
        journal.start_job(conn, "import", [(str(f), None) for f in files])
    window = open_window(data_dir=library)
    qtbot.waitUntil(lambda: window.notice.isVisible() and window.notice.asks, timeout=WAIT_MS)
    assert "0 of 2 files were read" in window.notice.label.text()
    resume = next(b for b in window.notice.buttons if b.text() == "Resume import")
    with qtbot.waitSignal(window.jobs.importFinished, timeout=WAIT_MS):
        resume.click()
    assert not window.notice.isVisible()
    qtbot.waitUntil(lambda: window.library.model.rowCount() == 2, timeout=WAIT_MS)
    assert window.kb.interrupted_import() is None


def test_a_new_question_starts_at_its_first_result_and_a_rerun_keeps_the_one_read(  # type: ignore[no-untyped-def]
    qtbot, open_window, manuals: Path
) -> None:
    window = open_window()
    import_by_drop(qtbot, window, [manuals])
    view = window.results_area.results_view
    search(qtbot, window, "exposure trigger")
    last = view.model().rowCount() - 1
    assert last > 0
    view.setCurrentIndex(view.model().index(last))
    reading = window.preview.result
    with qtbot.waitSignal(window.resultsShown, timeout=WAIT_MS):
        window.search_flow.rerun()  # what an import or a changed scope does
    assert view.currentIndex().row() == last and window.preview.result == reading
    search(qtbot, window, "exposure time trigger")  # the passage read is among these results too
    assert reading.chunk_ids in [r.chunk_ids for r in window.results_area.response.results]
    assert view.currentIndex().row() == 0
    # A rerun whose best answer changed (vectors ready after a keyword-only first answer) moves a
    # reader who had not left [1] to the new [1]: the one selected was the old best, not a choice.
    shown = window.results_area.response
    swapped = replace(shown, results=[shown.results[1], shown.results[0], *shown.results[2:]])
    window.search_flow.show_response(SearchRequest(shown.query), swapped)
    assert view.currentIndex().row() == 0 and window.preview.result == swapped.results[0]
