"""Reading files in a separate process, so a file that hangs the reader, eats memory or crashes it
costs that one file ("sdk.pdf: parser exceeded 120 s, skipped"), never the import or the app.

One worker process is started (spawn: the same on every OS, and no threads or SQLite handles
inherited) and reused for file after file, since starting Python and loading PyMuPDF and the
tokenizer takes seconds; it is replaced after a timeout, a crash, a memory failure, or when it has
grown large. Limits:

* time: the parent waits for the answer at most ``seconds`` and then kills the worker;
* memory: on Linux ``RLIMIT_AS`` caps the worker's address space (allocations beyond it fail,
  which the reader reports as MemoryError); where that is not available (Windows has no job
  objects in the standard library, macOS ignores RLIMIT_AS) the parent polls the worker's
  resident size with psutil and kills it when it is over;
* crashes (a segfault in a C library, ``os._exit``) are seen as the process dying without answer.

The worker parses; the importer chunks the parsed document with its own tokenizer, which it
loads (the first time) while the worker parses, so on two cores neither waits for the other. A
document with so much text that chunking it would take long (a 50 MB single-line log parses in a
second and takes minutes to chunk) is chunked in the worker instead, inside its limits.

The same machinery reads single pages for the OCR stage: a worker built with a page reader
(``kbapp.ocr.page_reader.ocr_page``) is asked for ``(path, page)`` instead of a whole file.

The worker exits by itself when its parent dies (e.g. the app is killed), so no orphan keeps
parsing.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path

import psutil

from kbapp.chunking import ChunkingConfig
from kbapp.chunking.splitter import TokenCounter
from kbapp.embedding.budget import token_counter
from kbapp.importing.reading import (
    ImportCancelled,
    OneAtATime,
    Parser,
    ReadResult,
    ReadSession,
    chunked,
    crash_error,
)
from kbapp.ingest.document import IngestError, IngestErrorKind, ParsedDocument

PageParser = Callable[[Path, int], ParsedDocument]

_LINUX_RLIMIT = sys.platform.startswith("linux")
# Documents with more text than this are chunked in the worker (some seconds of chunking).
CHUNK_IN_WORKER_CHARS = 2_000_000
_POLL_SECONDS = 0.2
_STARTUP_SECONDS = 120.0


@dataclass(frozen=True, slots=True)
class ParseLimits:
    """How long and how much memory reading one file may take."""

    seconds: float = 120.0
    memory_mb: int = 4096  # the worker's whole address space (Linux) or resident size (elsewhere)


def _exit_with_parent() -> None:
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


@contextlib.contextmanager
def _host_main_hidden(keep: bool) -> Iterator[None]:
    """Start the worker without running the host's main script in it again.

    spawn imports the parent's ``__main__`` in the child (as ``__mp_main__``) in case something sent
    over was defined there: a script without a ``__main__`` guard would run a second time, and a
    big entry point (the GUI, pytest) costs start-up time for nothing. The worker needs only the
    parse function's module, so unless that is ``__main__`` itself the child is shown none.
    """
    if keep:
        yield
        return
    host = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = host


class _OneLineErrors(logging.Formatter):
    """A reader crash is reported to the user as a message already; the log gets one line, not a
    traceback thousands of lines deep (a RecursionError)."""

    def formatException(self, ei) -> str:  # type: ignore[no-untyped-def]
        return f"  {ei[0].__name__}: {ei[1]}" if ei[0] is not None else ""


def _serve(conn: Connection, parse: Parser | PageParser, chunking: ChunkingConfig, memory_bytes: int) -> None:
    """The worker's loop: one request (path, tokenizer, page) in, one answer out, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the importing process to handle
    _exit_with_parent()
    handler = logging.StreamHandler()
    handler.setFormatter(_OneLineErrors("kbapp reader: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one thread: predictable memory
    if _LINUX_RLIMIT and memory_bytes:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    counters: dict[str | None, TokenCounter] = {}
    conn.send(("ready",))
    while True:
        try:
            path_text, tokenizer, page = conn.recv()
        except (EOFError, OSError):
            return
        path = Path(path_text)
        out_of_memory = False
        try:
            doc = parse(path) if page is None else parse(path, page)  # type: ignore[call-arg]
            reply: tuple[object, ...] = ("parsed", doc)
            if sum(len(page.text) for page in doc.pages) > CHUNK_IN_WORKER_CHARS:
                if tokenizer not in counters:
                    counters[tokenizer] = token_counter(Path(tokenizer) if tokenizer else None)
                reply = ("chunked", chunked(doc, counters[tokenizer], chunking))
        except IngestError as err:
            out_of_memory = isinstance(err.__cause__, MemoryError)
            reply = ("memory",) if out_of_memory else ("error", str(err.kind), err.message)
        except MemoryError:
            out_of_memory, reply = True, ("memory",)
        except Exception as exc:  # a reader or chunker bug costs this file only
            err = crash_error(path, exc)
            reply = ("error", str(err.kind), err.message)
        try:
            conn.send(reply)
        except MemoryError:
            out_of_memory = True
            conn.send(("memory",))
        if out_of_memory:  # the heap may be in a poor state; let the importer start a fresh worker
            return


def _how_it_died(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return signal.Signals(-exitcode).name
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}" if exitcode is not None else "no answer"


def require_picklable(parse: Parser) -> None:
    """The worker is spawned, so it gets ``parse`` by pickling: a lambda or a nested function fails
    there, at the first file, with an error that does not say why. Say it up front."""
    try:
        pickle.dumps(parse)
    except (pickle.PicklingError, AttributeError, TypeError) as err:
        raise ValueError(
            "parse must be a module-level function to run in the parse worker "
            "(or pass parse_limits=None to read in this process)"
        ) from err


class ParseWorker:
    """The importer's handle on the worker process; ``read`` has the shape of a ``Reader``."""

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
        """``count_tokens`` gives the importer's token counter, ``tokenizer`` the (verified) file it
        is loaded from, for the worker to load when it chunks a huge document itself."""
        self._parse = parse
        self._chunking = chunking
        self.limits = limits
        self._count_tokens = count_tokens
        self._tokenizer = tokenizer
        self._watch_memory = watch_memory
        self._one_read = threading.Lock()  # an import and a folder sync may share this worker
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        self._ready = False

    @property
    def _memory_bytes(self) -> int:
        return self.limits.memory_mb * 1024 * 1024

    def start(self) -> None:
        """Start the worker if none is running; returns at once (it loads in the background)."""
        if self._proc is not None and self._proc.is_alive():
            return
        self.stop()
        parent_end, child_end = self._ctx.Pipe(duplex=True)
        memory = 0 if self._watch_memory else self._memory_bytes
        proc = self._ctx.Process(
            target=_serve,
            args=(child_end, self._parse, self._chunking, memory),
            name="kbapp-reader",
            daemon=True,
        )
        with _host_main_hidden(keep=getattr(self._parse, "__module__", None) == "__main__"):
            proc.start()
        child_end.close()
        self._proc, self._conn, self._ready = proc, parent_end, False

    def stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(5)
            if self._proc.exitcode is not None:
                self._proc.close()
        self._proc, self._conn, self._ready = None, None, False

    def __call__(
        self, path: Path, cancel: Callable[[], bool] | None = None, page: int | None = None
    ) -> ReadResult:
        """Read ``path``, or only its ``page`` when this worker was built with a page reader."""
        with self._one_read:
            return self._read(path, cancel, page)

    @contextlib.contextmanager
    def session(self, cancel: Callable[[], bool] | None) -> Iterator[ReadSession]:
        """Files read one at a time, each when its answer is asked for."""
        with self._one_read:
            yield OneAtATime(lambda path: self._read(path, cancel, None))

    def _read(self, path: Path, cancel: Callable[[], bool] | None, page: int | None) -> ReadResult:
        name = path.name if page is None else f"{path.name} page {page}"
        self._wait_ready(name, cancel)
        assert self._conn is not None and self._proc is not None
        tokenizer = self._tokenizer()
        try:
            self._conn.send((str(path), str(tokenizer) if tokenizer else None, page))
        except OSError:
            self.stop()
            raise IngestError(
                IngestErrorKind.CRASHED, f"{name}: the reader process stopped unexpectedly"
            ) from None
        count_tokens = self._count_tokens()  # loaded (the first time) while the worker parses
        reply = self._answer(name, cancel)
        if reply[0] in ("parsed", "chunked"):
            self._recycle_if_bloated()
            if reply[0] == "chunked":
                assert isinstance(reply[1], ReadResult)
                return reply[1]
            assert isinstance(reply[1], ParsedDocument)
            try:
                return chunked(reply[1], count_tokens, self._chunking)
            except Exception as exc:  # a chunker bug costs this file only
                raise crash_error(path, exc) from exc
        if reply[0] == "memory":
            self.stop()
            raise IngestError(
                IngestErrorKind.TOO_LARGE,
                f"{name}: parser exceeded the memory limit ({self.limits.memory_mb} MB), skipped",
            )
        raise IngestError(IngestErrorKind(reply[1]), str(reply[2]))

    def _wait_ready(self, name: str, cancel: Callable[[], bool] | None) -> None:
        try:
            self.start()
        except OSError as err:  # no process can be started (out of memory, process limit)
            raise IngestError(
                IngestErrorKind.CRASHED, f"{name}: the reader process could not start ({err.strerror or err})"
            ) from err
        assert self._conn is not None and self._proc is not None
        deadline = time.monotonic() + _STARTUP_SECONDS
        while not self._ready:
            if wait([self._conn, self._proc.sentinel], _POLL_SECONDS) and self._conn.poll():
                with contextlib.suppress(EOFError, OSError):
                    self._ready = self._conn.recv() == ("ready",)
                if self._ready:
                    return
            if not self._proc.is_alive() or time.monotonic() > deadline:
                how = _how_it_died(self._proc.exitcode) if not self._proc.is_alive() else "it did not answer"
                self.stop()
                raise IngestError(
                    IngestErrorKind.CRASHED, f"{name}: the reader process could not start ({how})"
                )
            if cancel is not None and cancel():
                self.stop()
                raise ImportCancelled

    def _answer(self, name: str, cancel: Callable[[], bool] | None) -> tuple[object, ...]:
        assert self._conn is not None and self._proc is not None
        deadline = time.monotonic() + self.limits.seconds
        while True:
            ready = wait([self._conn, self._proc.sentinel], _POLL_SECONDS)
            if self._conn.poll():
                try:
                    return tuple(self._conn.recv())
                except (EOFError, OSError):
                    ready = [self._proc.sentinel]
                except Exception as exc:  # an answer that cannot be unpickled
                    self.stop()
                    raise crash_error(Path(name), exc) from exc
            if self._proc.sentinel in ready:
                self._proc.join(1)
                how = _how_it_died(self._proc.exitcode)
                self.stop()
                raise IngestError(IngestErrorKind.CRASHED, f"{name}: the reader crashed ({how}), skipped")
            if cancel is not None and cancel():
                self.stop()
                raise ImportCancelled
            if time.monotonic() > deadline:
                self.stop()
                raise IngestError(
                    IngestErrorKind.TIMEOUT, f"{name}: parser exceeded {self.limits.seconds:g} s, skipped"
                )
            if self._watch_memory and self._resident() > self._memory_bytes:
                self.stop()
                raise IngestError(
                    IngestErrorKind.TOO_LARGE,
                    f"{name}: parser exceeded the memory limit ({self.limits.memory_mb} MB), skipped",
                )

    def _resident(self) -> int:
        try:
            return int(psutil.Process(self._proc.pid).memory_info().rss) if self._proc else 0
        except psutil.Error:
            return 0

    def _recycle_if_bloated(self) -> None:
        """A worker that grew past half its limit on one big file holds that memory: start afresh."""
        if self._resident() > self._memory_bytes // 2:
            self.stop()
