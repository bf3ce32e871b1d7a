"""Opening ZIP-based formats (DOCX, EPUB) safely.

Both are ZIP containers that the readers inflate fully into memory, so the declared uncompressed
sizes are checked first: a 40 KB "document" that expands to 4 GB must be refused before any
member is read. ``zipfile`` itself stops inflating a member at its declared size (and then fails
the CRC check), so the declared sizes are a sound bound.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from kbapp.ingest.document import IngestErrorKind
from kbapp.ingest.errors import human_size, ingest_error

MAX_EXPANDED_BYTES = 200 * 1024 * 1024
MAX_MEMBERS = 20_000
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError)


def open_archive(path: Path, what: str) -> zipfile.ZipFile:
    """Open ``path`` as a ZIP after checking it is intact and small enough when expanded.

    ``what`` names the format in messages ("Word document", "EPUB").
    """
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as exc:
        raise ingest_error(
            IngestErrorKind.CORRUPT, path, f"not a valid {what} (file is damaged or truncated)"
        ) from exc
    members = archive.infolist()
    expanded = sum(info.file_size for info in members)
    if expanded > MAX_EXPANDED_BYTES or len(members) > MAX_MEMBERS:
        archive.close()
        detail = (
            f"expands to {human_size(expanded)}"
            if len(members) <= MAX_MEMBERS
            else (f"contains {len(members)} files")
        )
        raise ingest_error(IngestErrorKind.TOO_LARGE, path, f"{detail}, refusing")
    return archive


def read_member(archive: zipfile.ZipFile, name: str, path: Path, what: str) -> bytes:
    """Read one member, turning a missing or damaged member into a CORRUPT error."""
    try:
        return archive.read(name)
    except KeyError as exc:
        raise ingest_error(IngestErrorKind.CORRUPT, path, f"not a valid {what} ({name} is missing)") from exc
    except _READ_ERRORS as exc:
        raise ingest_error(IngestErrorKind.CORRUPT, path, f"not a valid {what} ({name} is damaged)") from exc
