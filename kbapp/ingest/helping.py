"""Whether a reader may start a helper process for the document it is reading.

Only a reader worker (``kbapp.importing.worker_process``) allows it, and only for a file with no
other file waiting behind it: a helper then runs on a core the import leaves idle, and it is
bounded like the worker (it inherits the worker's address-space limit and dies with it). Read in
this process (tests, debugging), in a folder import with files queued, or where the worker's
memory is only watched from outside (no ``RLIMIT_AS``), a document is read by one process, as
before. This module is light on purpose: the worker decides before it knows what it will read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

_allowed = False


@contextmanager
def helpers_allowed(allowed: bool) -> Iterator[None]:
    """Allow (or not) helper processes while the block reads a document."""
    global _allowed
    before, _allowed = _allowed, allowed
    try:
        yield
    finally:
        _allowed = before


def may_help() -> bool:
    return _allowed
