"""Starting the app's helper processes (file readers, the embedding model) the same way.

They are started with spawn (the same on every OS, and no threads or SQLite handles inherited),
without the host's main script, and they exit by themselves when the app dies, so no orphan
keeps working for nobody.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from typing import Any


def spawn(
    target: Callable[..., None], args: tuple[Any, ...], name: str, *, main_needed: bool = False
) -> BaseProcess:
    """Start ``target(*args)`` in a fresh daemon process (``target`` must be module-level);
    ``main_needed`` when something in ``args`` was defined in the host's main script."""
    proc = multiprocessing.get_context("spawn").Process(target=target, args=args, name=name, daemon=True)
    with _host_main_hidden(keep=main_needed):
        proc.start()
    return proc


@contextlib.contextmanager
def _host_main_hidden(keep: bool) -> Iterator[None]:
    """Start the child without running the host's main script in it again.

    spawn imports the parent's ``__main__`` in the child (as ``__mp_main__``) in case something sent
    over was defined there: a script without a ``__main__`` guard would run a second time, and a
    big entry point (the GUI, pytest) costs start-up time for nothing. The child needs only the
    target's module, so unless that is ``__main__`` itself the child is shown none.
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


def exit_with_parent() -> None:
    """Called in the child: exit as soon as the process that started it is gone."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
