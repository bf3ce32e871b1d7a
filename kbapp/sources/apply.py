"""Carrying out a sync plan: hash what changed, point moved documents at their new path, import
new and changed files through the ordinary import path, and remove documents whose file is gone.

Every step commits on its own, so a sync killed at any moment leaves a library that is consistent
and merely behind the folder; the next sync compares afresh and finishes the work (no journal is
needed: the folder itself is the list of what is left to do). Moves are recognised by content
hash before anything is imported or removed, so a renamed or moved file keeps its document id,
passages and vectors instead of being removed and read again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from kbapp.contract import Change, Outcome, SyncChange, SyncProgress, SyncReport
from kbapp.hashing import sha256_file
from kbapp.importing.copies import CopyStore
from kbapp.importing.importer import import_file
from kbapp.importing.reading import ImportCancelled, Reader
from kbapp.sources.plan import SyncPlan
from kbapp.sources.scan import FileStat
from kbapp.store import sources
from kbapp.store.database import write_transaction

_IMPORTED = {Outcome.IMPORTED: Change.ADDED, Outcome.UPDATED: Change.UPDATED, Outcome.FAILED: Change.FAILED}


@dataclass(frozen=True, slots=True)
class Target:
    """What a sync writes to: the library's database and kept copies, how it reads and removes, and
    what it tells once it has changed the library (``changed``: caches beside it catch up)."""

    engine: Engine
    copies: CopyStore
    keep_copies: bool
    reader: Callable[[], Reader]
    remove: Callable[[Iterable[int]], int]
    changed: Callable[[], None]


class PlanRun:
    def __init__(
        self,
        target: Target,
        report: SyncReport,
        progress: Callable[[SyncProgress], None] | None,
        cancel: Callable[[], bool] | None,
    ) -> None:
        self.target = target
        self.report = report
        self.progress = progress
        self.cancel = cancel
        self.done = 0
        self.total = 0

    def run(self, plan: SyncPlan) -> None:
        self.total = len(plan.new) + len(plan.changed) + len(plan.gone)
        gone_by_hash: dict[str, str] = {
            r.content_hash: path for path, r in plan.gone.items() if r.status == "ready"
        }
        for path, (stat, record) in plan.changed.items():
            if self._stopped():
                return
            self._changed(path, stat, record)
        for path, stat in plan.new.items():
            if self._stopped():
                return
            self._new(path, stat, plan, gone_by_hash)
        if self._stopped():
            return
        self.target.remove([record.id for record in plan.gone.values()])  # one commit
        for path, record in plan.gone.items():
            self._note(
                SyncChange(path, Change.REMOVED, f"{Path(path).name}: removed (file deleted)", record.id)
            )

    def _stopped(self) -> bool:
        if self.cancel is not None and self.cancel():
            self.report.cancelled = True
        return self.report.cancelled

    def _note(self, change: SyncChange) -> None:
        self.done += 1
        self.report.changes.append(change)
        if self.progress is not None:
            self.progress(SyncProgress(self.done, self.total, change.path, change))

    def _digest(self, path: str) -> str | None:
        try:
            return sha256_file(Path(path))
        except OSError as err:
            self._note(
                SyncChange(path, Change.FAILED, f"{Path(path).name}: cannot read file ({err.strerror})")
            )
            return None

    def _changed(self, path: str, stat: FileStat, record: sources.StoredFile) -> None:
        digest = self._digest(path)
        if digest is None:
            return
        if digest == record.content_hash and record.status == "ready":  # rewritten with the same bytes
            with write_transaction(self.target.engine) as conn:
                sources.touch_document(conn, record.id, stat.size, stat.mtime)
            self.report.unchanged += 1
            return
        self._import(path)

    def _new(self, path: str, stat: FileStat, plan: SyncPlan, gone_by_hash: dict[str, str]) -> None:
        digest = self._digest(path)
        if digest is None:
            return
        old = gone_by_hash.pop(digest, None)
        if old is None:
            self._import(path)
            return
        record = plan.gone.pop(old)
        self.target.copies.catalogue.add(path, digest, record.copy_path)  # before the commit, like imports
        with write_transaction(self.target.engine) as conn:
            sources.move_document(conn, record.id, path, stat.size, stat.mtime)
        self.target.copies.catalogue.remove([old])
        self._note(SyncChange(path, Change.MOVED, f"{Path(path).name}: moved from {old}", record.id))

    def _import(self, path: str) -> None:
        try:
            result = import_file(
                self.target.engine,
                Path(path),
                read=self.target.reader(),
                copies=self.target.copies,
                keep_copy=self.target.keep_copies,
                cancel=self.cancel,
            )
        except ImportCancelled:
            self.report.cancelled = True
            return
        change = _IMPORTED.get(result.outcome, Change.DUPLICATE)
        if result.outcome is Outcome.UNCHANGED:  # changed again between the scan and the read
            self.report.unchanged += 1
            return
        self._note(SyncChange(os.path.abspath(path), change, result.message, result.doc_id))
