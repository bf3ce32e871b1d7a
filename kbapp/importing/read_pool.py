"""Reading the files of an import in worker processes, answers handed back in file order.

An import asks for files through a ``session``: it submits files while the session has room and
takes the answers in the order it submitted them. Behind it, each worker has up to ``DEPTH`` files
queued, so neither the worker nor the importer waits for the other between small files. Answers
that arrive early (a small file read by one worker while another reads a large one) wait in the
session until their turn.

More workers (up to one per core, at most ``MAX_WORKERS``) are started only while the ones running
have a backlog (``SPREAD_BYTES`` or ``SPREAD_FILES`` queued each) and the machine left at least
``SPARE_CORES`` of its processors idle since the session began (or since it last looked): every
worker loads PyMuPDF and the tokenizer first (about a second of processor time), and on a busy
machine a second worker only competes with the first (measured on two cores shared with other
work: 1,000 small text files and 6 large PDFs both took longer with two workers than with one).
Idle time is measured, not guessed from the load average, which lags by a minute and on two cores
never left room once an import ran. On SciFact's 5,183 small files, where the importing process
is busy about half the time and the one reader all of it, a second reader took the import from
7.6-7.7 to 6.0 s (in one process, two runs each).

Documents other than plain text and Markdown come back parsed, for the importer to cut into
passages (``worker_process``); when one is on its way the session loads the importer's tokenizer
while it waits, so that loading overlaps the parsing. (The guess is made from the file's name: a
wrong one costs time, never a different result.)

One file at a time (a folder sync, a test) goes through the first worker. Sessions and single
reads take turns: a session holds the workers until it closes.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import wait
from pathlib import Path

import psutil

from kbapp.importing.parse_worker import POLL_SECONDS, Outcome, ParseWorker, Request, next_ticket, read_one
from kbapp.importing.reading import ImportCancelled, ReadResult
from kbapp.ingest.formats import SUFFIX_FORMATS, Format

_CUT_BY_WORKERS = (Format.TEXT, Format.MARKDOWN)

MAX_WORKERS = 4
# Files queued per worker: enough that it keeps reading while the importer writes a group (about
# 85 ms for 115 small files here, in which a worker reads 40 of them; its answers wait in the
# pipe). With 16 it ran dry during each write: 5,183 small text files took 14.3-15.2 s against
# 12.9-13.6 s with 64 (128 was no faster).
DEPTH = 64
# ... and at most this many bytes of files per worker (a first file is always let in). Answers that
# arrive before their turn (one worker's, while another reads a slow file) wait in memory: 64
# parsed manuals would be hundreds of megabytes, 64 small files are a few hundred kilobytes.
DEPTH_BYTES = 32 * 1024 * 1024
SPREAD_BYTES = 2 * 1024 * 1024
SPREAD_FILES = DEPTH // 2
# Idle processors (in cores) the machine must have left for another worker to start, measured over
# at least SPARE_WINDOW seconds: half a core, so a worker starts only where it gets at least that.
SPARE_CORES = 0.5
SPARE_WINDOW = 0.5


def worker_count() -> int:
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS))


def _cpu_times() -> tuple[float, float]:
    """Idle and total processor seconds of the whole machine, all cores together."""
    times = psutil.cpu_times()
    return times.idle + getattr(times, "iowait", 0.0), sum(times)


class _IdleMeter:
    """Whether the machine left ``SPARE_CORES`` idle since the last look (at least ``SPARE_WINDOW``
    seconds ago; until then it has not seen enough to say yes)."""

    def __init__(self) -> None:
        self._since = time.monotonic()
        self._times = _cpu_times()

    def core_to_spare(self) -> bool:
        now = time.monotonic()
        if now - self._since < SPARE_WINDOW:
            return False
        times = _cpu_times()
        idle, total = times[0] - self._times[0], times[1] - self._times[1]
        self._since, self._times = now, times
        return total > 0 and idle / total * (os.cpu_count() or 1) >= SPARE_CORES


class ReadPool:
    """The library's file readers: up to ``size`` worker processes made by ``make``, started when needed."""

    def __init__(self, make: Callable[[], ParseWorker], size: int) -> None:
        self._workers = [make() for _ in range(size)]
        self._lock = threading.Lock()  # an import and a folder sync may share the workers

    def start(self) -> None:
        """Start the first worker (in the background): the next import's first file needs it."""
        self._workers[0].start()

    def stop(self) -> None:
        for worker in self._workers:
            worker.stop()

    def __call__(self, path: Path, cancel: Callable[[], bool] | None = None) -> ReadResult:
        """Read one file (the ``Reader`` shape)."""
        with self._lock:
            return read_one(self._workers[0], Request(next_ticket(), Path(path)), cancel)

    @contextmanager
    def session(self, cancel: Callable[[], bool] | None) -> Iterator[PoolSession]:
        """Many files, read ahead; what is still being read when the session ends (an error, a
        cancel) is abandoned with the workers reading it."""
        with self._lock:
            session = PoolSession(self._workers, cancel)
            try:
                yield session
            finally:
                session.close()


class PoolSession:
    def __init__(self, workers: list[ParseWorker], cancel: Callable[[], bool] | None) -> None:
        self._workers = workers
        self._busy = 1  # workers in use: the first ones of the list
        self._queued = [0] * len(workers)  # bytes of files queued per worker
        self._files = [0] * len(workers)  # and how many
        self._idle = _IdleMeter()
        self._cancel = cancel
        self._order: deque[tuple[int, int, int]] = deque()  # (ticket, worker, size) in submission order
        self._answers: dict[int, Outcome] = {}
        self._cut_here = False  # a document coming back parsed has been submitted

    def room(self) -> bool:
        if not self._order:
            return True
        return len(self._order) < DEPTH * self._busy and sum(self._queued) < DEPTH_BYTES * self._busy

    def submit(self, path: Path, size: int) -> None:
        """Queue ``path`` (of ``size`` bytes) on the worker with the least queued, or a new worker if
        every one in use has a large backlog."""
        index = min(range(self._busy), key=lambda i: self._queued[i])
        backlog = self._queued[index] >= SPREAD_BYTES or self._files[index] >= SPREAD_FILES
        if backlog and self._busy < len(self._workers) and self._idle.core_to_spare():
            index, self._busy = self._busy, self._busy + 1
        request = Request(next_ticket(), path)
        self._workers[index].submit(request)
        self._cut_here = self._cut_here or SUFFIX_FORMATS.get(path.suffix.lower()) not in _CUT_BY_WORKERS
        self._queued[index] += size
        self._files[index] += 1
        self._order.append((request.ticket, index, size))

    def next(self, timeout: float | None) -> Outcome | None:
        """The answer for the oldest file submitted and not yet taken; None if ``timeout`` seconds
        passed first. Raises ``ImportCancelled`` when ``cancel`` says so."""
        ticket, index, size = self._order[0]
        deadline = None if timeout is None else time.monotonic() + timeout
        while ticket not in self._answers:
            for worker in self._workers[: self._busy]:
                self._answers.update((request.ticket, outcome) for request, outcome in worker.collect())
            if ticket in self._answers:
                break
            if self._cut_here:  # load the tokenizer (once) while the worker parses
                self._workers[0].count_tokens()
                self._cut_here = False
                continue
            if self._cancel is not None and self._cancel():
                raise ImportCancelled
            left = POLL_SECONDS if deadline is None else min(POLL_SECONDS, deadline - time.monotonic())
            if left <= 0:
                return None
            wait([w for worker in self._workers[: self._busy] for w in worker.waitables()], left)
        self._order.popleft()
        self._queued[index] -= size
        self._files[index] -= 1
        return self._answers.pop(ticket)

    def close(self) -> None:
        """Workers still reading files nobody will take are stopped (they restart when needed)."""
        for worker in self._workers:
            if worker.outstanding:
                worker.stop()
        self._order.clear()
        self._answers.clear()
