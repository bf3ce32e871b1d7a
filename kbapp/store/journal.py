"""The journal of running imports: which files an import was asked to read and which are done.

A job is written (all its files, in one transaction) before the first file is read, each file is
marked done when its document is committed, and the job is deleted when the import ends. A job
still present whose owner process is gone was interrupted (a crash, a kill, a power cut): the next
start can say which files were done and resume the rest. A file is marked done in the transaction
that stores its document, so the journal never says a file is done that the library lacks, nor
the other way round.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from kbapp.store.schema import import_files, import_jobs


@dataclass(frozen=True, slots=True)
class JobFile:
    ord: int
    path: str
    source: str | None  # the file to read, when not ``path`` itself (a kept copy)
    done: bool
    outcome: str | None
    message: str | None


@dataclass(frozen=True, slots=True)
class Job:
    id: int
    kind: str  # "import" | "recovery" | "repair"
    owner_pid: int
    owner_started: float
    created_at: float


def _process_started(pid: int) -> float | None:
    """When process ``pid`` started; None if it is gone (a killed process not yet reaped counts as gone)."""
    import psutil  # when a job is written or found: 10-15 ms a one-shot search does not pay

    try:
        process = psutil.Process(pid)
        return None if process.status() == psutil.STATUS_ZOMBIE else process.create_time()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None


@cache
def _own_start() -> float:
    return _process_started(os.getpid()) or 0.0


def owner_alive(job: Job) -> bool:
    """Whether the process that started ``job`` still runs (the same process, not a reused pid)."""
    started = _process_started(job.owner_pid)
    return started is not None and abs(started - job.owner_started) < 0.5


def is_own(job: Job) -> bool:
    return job.owner_pid == os.getpid() and abs(job.owner_started - _own_start()) < 0.5


def start_job(
    conn: Connection,
    kind: str,
    files: Sequence[tuple[str, str | None]],
    settled: Sequence[tuple[str, str, str]] = (),
) -> Job:
    """Record a job of ``files`` (path, source) to import; ``settled`` (path, outcome, message) are
    files already decided (e.g. lost beyond recovery) that the job reports but does not read."""
    job = Job(0, kind, os.getpid(), _own_start(), time.time())
    job_id = conn.execute(
        insert(import_jobs).values(
            kind=kind, owner_pid=job.owner_pid, owner_started=job.owner_started, created_at=job.created_at
        )
    ).inserted_primary_key[0]
    rows = [
        {
            "job_id": job_id,
            "ord": i,
            "path": path,
            "source": source,
            "done": 0,
            "outcome": None,
            "message": None,
        }
        for i, (path, source) in enumerate(files)
    ]
    rows += [
        {
            "job_id": job_id,
            "ord": len(files) + i,
            "path": path,
            "source": None,
            "done": 1,
            "outcome": outcome,
            "message": message,
        }
        for i, (path, outcome, message) in enumerate(settled)
    ]
    if rows:
        conn.execute(insert(import_files), rows)
    return Job(int(job_id), job.kind, job.owner_pid, job.owner_started, job.created_at)


def claim_job(conn: Connection, job_id: int) -> None:
    """Make this process the owner of an interrupted job it resumes (so no other one resumes it too)."""
    conn.execute(
        update(import_jobs)
        .where(import_jobs.c.id == job_id)
        .values(owner_pid=os.getpid(), owner_started=_own_start())
    )


@dataclass(frozen=True, slots=True)
class Done:
    """A file of a job that is finished: how it went, in the words of its report."""

    job_id: int
    ord: int
    outcome: str
    message: str


def mark_done(conn: Connection, files: Sequence[Done]) -> None:
    """Mark ``files`` done, in the transaction that stored their documents."""
    if files:
        conn.exec_driver_sql(
            "UPDATE import_files SET done = 1, outcome = ?, message = ? WHERE job_id = ? AND ord = ?",
            [(f.outcome, f.message, f.job_id, f.ord) for f in files],
        )


def finish_job(conn: Connection, job_id: int) -> None:
    conn.execute(delete(import_files).where(import_files.c.job_id == job_id))
    conn.execute(delete(import_jobs).where(import_jobs.c.id == job_id))


def jobs(conn: Connection) -> list[Job]:
    rows = conn.execute(select(import_jobs).order_by(import_jobs.c.id))
    return [Job(r.id, r.kind, r.owner_pid, r.owner_started, r.created_at) for r in rows]


def job_files(conn: Connection, job_id: int) -> list[JobFile]:
    rows = conn.execute(
        select(import_files).where(import_files.c.job_id == job_id).order_by(import_files.c.ord)
    )
    return [JobFile(r.ord, r.path, r.source, bool(r.done), r.outcome, r.message) for r in rows]
