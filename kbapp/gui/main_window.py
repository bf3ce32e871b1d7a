"""The main window: builds the widgets, lays them out, and joins the concerns that have modules of
their own (``search_flow``, ``results_area``, ``library_commands``, ``drop_import``, ``window_actions``,
``job_feedback``) to the library once it is open. It keeps only what links them: what a listing, a
finished job or a new model state changes on screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, Qt, Signal
from PySide6.QtGui import QCloseEvent, QPaintEvent
from PySide6.QtWidgets import QDockWidget, QMainWindow, QSplitter, QVBoxLayout, QWidget

from kbapp.contract import DocumentRecord, DocumentStatus, ImportReport, ModelState, OcrReport
from kbapp.gui.drop_import import DropImport
from kbapp.gui.job_feedback import JobFeedback
from kbapp.gui.jobs import LibraryJobs
from kbapp.gui.library_commands import LibraryCommands
from kbapp.gui.library_listing import LibraryListing, Listing
from kbapp.gui.library_panel import LibraryPanel
from kbapp.gui.notice_bar import NoticeBar
from kbapp.gui.operations import wait_for_all
from kbapp.gui.preview.pane import PreviewPane
from kbapp.gui.progress_panel import ProgressPanel
from kbapp.gui.qt_compat import emit
from kbapp.gui.results_area import ResultsArea
from kbapp.gui.search_bar import SearchBar
from kbapp.gui.search_flow import SearchFlow
from kbapp.gui.search_runner import SearchRunner
from kbapp.gui.settings import GEOMETRY, SPLITTER, STATE, app_settings
from kbapp.gui.sources_ui import SourcesUi
from kbapp.gui.status_bar import StatusBar
from kbapp.gui.window_actions import WindowActions

if TYPE_CHECKING:  # the core is imported when the library opens, after the window is on screen
    from kbapp.library import KnowledgeBase


class MainWindow(QMainWindow):
    """The window; ``attach(kb)`` connects it to a library (or pass ``kb`` right away).

    Built in two steps so it can be on screen before the core (SQLite, NumPy, ONNX Runtime,
    PyMuPDF) is even imported: ``app.run`` shows it, then opens the library and attaches it.
    """

    painted = Signal()  # the window's first paint: it is on screen
    libraryLoaded = Signal()  # the library panel shows the current documents
    resultsShown = Signal()  # a search response is on screen

    def __init__(self, kb: KnowledgeBase | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The library and its background services, set by attach():
        self.kb: KnowledgeBase = None  # type: ignore[assignment]
        self.jobs: LibraryJobs = None  # type: ignore[assignment]
        self.searcher: SearchRunner = None  # type: ignore[assignment]
        self.listing: LibraryListing = None  # type: ignore[assignment]
        self.sources: SourcesUi = None  # type: ignore[assignment]
        self._painted = False
        self.documents: list[DocumentRecord] = []
        self.library_loaded = False
        self.setWindowTitle(self.tr("kbapp — manuals search"))
        self.resize(1360, 860)

        self.search_bar = SearchBar()
        self.results_area = ResultsArea()
        self.preview = PreviewPane()
        self.progress = ProgressPanel()
        self.notice = NoticeBar()
        self.library = LibraryPanel()
        self.status = StatusBar()
        self.setStatusBar(self.status)
        self.drops = DropImport(self, self._build_layout())
        self.feedback = JobFeedback(self)
        self.commands = LibraryCommands(self)
        self.search_flow = SearchFlow(self)
        self.menu_actions = WindowActions(self)
        self.results_area.status.connect(self.status.showMessage)
        self.preview.status.connect(self.status.showMessage)
        self._restore_state()
        if kb is not None:
            self.attach(kb)

    def attach(self, kb: KnowledgeBase) -> None:
        """Connect the window to an open library and its background services."""
        self.kb = kb
        self.jobs = LibraryJobs(kb, self)
        self.searcher = SearchRunner(kb, self)
        self.listing = LibraryListing(kb, self)
        self.preview.attach(kb)
        self.feedback.attach(self.jobs)
        self.searcher.finished.connect(self.search_flow.show_response)
        self.searcher.failed.connect(self.search_flow.show_failure)
        self.listing.listed.connect(self._library_listed)
        self.listing.failed.connect(self.feedback.job_error)
        self.jobs.busyChanged.connect(self._busy_changed)
        self.jobs.importFinished.connect(self._import_finished)
        self.jobs.embeddingFinished.connect(self._embedding_finished)
        self.jobs.ocrFinished.connect(self._ocr_finished)
        self.jobs.libraryChanged.connect(self.listing.refresh)
        self.jobs.removed.connect(self.search_flow.rerun)
        self.jobs.modelChanged.connect(self._model_changed)
        self.sources = SourcesUi(self, kb)
        self._restore_docks()
        self.menu_actions.update_enabled()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            emit(self.painted)

    def _build_layout(self) -> QWidget:
        """Search and results beside the preview, the library docked on the left; returns the
        central widget."""
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(6, 6, 0, 6)
        column.addWidget(self.search_bar)
        column.addWidget(self.results_area, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.preview)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.notice)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.progress)
        self.setCentralWidget(central)
        self.dock = QDockWidget(self.tr("Library"), self)
        self.dock.setObjectName("library")
        self.dock.setWidget(self.library)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)
        self.resizeDocks([self.dock], [400], Qt.Orientation.Horizontal)
        return central

    def _restore_state(self) -> None:
        settings = app_settings()
        geometry = settings.value(GEOMETRY)
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        splitter = settings.value(SPLITTER)
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)
        else:
            self.splitter.setSizes([440, 520])

    def _restore_docks(self) -> None:
        """The docks' saved layout, once both docks exist: restored over the library dock alone,
        the saved tab group of two leaves a tab bar of its own over the menu bar."""
        state = app_settings().value(STATE)
        if isinstance(state, QByteArray):
            self.restoreState(state)

    # -- start and stop ---------------------------------------------------------------------

    def start(self) -> None:
        """Begin the background work of a fresh window: list the library, load the model, and
        look for an import that did not finish last time."""
        self.listing.refresh()
        self.jobs.load_model()
        self.jobs.check_interrupted()
        self.sources.start()
        self.feedback.show_notices()
        self.search_flow.rerun()  # whatever was typed while the library was opening

    def closeEvent(self, event: QCloseEvent) -> None:
        settings = app_settings()
        settings.setValue(GEOMETRY, self.saveGeometry())
        if self.sources is not None:  # without a library the sources dock was never made
            settings.setValue(STATE, self.saveState())
        if self.preview.isVisible():  # sizes with the preview hidden are not the user's choice
            settings.setValue(SPLITTER, self.splitter.saveState())
        if self.jobs is not None:
            self.jobs.cancel()
            self.sources.stop()
        self.preview.pdf_view.close_document()
        self.feedback.close_report()
        wait_for_all()
        super().closeEvent(event)

    # -- what the library's changes change on screen ----------------------------------------

    def _library_listed(self, listing: Listing) -> None:
        docs, embedded, semantic, ocr = listing
        self.documents = docs
        self.library.model.semantic = semantic
        self.library.set_documents(docs, embedded, ocr)
        ready = [d for d in docs if d.status == DocumentStatus.READY]
        self.status.set_library(len(ready), sum(d.chunk_count for d in ready))
        self.library_loaded = True
        self.update_idle_state()
        self.menu_actions.update_enabled()
        emit(self.libraryLoaded)

    def update_idle_state(self) -> None:
        """The preview only once there is something to preview, and the results area's page for
        when no query is typed."""
        if not self.library_loaded:
            return
        has_documents = any(d.status == DocumentStatus.READY for d in self.documents)
        # An empty library has nothing to preview: the welcome page gets the whole width.
        self.preview.setVisible(has_documents or self.jobs.busy)
        if not self.search_bar.text().strip():
            self.results_area.show_idle(has_documents, self.jobs.busy)

    def _busy_changed(self, busy: bool) -> None:
        if not busy:
            self.progress.finish()
        self.update_idle_state()
        self.menu_actions.update_enabled()

    def _import_finished(self, report: ImportReport) -> None:
        self.feedback.show_notices()
        self.feedback.report_import(report)
        self.search_flow.rerun()

    def _embedding_finished(self, complete: bool) -> None:
        self.feedback.report_embedding(complete)
        self.search_flow.rerun()

    def _ocr_finished(self, report: OcrReport) -> None:
        self.feedback.report_ocr(report)
        self.search_flow.rerun()  # the scanned pages' text may answer it now

    def _model_changed(self, state: str) -> None:
        self.feedback.show_model_state(state)
        if state != ModelState.LOADING:  # loading settled: notices, results and list may differ
            self.feedback.show_notices()
            self.search_flow.rerun()
            self.listing.refresh()
