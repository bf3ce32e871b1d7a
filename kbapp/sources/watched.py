"""The watched folders of one library: adding and removing them, and syncing them all in one pass.

This is what the façade exposes as ``KnowledgeBase.sources``; the CLI's ``watch`` and ``sync``
commands and the GUI's sources panel drive it. One sync runs at a time per library object (a
file notification arriving during a sync waits for it, and then finds little left to do).
Removing a watched folder keeps its documents: it stops following the folder, it does not undo
what it imported.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from kbapp.contract import Source, SourceError, StorageError, SyncProgress, SyncReport
from kbapp.importing.copies import CopyStore
from kbapp.importing.discovery import within
from kbapp.importing.readers import Readers
from kbapp.ingest.names import NOT_UTF8, recordable, shown
from kbapp.sources.apply import PlanRun, Target
from kbapp.sources.plan import make_plan
from kbapp.sources.scan import FolderScan, scan_folder
from kbapp.store import collections, sources
from kbapp.store.database import write_transaction
from kbapp.store.errors import classify

if TYPE_CHECKING:  # watchdog: imported by a window that watches, not by every library opened
    from kbapp.sources.watcher import FolderWatcher


def folder_of(path: str, folders: list[str]) -> str | None:
    """The watched folder a document's file lies in (the innermost, when folders nest)."""
    inside = [f for f in folders if path != f and within(path, f)]
    return max(inside, key=len, default=None)


class Library(Protocol):
    """What syncing needs of the façade that owns the watched folders."""

    engine: Engine  # replaced when a damaged library is rebuilt: read it at each sync
    copies: CopyStore
    keep_copies: bool
    data_dir: Path

    _readers: Readers

    def _remove_documents(self, doc_ids: Iterable[int]) -> int: ...

    def refresh_keyword_index(self) -> None: ...


class WatchedFolders:
    @classmethod
    def of(cls, library: Library) -> WatchedFolders:
        """The watched folders of a ``KnowledgeBase``: synced into its database and kept copies, read
        by its reader (the parse worker), removed by its removal."""
        return cls(
            lambda: Target(
                library.engine,
                library.copies,
                library.keep_copies,
                library._readers.files,
                library._remove_documents,
                library.refresh_keyword_index,
            ),
            library.data_dir,
        )

    def __init__(self, target: Callable[[], Target], data_dir: Path) -> None:
        self._target = target
        self._data_dir = data_dir
        self._lock = threading.Lock()

    def _key(self, folder: Path | str) -> str:
        return os.path.abspath(folder)

    def add(self, folder: Path | str, collection: str | None = None) -> Source:
        """Watch ``folder`` (feeding ``collection``, created if new); its files come in at the next sync."""
        key = self._key(folder)
        if not os.path.isdir(key):
            raise SourceError(f"{shown(key)}: not a folder")
        if not recordable(key):
            raise SourceError(f"{shown(key)}: {NOT_UTF8}")
        data = os.path.realpath(self._data_dir)
        real = os.path.realpath(key)
        if within(real, data) or within(data, real):
            raise SourceError(f"{key}: holds the library's own folder {self._data_dir}; it cannot be watched")
        with write_transaction(self._target().engine) as conn:
            collection_id = collections.ensure(conn, collection) if collection else None
            sources.add(conn, key, collection_id)
            found = sources.find(conn, key)
        assert found is not None
        return found

    def remove(self, folder: Path | str) -> None:
        with write_transaction(self._target().engine) as conn:
            if not sources.remove(conn, self._key(folder)):
                raise SourceError(f"{self._key(folder)}: not a watched folder")

    def watcher(self, on_change: Callable[[], None]) -> FolderWatcher:
        """A watcher of these folders calling ``on_change`` (on its own thread) after changes and rescans."""
        from kbapp.sources.watcher import FolderWatcher

        return FolderWatcher(lambda: [s.path for s in self.list()], on_change)

    folder_of = staticmethod(folder_of)

    def list(self) -> list[Source]:
        with self._target().engine.connect() as conn:
            return sources.listing(conn)

    def sync(
        self,
        progress: Callable[[SyncProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> SyncReport:
        """One pass over every watched folder: the library is made equal to what the online ones hold."""
        with self._lock:
            started = time.perf_counter()
            report = SyncReport()
            try:
                self._sync(report, progress, cancel)
            except (DBAPIError, OSError, StorageError) as exc:
                err = classify(exc, self._data_dir)
                if err is None:
                    raise
                report.error = f"{err.message}. The sync stopped; everything synced until then was kept."
            report.seconds = time.perf_counter() - started
            return report

    def _sync(
        self,
        report: SyncReport,
        progress: Callable[[SyncProgress], None] | None,
        cancel: Callable[[], bool] | None,
    ) -> None:
        target = self._target()
        with target.engine.connect() as conn:
            watched = sources.listing(conn)
            stored = {s.path: sources.stored_files(conn, s.path) for s in watched}
        scans: list[FolderScan] = []
        for source in watched:
            scan = scan_folder(
                source.path,
                last_device=source.device,
                holds_documents=bool(stored[source.path]),
                library_dir=self._data_dir,
            )
            scans.append(scan)
            report.problems += scan.problems
            if not scan.online:
                report.offline.append((source.path, scan.reason or "offline"))
        plan = make_plan(scans, {p: f for files in stored.values() for p, f in files.items()})
        report.unchanged = plan.unchanged
        if not plan.empty:
            try:
                PlanRun(target, report, progress, cancel).run(plan)
            finally:
                target.changed()
        with write_transaction(target.engine) as conn:
            for source, scan in zip(watched, scans, strict=True):
                if scan.online and source.collection is not None:
                    collections.add_documents(
                        conn,
                        collections.require(conn, source.collection),
                        sources.document_ids_under(conn, source.path),
                    )
                sources.record_sync(
                    conn,
                    source.id,
                    state="ok" if scan.online else "offline",
                    device=scan.device,
                    files=len(scan.files),
                    failures=sources.failures_under(conn, source.path),
                    message=scan.reason or ("; ".join(f"{p}: {w}" for p, w in scan.problems[:3]) or None),
                )
