"""Reading a file's bytes with the failures a user can act on (missing, unreadable, too big)."""

from __future__ import annotations

from pathlib import Path

from kbapp.ingest.document import IngestError, IngestErrorKind
from kbapp.ingest.errors import human_size, ingest_error

HEAD_SIZE = 8 * 1024
# Text, Markdown and HTML are held in memory whole; beyond this it is a log dump, not a manual.
MAX_TEXT_BYTES = 64 * 1024 * 1024


def read_head(path: Path) -> bytes:
    """The first bytes of the file, enough for content sniffing."""
    try:
        with path.open("rb") as handle:
            return handle.read(HEAD_SIZE)
    except OSError as exc:
        raise _unreadable(path, exc) from exc


def read_all(path: Path, limit: int = MAX_TEXT_BYTES) -> bytes:
    """The whole file, refusing files above ``limit`` before reading them into memory."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise ingest_error(
                IngestErrorKind.TOO_LARGE,
                path,
                f"{human_size(size)} is too large for this format (limit {human_size(limit)})",
            )
        return path.read_bytes()
    except OSError as exc:
        raise _unreadable(path, exc) from exc


def _unreadable(path: Path, exc: OSError) -> IngestError:
    if isinstance(exc, FileNotFoundError):
        reason = "file not found"
    elif isinstance(exc, PermissionError):
        reason = "cannot read file (permission denied)"
    elif isinstance(exc, IsADirectoryError):
        reason = "is a folder, not a file"
    else:
        reason = f"cannot read file ({exc.strerror or exc})"
    return ingest_error(IngestErrorKind.UNREADABLE, path, reason)
