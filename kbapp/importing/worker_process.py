"""What runs inside a reading worker process: requests in, one answer per request out, in order.

The importer sends several requests at once (``parse_worker.ParseWorker``), so the worker goes
from one file to the next without waiting for the importer to ask: for a folder of small files
the pipe's round trip, not the reading, used to be most of the time. Each answer carries the
request's ticket, so the importer knows which file a late answer or a crash belongs to.

Plain text and Markdown are also cut into passages here, with their keyword terms: reading them
is cheap, so tokenizing is most of their cost, and done here it overlaps the importer storing
the files before (measured: 1,000 small text files 17 % faster). Other formats come back parsed
and the importer cuts them: parsing a PDF or a DOCX is the worker's main work, and the importer's
cutting then overlaps it (100 mixed documents took 15-18 % longer when everything was cut here).
A document with so much text that cutting it takes long (a 50 MB single-line log parses in a
second and takes minutes to chunk) is always cut here, inside the worker's limits. The tokenizer
is loaded when the first document is cut.

This module is imported in the worker; it keeps to what reading needs (no database, no Qt).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from kbapp.child_process import exit_with_parent
from kbapp.chunking import ChunkingConfig
from kbapp.chunking.splitter import TokenCounter
from kbapp.embedding.budget import token_counter
from kbapp.importing.reading import chunked, crash_error
from kbapp.ingest.document import IngestError
from kbapp.ingest.helping import helpers_allowed

_LINUX_RLIMIT = sys.platform.startswith("linux")
CUT_HERE = frozenset({"text", "markdown"})  # document types cut into passages in the worker
# Documents with more text than this are cut in the worker whatever their type.
CUT_HERE_CHARS = 2_000_000

# (parser, how to cut passages, memory limit in bytes or 0): the first message a worker gets
Setup = tuple[Any, ChunkingConfig, int]
# (ticket, path, tokenizer file or None, page number or None)
Request = tuple[int, str, str | None, int | None]
# (ticket, "read", ReadResult) | (ticket, "parsed", ParsedDocument) | (ticket, "error", kind, message)
# | (ticket, "memory")
Reply = tuple[Any, ...]


class _OneLineErrors(logging.Formatter):
    """A reader crash is reported to the user as a message already; the log gets one line, not a
    traceback thousands of lines deep (a RecursionError)."""

    def formatException(self, ei) -> str:  # type: ignore[no-untyped-def]
        return f"  {ei[0].__name__}: {ei[1]}" if ei[0] is not None else ""


def _limit_memory(memory_bytes: int) -> None:
    if _LINUX_RLIMIT and memory_bytes:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _read(
    parse: Any, chunking: ChunkingConfig, counters: dict[str | None, TokenCounter], request: Request
) -> tuple[tuple[Any, ...], bool]:
    """The answer to one request (without its ticket), and whether the worker ran out of memory."""
    _ticket, path_text, tokenizer, page = request
    path = Path(path_text)
    try:
        doc = parse(path) if page is None else parse(path, page)
        if doc.doc_type not in CUT_HERE and sum(len(p.text) for p in doc.pages) <= CUT_HERE_CHARS:
            return ("parsed", doc), False
        if tokenizer not in counters:
            counters[tokenizer] = token_counter(Path(tokenizer) if tokenizer else None)
        return ("read", chunked(doc, counters[tokenizer], chunking)), False
    except IngestError as err:
        if isinstance(err.__cause__, MemoryError):
            return ("memory",), True
        return ("error", str(err.kind), err.message), False
    except MemoryError:
        return ("memory",), True
    except Exception as exc:  # a reader or chunker bug costs this file only
        crash = crash_error(path, exc)
        return ("error", str(crash.kind), crash.message), False


def serve(conn: Connection) -> None:
    """The worker's loop: answer requests in the order they came until the pipe closes; exit after
    running out of memory (the heap may be in a poor state; the importer starts a fresh worker).

    The first message is the ``Setup``, not the process's arguments: a worker can then be started
    before anyone knows what it will read with (``reader_start.prestart``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the importing process to handle
    exit_with_parent()
    handler = logging.StreamHandler()
    handler.setFormatter(_OneLineErrors("kbapp reader: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one thread: predictable memory
    try:
        setup: Setup = conn.recv()
    except (EOFError, OSError):
        return
    parse, chunking, memory_bytes = setup
    _limit_memory(memory_bytes)
    # A helper process (``kbapp.ingest.helping``) inherits the address-space limit; where there is
    # none to inherit it would be unbounded, so there is none. It is a child of this process.
    bounded = _LINUX_RLIMIT and memory_bytes > 0
    if bounded:  # multiprocessing starts no child from a daemon process
        multiprocessing.current_process().daemon = False
    counters: dict[str | None, TokenCounter] = {}
    conn.send(("ready",))
    while True:
        try:
            request: Request = conn.recv()
        except (EOFError, OSError):
            return
        # Only for a file nothing is queued behind: then the import leaves a core idle.
        with helpers_allowed(bounded and not conn.poll()):
            reply, out_of_memory = _read(parse, chunking, counters, request)
        try:
            conn.send((request[0], *reply))
        except MemoryError:
            out_of_memory = True
            conn.send((request[0], "memory"))
        if out_of_memory:
            return
