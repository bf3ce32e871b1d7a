"""Whole-file replacement that a crash cannot tear: write a temp file, fsync, rename, fsync the folder."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def fsync_dir(folder: Path) -> None:
    if os.name == "nt":  # Windows cannot open a directory for fsync; rename there is already durable
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(target: Path, write: Callable[[Path], None]) -> None:
    """Let ``write`` fill a temporary sibling of ``target``, then make it ``target`` in one step.

    A reader (or the next start after a power cut) sees either the old file or the new one,
    never a mixture; a failed write leaves the old file untouched and no temp file behind.
    """
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        with tmp.open("rb+") as f:
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(target.parent)


def atomic_write_bytes(target: Path, data: bytes) -> None:
    atomic_write(target, lambda tmp: tmp.write_bytes(data))
