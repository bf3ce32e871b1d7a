"""Building ``IngestError`` messages in one place so every reader names the file the same way.

The import dialog shows these strings verbatim, so they must start with the file name and then say,
in plain words, why the file was refused.
"""

from __future__ import annotations

from pathlib import Path

from kbapp.ingest.document import IngestError, IngestErrorKind


def ingest_error(kind: IngestErrorKind, path: Path, reason: str) -> IngestError:
    """Return an error whose message reads ``"<file name>: <reason>"``."""
    return IngestError(kind, f"{path.name}: {reason}")


def human_size(n_bytes: int) -> str:
    """Format a byte count the way a user reads it in a file manager (``"1.2 GB"``)."""
    if n_bytes < 1024:
        return f"{n_bytes} bytes"
    size = n_bytes / 1024
    for unit in ("KB", "MB"):
        if size < 1024:
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"
