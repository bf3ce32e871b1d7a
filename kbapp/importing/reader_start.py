"""Starting reader processes, and starting one ahead of need.

A reader takes about 0.35 s to start (Python and the reading modules, on this 2-core machine), and
the first file of an import waits for it. A command that is about to import (``kbapp import``)
calls ``prestart`` first thing, so that start-up runs on the other core while the command imports
SQLAlchemy and opens the library (about 0.3 s), instead of after it; the import's first worker
takes that process (``take``). The worker is told what to read with by its first message
(``worker_process.serve``), so it can be started before the library, and with it the parser and
the chunking settings, is known.
"""

from __future__ import annotations

import threading
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from kbapp.child_process import spawn
from kbapp.importing.worker_process import serve

Reader = tuple[BaseProcess, Connection]

_spare: list[Reader] = []  # at most one: the process ``prestart`` started that no worker took yet
_lock = threading.Lock()


def start_reader(main_needed: bool = False) -> Reader:
    """A new reader process, still loading, and the parent's end of its pipe. ``main_needed``
    when its parser was defined in the host's main script (``child_process.spawn``)."""
    parent_end, child_end = Pipe(duplex=True)
    proc = spawn(serve, (child_end,), "kbapp-reader", main_needed=main_needed)
    child_end.close()
    return proc, parent_end


def prestart() -> None:
    """Start a reader process now, for the next worker to ``take``."""
    with _lock:
        if not _spare:
            _spare.append(start_reader())


def take() -> Reader | None:
    """The process ``prestart`` started, if it is still alive; it is then the caller's."""
    with _lock:
        reader = _spare.pop() if _spare else None
    if reader is not None and not reader[0].is_alive():
        _stop(reader)
        return None
    return reader


def discard() -> None:
    """Stop the process ``prestart`` started if no worker took it (nothing needed reading)."""
    reader = take()
    if reader is not None:
        _stop(reader)


def _stop(reader: Reader) -> None:
    proc, conn = reader
    conn.close()
    if proc.is_alive():
        proc.kill()
    proc.join(5)
