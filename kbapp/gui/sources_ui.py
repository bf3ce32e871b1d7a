"""Wiring watched folders and collections into the main window, kept out of ``main_window``.

Adds the "Folders & collections" panel as a dock beside the library list, the collection
picker beside the search field, and the background sync; a finished sync that changed something
refreshes the library list, re-runs the search and queues semantic indexing of new passages.
Folders dropped on the window are watched instead of imported once while "keep in sync" is on.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QWidget

from kbapp.contract import Change
from kbapp.gui.collection_picker import CollectionPicker
from kbapp.gui.source_sync import SourceSync
from kbapp.gui.sources_panel import SourcesPanel

if TYPE_CHECKING:
    from kbapp.gui.main_window import MainWindow
    from kbapp.library import KnowledgeBase


class SourcesUi(QObject):
    def __init__(self, window: MainWindow, kb: KnowledgeBase) -> None:
        super().__init__(window)
        self._window = window
        self.panel = SourcesPanel()
        self.picker = CollectionPicker()
        self.sync = SourceSync(kb, self)
        self.dock = QDockWidget(self.tr("Folders && collections"), window)
        self.dock.setObjectName("sources")
        self.dock.setWidget(self.panel)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)
        window.tabifyDockWidget(window.dock, self.dock)
        window.dock.raise_()
        self._place_picker(window)

        self.sync.listed.connect(self._listed)
        self.sync.progress.connect(self.panel.show_progress)
        self.sync.finished.connect(self._synced)
        self.sync.error.connect(window.feedback.job_error)
        self.panel.watchRequested.connect(self.sync.watch)
        self.panel.unwatchRequested.connect(self.sync.unwatch)
        self.panel.syncRequested.connect(self.sync.sync_now)
        self.panel.createRequested.connect(self.sync.create_collection)
        self.panel.renameRequested.connect(self.sync.rename_collection)
        self.panel.deleteRequested.connect(self.sync.delete_collection)
        self.panel.addSelectedRequested.connect(
            lambda name: self.sync.add_to_collection(name, window.library.selected_ids())
        )
        self.picker.changed.connect(self._picked)
        self.panel.setEnabled(not kb.read_only)

    def _place_picker(self, window: MainWindow) -> None:
        """Beside the search field: the row the field sat in gets both."""
        parent = window.search_bar.parentWidget()
        column = parent.layout() if parent is not None else None
        assert column is not None
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        column.replaceWidget(window.search_bar, row)
        line.addWidget(window.search_bar, 1)
        line.addWidget(self.picker)

    def start(self) -> None:
        self.sync.start()

    def stop(self) -> None:
        self.sync.stop()

    def take_folders(self, paths: list[str]) -> list[str]:
        """Watch the dropped folders when "keep in sync" is on; returns the paths left to import."""
        if not self.panel.keep_in_sync.isChecked():
            return paths
        for folder in (p for p in paths if os.path.isdir(p)):
            self.sync.watch(folder, "".join(self.picker.selected()[:1]))
        return [p for p in paths if not os.path.isdir(p)]

    def _listed(self, sources: list[Any], collections: list[Any]) -> None:
        self.panel.show_sources(sources, collections)
        self.picker.set_collections([c.name for c in collections])

    def _picked(self) -> None:
        if self._window.searcher is not None:
            self._window.searcher.collections = self.picker.selected()
            self._window.search_flow.rerun()

    def _synced(self, report: Any) -> None:
        self.panel.show_report(report)
        if any(c.change is not Change.DUPLICATE for c in report.changes):  # a twin is reported each time
            self._window.listing.refresh()
            self._window.search_flow.rerun()
            self._window.jobs.finish_pending()
