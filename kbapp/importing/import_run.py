"""Running the files of an import job: one after the other, each marked done in the journal as soon
as its document is committed, so an interrupted run can be resumed where it stopped.

Failures of a file are reported in its ``FileReport`` and the run goes on; cancelling stops between
files (or kills the read in progress); a storage failure (disk full, read-only) propagates to the
caller, leaving the job in the journal to be resumed once the cause is fixed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from kbapp.contract import ImportProgress, ImportReport
from kbapp.importing.copies import CopyStore
from kbapp.importing.importer import import_file
from kbapp.importing.reading import ImportCancelled, Reader
from kbapp.store import journal
from kbapp.store.database import write_transaction


@dataclass(frozen=True, slots=True)
class RunContext:
    engine: Engine
    read: Reader
    copies: CopyStore
    keep_copies: bool


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
    total = already_done + len(files)
    done = already_done
    for job_id, entry in files:
        if cancel is not None and cancel():
            report.cancelled = True
            return
        if progress is not None:
            progress(ImportProgress(done, total, entry.path))
        try:
            file_report = import_file(
                ctx.engine,
                Path(entry.path),
                read=ctx.read,
                copies=ctx.copies,
                keep_copy=ctx.keep_copies,
                source=Path(entry.source) if entry.source else None,
                cancel=cancel,
            )
        except ImportCancelled:
            report.cancelled = True
            return
        with write_transaction(ctx.engine) as conn:
            journal.mark_done(conn, job_id, entry.ord, str(file_report.outcome), file_report.message)
        report.files.append(file_report)
        done += 1
        if progress is not None:
            progress(ImportProgress(done, total, entry.path, file_report))
