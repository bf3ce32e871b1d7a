"""The import jobs of one library: starting them, running what they have left, and finding the ones
a crash or kill interrupted, so that any import can be resumed where it stopped.

Every import (a user's, a repair's re-import, the rebuild of a damaged library) is a job in the
journal (``kbapp.store.journal``) before its first file is read; a job is finished only when all
its files are done or the user cancelled it. A storage failure (disk full, read-only) ends the run
with a message saying what was kept, and the job stays to be resumed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from kbapp.contract import (
    ImportProgress,
    ImportReport,
    InterruptedImport,
    Outcome,
    StorageError,
    StorageProblem,
)
from kbapp.importing.copies import CopyStore
from kbapp.importing.discovery import discover
from kbapp.importing.import_run import RunContext, run_files
from kbapp.importing.reading import Reader
from kbapp.store import journal
from kbapp.store.database import write_transaction
from kbapp.store.errors import classify

Progress = Callable[[ImportProgress], None] | None
Cancel = Callable[[], bool] | None
_RESTORED = (Outcome.IMPORTED, Outcome.UPDATED, Outcome.UNCHANGED, Outcome.DUPLICATE)


class ImportJobs:
    def __init__(
        self,
        engine: Engine,
        data_dir: Path,
        copies: CopyStore,
        *,
        keep_copies: bool,
        read_only: bool,
        reader: Callable[[], Reader],
        notices: list[str],
    ) -> None:
        """``reader()`` gives the reader of the next run (it may start the parse worker); what a
        rebuild restored is appended to ``notices``."""
        self.engine = engine
        self._data_dir = data_dir
        self._copies = copies
        self._keep_copies = keep_copies
        self._read_only = read_only
        self._reader = reader
        self._notices = notices
        self._active: set[int] = set()  # jobs running in this process: not interrupted

    def writable(self) -> None:
        """Raise the storage error a write would meet, before anything is written."""
        if self._read_only:
            raise StorageError(StorageProblem.READ_ONLY, self._data_dir, "read-only file system")

    def import_paths(self, paths: Iterable[Path | str], progress: Progress, cancel: Cancel) -> ImportReport:
        def work(report: ImportReport) -> None:
            self.writable()
            self._reader()  # the worker starts while the folders are walked
            found = discover([Path(p) for p in paths], self._data_dir)
            report.problems = [(str(p), why) for p, why in found.problems]
            report.skipped = found.skipped
            with write_transaction(self.engine) as conn:
                job = journal.start_job(conn, "import", [(os.path.abspath(p), None) for p in found.files])
                self._active.add(job.id)  # before anyone can see it: it is not interrupted
            self._run([job], report, progress, cancel)

        return self._guarded(work)

    def resume(self, progress: Progress, cancel: Cancel) -> ImportReport:
        def work(report: ImportReport) -> None:
            jobs = self._interrupted_jobs()
            if not jobs:
                return
            self.writable()
            with write_transaction(self.engine) as conn:
                for job in jobs:
                    journal.claim_job(conn, job.id)
                    self._active.add(job.id)
            self._run(jobs, report, progress, cancel)

        return self._guarded(work)

    def run_new(self, kind: str, files: list[tuple[str, str | None]]) -> ImportReport:
        """Import ``files`` (path, kept copy to read instead) as a new job of ``kind``, unguarded."""
        report = ImportReport()
        with write_transaction(self.engine) as conn:
            job = journal.start_job(conn, kind, files)
            self._active.add(job.id)
        self._run([job], report, None, None)
        return report

    def interrupted(self) -> InterruptedImport | None:
        jobs = self._interrupted_jobs()
        if not jobs:
            return None
        done: list[str] = []
        remaining: list[str] = []
        with self.engine.connect() as conn:
            for job in jobs:
                for entry in journal.job_files(conn, job.id):
                    (done if entry.done else remaining).append(entry.path)
        return InterruptedImport(done, remaining)

    @property
    def recovering(self) -> bool:
        return any(j.kind == "recovery" for j in self._interrupted_jobs())

    def discard(self) -> None:
        jobs = self._interrupted_jobs()
        if jobs:
            with write_transaction(self.engine) as conn:
                for job in jobs:
                    journal.finish_job(conn, job.id)

    def _interrupted_jobs(self) -> list[journal.Job]:
        with self.engine.connect() as conn:
            jobs = journal.jobs(conn)
        return [
            j
            for j in jobs
            if (journal.is_own(j) and j.id not in self._active)
            or (not journal.is_own(j) and not journal.owner_alive(j))
        ]

    def _guarded(self, work: Callable[[ImportReport], None]) -> ImportReport:
        """Run ``work`` on a new report, timed; a storage failure ends it with a message saying what
        was kept."""
        started = time.perf_counter()
        report = ImportReport()
        try:
            work(report)
        except (DBAPIError, OSError, StorageError) as exc:
            err = classify(exc, self._data_dir)
            if err is None:
                raise
            hint = (
                " Free some space and import again to resume."
                if err.problem is StorageProblem.DISK_FULL
                else ""
            )
            report.error = (
                f"{err.message}. The import stopped; everything imported until then was kept.{hint}"
            )
        report.seconds = time.perf_counter() - started
        return report

    def _run(self, jobs: list[journal.Job], report: ImportReport, progress: Progress, cancel: Cancel) -> None:
        """Import what ``jobs`` (already marked active in this process) have left to do."""
        ctx = RunContext(self.engine, self._reader(), self._copies, self._keep_copies)
        pending: list[tuple[int, journal.JobFile]] = []
        already = 0
        with self.engine.connect() as conn:
            for job in jobs:
                for entry in journal.job_files(conn, job.id):
                    if entry.done:
                        already += 1
                    else:
                        pending.append((job.id, entry))
        try:
            run_files(ctx, pending, report, already_done=already, progress=progress, cancel=cancel)
            # A finished job, or an import the user cancelled, has nothing left to resume; a
            # cancelled rebuild of a damaged library stays, since only it can restore those files.
            with write_transaction(self.engine) as conn:
                for job in jobs:
                    if job.kind == "recovery" and report.cancelled:
                        continue
                    if job.kind == "recovery":
                        self._report_rebuild(conn, job)
                    journal.finish_job(conn, job.id)
        finally:
            self._active.difference_update(job.id for job in jobs)

    def _report_rebuild(self, conn: Connection, job: journal.Job) -> None:
        files = journal.job_files(conn, job.id)
        restored = [f for f in files if f.outcome in _RESTORED]
        lost = [f for f in files if f not in restored]
        names = ", ".join(Path(f.path).name for f in lost[:5])
        self._notices.append(
            f"The library was rebuilt: {len(restored)} of {len(files)} documents restored"
            + (f"; not restored: {names}." if lost else ".")
        )
