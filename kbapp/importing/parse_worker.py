"""Reading files in a separate process, so a file that hangs the reader, eats memory or crashes it
costs that one file ("sdk.pdf: parser exceeded 120 s, skipped"), never the import or the app.

A worker process is started (spawn: the same on every OS, and no threads or SQLite handles
inherited) and reused for file after file, since starting Python and loading PyMuPDF takes a
while; it is replaced after a timeout, a crash, a memory failure, or when it has grown large.
Several requests may be outstanding at once (``submit``/``collect``): the worker answers them in
order (``worker_process``), so it never waits for the importer between small files. Limits:

* time: each file may take ``seconds`` from the moment the worker could start on it (the answer
  to the one before arrived); then the worker is killed;
* memory: on Linux ``RLIMIT_AS`` caps the worker's address space (allocations beyond it fail,
  which the reader reports as MemoryError); where that is not available (Windows has no job
  objects in the standard library, macOS ignores RLIMIT_AS) the parent polls the worker's
  resident size with psutil and kills it when it is over;
* crashes (a segfault in a C library, ``os._exit``) are seen as the process dying without answer.

Only the file being read when the worker failed is lost: the requests queued behind it are sent
again to a fresh worker. Plain text and Markdown come back cut into passages; other documents
come back parsed and are cut here, with the importer's tokenizer (see ``worker_process``).

The same machinery reads single pages for the OCR stage: a worker built with a page reader
(``kbapp.ocr.page_reader.ocr_page``) is asked for ``(path, page)`` instead of a whole file.
The worker exits by itself when its parent dies (e.g. the app is killed), so no orphan keeps
parsing.
"""

from __future__ import annotations

import itertools
import multiprocessing
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import psutil

from kbapp.chunking import ChunkingConfig
from kbapp.chunking.splitter import TokenCounter
from kbapp.importing.limits import ParseLimits
from kbapp.importing.reader_start import start_reader, take
from kbapp.importing.reading import ImportCancelled, Parser, ReadResult, chunked, crash_error
from kbapp.importing.worker_process import Reply
from kbapp.ingest.document import IngestError, IngestErrorKind, ParsedDocument

PageParser = Callable[[Path, int], ParsedDocument]
Outcome = ReadResult | IngestError

_LINUX_RLIMIT = sys.platform.startswith("linux")
POLL_SECONDS = 0.2
_STARTUP_SECONDS = 120.0
_tickets = itertools.count(1)


def next_ticket() -> int:
    return next(_tickets)


@dataclass(frozen=True, slots=True)
class Request:
    """One file (or one page of it) asked of a worker; ``ticket`` matches it to its answer."""

    ticket: int
    path: Path
    page: int | None = None
    context: tuple[str, ...] = ()  # the heading path the page starts in (used here, not sent)

    @property
    def name(self) -> str:
        return self.path.name if self.page is None else f"{self.path.name} page {self.page}"


def _how_it_died(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return signal.Signals(-exitcode).name
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}" if exitcode is not None else "no answer"


class ParseWorker:
    """The importer's handle on one worker process.

    ``submit`` queues requests, ``collect`` gathers what was answered (waiting on ``waitables``
    in between); calling the worker reads one file and has the shape of a ``Reader``."""

    def __init__(
        self,
        parse: Parser | PageParser,
        chunking: ChunkingConfig,
        limits: ParseLimits,
        count_tokens: Callable[[], TokenCounter],
        tokenizer: Callable[[], Path | None],
        *,
        watch_memory: bool = not _LINUX_RLIMIT,
    ) -> None:
        """``count_tokens`` gives the importer's token counter (loaded on first use), ``tokenizer``
        the (verified) file it is loaded from, for the worker to load."""
        self._parse = parse
        self._chunking = chunking
        self.limits = limits
        self.count_tokens = count_tokens
        self._tokenizer = tokenizer
        self._watch_memory = watch_memory
        self.lock = threading.Lock()  # an import and a folder sync may share this worker
        self._proc: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        self._ready = False
        self._outstanding: deque[Request] = deque()
        self._start_error = ""
        self._head_since = 0.0  # when the worker could start on the oldest outstanding request

    @property
    def _memory_bytes(self) -> int:
        return self.limits.memory_mb * 1024 * 1024

    @property
    def outstanding(self) -> int:
        return len(self._outstanding)

    def start(self) -> None:
        """Start the worker if none is running; returns at once (it loads in the background)."""
        if self._proc is not None and self._proc.is_alive():
            return
        self._close()
        main_needed = getattr(self._parse, "__module__", None) == "__main__"
        # A process started ahead (``reader_start.prestart``) cannot unpickle a parser of the host's
        # main script: it was started without it.
        reader = None if main_needed else take()
        self._proc, self._conn = reader or start_reader(main_needed)
        self._ready = False
        self._head_since = time.monotonic()
        memory = 0 if self._watch_memory else self._memory_bytes
        self._conn.send((self._parse, self._chunking, memory))

    def stop(self) -> None:
        """Kill the worker; what was asked of it is forgotten."""
        self._outstanding.clear()
        self._close()

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(5)
            if self._proc.exitcode is not None:
                self._proc.close()
        self._proc, self._conn, self._ready = None, None, False

    def waitables(self) -> list[Any]:
        """What to ``multiprocessing.connection.wait`` on for this worker's answers or death."""
        if self._conn is None or self._proc is None:
            return []
        return [self._conn, self._proc.sentinel]

    def submit(self, request: Request) -> None:
        """Queue ``request``; the worker answers in order (``collect``)."""
        self._outstanding.append(request)
        if len(self._outstanding) == 1 or self._conn is not None:
            self._send(request)

    def _send(self, request: Request) -> None:
        """Send ``request``, starting a worker if there is none (a dead one with requests outstanding
        is left for ``collect`` to report). A worker that cannot start is reported by ``collect``."""
        try:
            if self._proc is None or (not self._proc.is_alive() and len(self._outstanding) == 1):
                self.start()
            assert self._conn is not None
            tokenizer = self._tokenizer()
            path, tok = str(request.path), str(tokenizer) if tokenizer else None
            self._conn.send((request.ticket, path, tok, request.page))
        except OSError as err:  # no process can be started (out of memory, process limit), or it died
            if self._proc is None:
                self._start_error = str(err.strerror or err)
            return
        if len(self._outstanding) == 1:
            self._head_since = time.monotonic()

    def collect(self) -> list[tuple[Request, Outcome]]:
        """The answers that have arrived, in order, and the failure of the file being read if the
        worker died, ran out of time or memory (it is then replaced and the rest sent again)."""
        out: list[tuple[Request, Outcome]] = []
        while self._conn is not None and self._outstanding and self._poll():
            reply = self._receive()
            if reply is None:
                break
            request = self._outstanding.popleft()
            self._head_since = time.monotonic()
            out.append((request, self._outcome(request, reply)))
            if reply[1] == "memory":
                self._restart()
        failure = self._failure()
        if failure is not None:
            out.append(self._fail_head(*failure))
        elif out and not self._outstanding:
            self._recycle_if_bloated()
        return out

    def _poll(self) -> bool:
        assert self._conn is not None
        try:
            if not self._conn.poll():
                return False
            if not self._ready:
                self._ready = self._conn.recv() == ("ready",)
                self._head_since = time.monotonic()
                return self._conn.poll()
            return True
        except (EOFError, OSError):
            return False

    def _receive(self) -> Reply | None:
        assert self._conn is not None
        try:
            return tuple(self._conn.recv())
        except (EOFError, OSError):
            return None
        except Exception as exc:  # an answer that cannot be unpickled
            return (0, "unreadable", crash_error(self._outstanding[0].path, exc))

    def _outcome(self, request: Request, reply: Reply) -> Outcome:
        kind = reply[1]
        if kind == "parsed":
            assert isinstance(reply[2], ParsedDocument)
            try:
                return chunked(reply[2], self.count_tokens(), self._chunking, request.context)
            except Exception as exc:  # a chunker bug costs this file only
                return crash_error(request.path, exc)
        if kind == "read":
            assert isinstance(reply[2], ReadResult)
            return reply[2]
        if kind == "memory":
            return IngestError(IngestErrorKind.TOO_LARGE, f"{request.name}: {self._over_memory}")
        if kind == "unreadable":
            assert isinstance(reply[2], IngestError)
            return reply[2]
        return IngestError(IngestErrorKind(reply[2]), str(reply[3]))

    def _failure(self) -> tuple[IngestErrorKind, str] | None:
        """How the file being read failed (kind, and what to say after its name), if the worker
        died, could not start or is over its limits."""
        if not self._outstanding:
            return None
        if self._proc is None:
            return IngestErrorKind.CRASHED, f"the reader process could not start ({self._start_error})"
        if not self._proc.is_alive():
            self._proc.join(1)
            how = _how_it_died(self._proc.exitcode)
            if not self._ready:
                return IngestErrorKind.CRASHED, f"the reader process could not start ({how})"
            return IngestErrorKind.CRASHED, f"the reader crashed ({how}), skipped"
        elapsed = time.monotonic() - self._head_since
        if not self._ready and elapsed > _STARTUP_SECONDS:
            return IngestErrorKind.CRASHED, "the reader process could not start (it did not answer)"
        if self._ready and elapsed > self.limits.seconds:
            return IngestErrorKind.TIMEOUT, f"parser exceeded {self.limits.seconds:g} s, skipped"
        if self._watch_memory and self._resident() > self._memory_bytes:
            return IngestErrorKind.TOO_LARGE, self._over_memory
        return None

    @property
    def _over_memory(self) -> str:
        return f"parser exceeded the memory limit ({self.limits.memory_mb} MB), skipped"

    def _fail_head(self, kind: IngestErrorKind, what: str) -> tuple[Request, Outcome]:
        """The oldest request failed with the worker: replace the worker, send the rest again."""
        request = self._outstanding.popleft()
        self._restart()
        return request, IngestError(kind, f"{request.name}: {what}")

    def _restart(self) -> None:
        """A fresh worker for the requests still outstanding (sent again when it is wanted)."""
        waiting = list(self._outstanding)
        self.stop()
        for request in waiting:
            self._outstanding.append(request)
            self._send(request)
            if self._proc is None:  # reported by the next ``collect``, one request at a time
                self._outstanding.extend(waiting[len(self._outstanding) :])
                return

    def _resident(self) -> int:
        try:
            return int(psutil.Process(self._proc.pid).memory_info().rss) if self._proc else 0
        except psutil.Error:
            return 0

    def _recycle_if_bloated(self) -> None:
        """A worker that grew past half its limit on one big file holds that memory: start afresh."""
        if self._resident() > self._memory_bytes // 2:
            self._close()

    def __call__(
        self,
        path: Path,
        cancel: Callable[[], bool] | None = None,
        page: int | None = None,
        context: Sequence[str] = (),
    ) -> ReadResult:
        """Read ``path``, or only its ``page`` when this worker was built with a page reader (its
        passages continue the heading path ``context``)."""
        with self.lock:
            return read_one(self, Request(next_ticket(), Path(path), page, tuple(context)), cancel)


def read_one(worker: ParseWorker, request: Request, cancel: Callable[[], bool] | None) -> ReadResult:
    """Ask ``worker`` (idle, its lock held) for one file and wait for the answer."""
    worker.submit(request)
    answers = worker.collect()
    while not answers:
        wait(worker.waitables(), POLL_SECONDS)
        answers = worker.collect()
        if not answers and cancel is not None and cancel():
            worker.stop()
            raise ImportCancelled
    _request, outcome = answers[0]
    if isinstance(outcome, IngestError):
        raise outcome
    return outcome
