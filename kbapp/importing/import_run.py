"""Running the files of an import job: written in groups, each file marked done in the journal in
the transaction that stores it, so an interrupted run can be resumed where it stopped.

Files are settled (unchanged? a duplicate?) and handed to the reader's session ahead of their
turn while it has room, so a reader that reads ahead works on the next files while the last ones
are stored; answers are taken, and files reported, in the job's order. A file whose decision
depends on one not yet written (the same path twice, the same content as a file being read)
waits until the group before it is written.

Failures of a file are reported in its ``FileReport`` and the run goes on; cancelling stops
between files (or kills the reads in progress) and drops what was read but not yet written; a
storage failure (disk full, read-only) propagates to the caller, leaving the job in the journal
to be resumed once the cause is fixed.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from kbapp.contract import ImportProgress, ImportReport
from kbapp.importing.copies import CopyStore
from kbapp.importing.importer import ToRead, settle, to_write
from kbapp.importing.reading import ImportCancelled, Reader, ReadSession
from kbapp.importing.write_group import Settled, WriteGroup
from kbapp.store import journal

AHEAD = 128  # files settled ahead of their turn, at most: two workers' queues (read_pool.DEPTH)


@dataclass(frozen=True, slots=True)
class RunContext:
    engine: Engine
    read: Reader
    copies: CopyStore
    keep_copies: bool


@dataclass(slots=True)
class _File:
    """A file of the job between being settled and being written."""

    job_id: int
    entry: journal.JobFile
    path: Path
    read_path: Path
    decision: Settled | ToRead
    announced: bool = False


def run_files(
    ctx: RunContext,
    files: list[tuple[int, journal.JobFile]],
    report: ImportReport,
    *,
    already_done: int,
    progress: Callable[[ImportProgress], None] | None,
    cancel: Callable[[], bool] | None,
) -> None:
    """Import ``files`` (job id, journal entry) not yet done; appends to ``report``."""
    run = _Run(ctx, report, already_done, already_done + len(files), progress, cancel)
    try:
        with ctx.read.session(cancel) as reads:
            run.run(deque(files), reads)
    finally:
        ctx.copies.tidy(run.read_paths)


class _Run:
    def __init__(
        self,
        ctx: RunContext,
        report: ImportReport,
        done: int,
        total: int,
        progress: Callable[[ImportProgress], None] | None,
        cancel: Callable[[], bool] | None,
    ) -> None:
        self.ctx = ctx
        self.report = report
        self.done = done
        self.total = total
        self.progress = progress
        self.cancel = cancel
        self.group = WriteGroup(ctx.engine, ctx.copies)
        self.ahead: deque[_File] = deque()  # settled, in job order, not yet in the group
        self.unwritten_paths: set[str] = set()  # of files being read or waiting in the group
        self.unwritten_contents: set[str] = set()  # their sha256
        self.blocked = False  # the next file waits for the group to be written
        self.read_paths: list[Path] = []  # kept copies read instead of the originals

    def run(self, waiting: deque[tuple[int, journal.JobFile]], reads: ReadSession) -> None:
        try:
            while waiting or self.ahead:
                if self.cancel is not None and self.cancel():
                    self.report.cancelled = True
                    return
                self._settle_ahead(waiting, reads)
                if self.ahead:
                    self._take(reads)
                else:
                    self._write()
            self._write()
        except ImportCancelled:
            self.report.cancelled = True
        finally:
            self.group.discard()

    def _settle_ahead(self, waiting: deque[tuple[int, journal.JobFile]], reads: ReadSession) -> None:
        """Settle the next files and hand those to be read to the readers, while they have room."""
        while waiting and not self.blocked and len(self.ahead) < AHEAD and reads.room():
            job_id, entry = waiting[0]
            file = self._settled(job_id, entry)
            if file is None:
                self.blocked = True
                return
            waiting.popleft()
            if isinstance(file.decision, ToRead):
                reads.submit(file.read_path, file.decision.facts.size)
                self.unwritten_paths.add(file.decision.facts.path)
                self.unwritten_contents.add(file.decision.facts.content_hash)
            self.ahead.append(file)

    def _settled(self, job_id: int, entry: journal.JobFile) -> _File | None:
        """The file's decision; None if it depends on a file not yet written."""
        path = Path(entry.path)
        if os.path.abspath(path) in self.unwritten_paths:
            return None
        read_path = self._read_path(entry)
        decision = settle(self.ctx.engine, path, read_path)
        if isinstance(decision, Settled) and decision.twin in self.unwritten_paths:
            return None
        if isinstance(decision, ToRead) and decision.facts.content_hash in self.unwritten_contents:
            return None
        return _File(job_id, entry, path, read_path, decision)

    def _read_path(self, entry: journal.JobFile) -> Path:
        """The file to read: the kept copy, when rebuilding (the original if the copy is gone since)."""
        source = self.ctx.copies.readable(entry.source) if entry.source else None
        if source is None:
            return Path(entry.path)
        self.read_paths.append(source)
        return source

    def _take(self, reads: ReadSession) -> None:
        """Add the next file's outcome to the group (its answer from the readers, if it was read);
        the group is written when due, or while the answer takes longer than the group may wait."""
        file = self.ahead[0]
        if not file.announced and self.progress is not None:
            self.progress(ImportProgress(self.done, self.total, file.entry.path))
        file.announced = True
        decision = file.decision
        if isinstance(decision, ToRead):
            outcome = reads.next(self.group.time_left())
            if outcome is None:
                self._write()
                return
            path, read_path = file.path, file.read_path
            item = to_write(path, read_path, decision, outcome, self.ctx.copies, self.ctx.keep_copies)
        else:
            item = decision
        self.ahead.popleft()
        self.group.add(item, (file.job_id, file.entry.ord))
        if self.group.due():
            self._write()

    def _write(self) -> None:
        """Write the group, then report its files (they are in the library now)."""
        reports = self.group.write()
        self.blocked = False
        reading = [file.decision.facts for file in self.ahead if isinstance(file.decision, ToRead)]
        self.unwritten_paths = {facts.path for facts in reading}
        self.unwritten_contents = {facts.content_hash for facts in reading}
        for file_report in reports:
            self.report.files.append(file_report)
            self.done += 1
            if self.progress is not None:
                self.progress(ImportProgress(self.done, self.total, file_report.path, file_report))
