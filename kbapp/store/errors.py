"""Naming what went wrong with the storage under the library, in words a user can act on.

SQLite and the OS report a full disk, a read-only folder or a damaged file in a dozen ways
("database or disk is full", ENOSPC, "disk I/O error", EROFS...). ``classify`` turns them into one
``StorageError`` whose message says which of those it is and where, so an import can stop with
"disk full: ..." instead of a traceback, and the caller can say what was kept.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

from sqlalchemy.exc import DBAPIError

from kbapp.contract import StorageError, StorageProblem

# Below this much free space a vague "disk I/O error" is taken to mean the disk is full.
_NEARLY_FULL = 1 << 20


_DAMAGE_MARKERS = ("file is not a database", "malformed", "database corruption")


def is_damage(exc: BaseException) -> bool:
    """True if SQLite says the database file itself is damaged (not locked, not unwritable)."""
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    return isinstance(orig, sqlite3.DatabaseError) and any(m in str(orig).lower() for m in _DAMAGE_MARKERS)


def folder_writable(folder: Path) -> bool:
    """Whether files can be created in ``folder``; ``os.access`` sees read-only mounts even as root."""
    return os.access(folder, os.W_OK)


def _probe(folder: Path) -> StorageProblem | None:
    """Find out what a vague failure ("disk I/O error") really was."""
    if not folder_writable(folder):
        return StorageProblem.READ_ONLY
    try:
        if shutil.disk_usage(folder).free < _NEARLY_FULL:
            return StorageProblem.DISK_FULL
    except OSError:
        return None
    return None


def classify(exc: BaseException, folder: Path) -> StorageError | None:
    """A ``StorageError`` for a failure of the library's storage, None for anything else (a bug)."""
    if isinstance(exc, StorageError):
        return exc
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    if isinstance(orig, sqlite3.Error):
        text = str(orig)
        lowered = text.lower()
        if "database or disk is full" in lowered:
            return StorageError(StorageProblem.DISK_FULL, folder, text)
        if "readonly" in lowered or "read-only" in lowered:
            return StorageError(StorageProblem.READ_ONLY, folder, text)
        if "locked" in lowered or "busy" in lowered:
            return StorageError(StorageProblem.BUSY, folder, text)
        if is_damage(orig):
            return StorageError(StorageProblem.DAMAGED, folder, text)
        if "disk i/o error" in lowered or "unable to open" in lowered:
            return StorageError(_probe(folder) or StorageProblem.WRITE_FAILED, folder, text)
        return None
    if isinstance(orig, OSError):
        return classify_os_error(orig, folder)
    return None


def classify_os_error(err: OSError, folder: Path) -> StorageError:
    """What a failed write (or mkdir) in the library folder means for the user."""
    detail = err.strerror or str(err)
    if err.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return StorageError(StorageProblem.DISK_FULL, folder, detail)
    if err.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StorageError(StorageProblem.READ_ONLY, folder, detail)
    return StorageError(_probe(folder) or StorageProblem.WRITE_FAILED, folder, detail)
