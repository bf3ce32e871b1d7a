"""Keeping the library in step with its watched folders while the window is open.

A sync runs at start-up, whenever the folder watcher reports a change (file notifications,
debounced) and at every periodic rescan; each runs on a worker, never on the GUI thread, and a
request arriving during a sync runs once more after it. Syncs go beside the import queue rather
than through it (a rescan every minute must not flash the import progress panel): SQLite takes
one short write transaction at a time and the parse worker reads one file at a time, whoever asks.
Watched folders and collections are changed through here too, so the panel is refreshed after.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal

from kbapp.gui.operations import Operation, OperationContext, run_in_background
from kbapp.gui.qt_compat import emit

if TYPE_CHECKING:
    from kbapp.library import KnowledgeBase


class SourceSync(QObject):
    started = Signal()
    progress = Signal(object)  # SyncProgress
    finished = Signal(object)  # SyncReport
    listed = Signal(object, object)  # watched folders (list[Source]), collections (list[Collection])
    error = Signal(str)
    _poke = Signal()  # from the watcher's thread

    def __init__(self, kb: KnowledgeBase, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._kb = kb
        self._running: Operation | None = None
        self._again = False
        self.last_report: Any = None
        self._poke.connect(self.sync_now, Qt.ConnectionType.QueuedConnection)
        self.watcher = kb.sources.watcher(lambda: emit(self._poke))

    @property
    def busy(self) -> bool:
        return self._running is not None

    def start(self) -> None:
        """The start-up sync, then watching (a read-only library is searched, never synced)."""
        self.refresh()
        if not self._kb.read_only:
            self.sync_now()
            self.watcher.start()

    def stop(self) -> None:
        self.watcher.stop()
        if self._running is not None:
            self._running.cancel()

    def sync_now(self) -> None:
        if self._kb.read_only:
            return
        if self._running is not None:
            self._again = True
            return

        def work(ctx: OperationContext) -> Any:
            return self._kb.sources.sync(progress=ctx.report, cancel=ctx.cancelled)

        self._running = run_in_background(
            work,
            on_success=self._synced,
            on_failure=self._sync_failed,
            on_progress=lambda p: emit(self.progress, p),
        )
        emit(self.started)

    def _synced(self, report: Any) -> None:
        self._running = None
        self.last_report = report
        emit(self.finished, report)
        self.refresh()
        if self._again:
            self._again = False
            self.sync_now()

    def _sync_failed(self, err: BaseException) -> None:
        self._running = None
        emit(self.error, f"{type(err).__name__}: {err}")

    def refresh(self) -> None:
        run_in_background(
            lambda _ctx: (self._kb.sources.list(), self._kb.collections.list()),
            on_success=lambda value: emit(self.listed, *value),
            on_failure=self._failed,
        )

    def _failed(self, err: BaseException) -> None:
        emit(self.error, str(err))

    def _change(self, work: Any, *, then_sync: bool = False) -> None:
        """Run a change of watched folders or collections, then show the new state."""

        def done(_value: object) -> None:
            if then_sync:
                self.watcher.refresh()
                self.sync_now()
            self.refresh()

        run_in_background(lambda _ctx: work(), on_success=done, on_failure=self._failed)

    def watch(self, folder: str, collection: str | None = None) -> None:
        self._change(lambda: self._kb.sources.add(folder, collection or None), then_sync=True)

    def unwatch(self, folder: str) -> None:
        self._change(lambda: self._kb.sources.remove(folder), then_sync=True)

    def create_collection(self, name: str) -> None:
        self._change(lambda: self._kb.collections.create(name))

    def rename_collection(self, old: str, new: str) -> None:
        self._change(lambda: self._kb.collections.rename(old, new))

    def delete_collection(self, name: str) -> None:
        self._change(lambda: self._kb.collections.delete(name))

    def add_to_collection(self, name: str, doc_ids: list[int]) -> None:
        self._change(lambda: self._kb.collections.add(name, doc_ids))
