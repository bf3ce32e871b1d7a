"""Turning a file into a ``ParsedDocument``: the only entry point the importer needs.

``parse_file`` sniffs the content to pick a reader (a PDF saved as ".txt" is still a PDF) and
guarantees that bad input surfaces as ``IngestError`` with a message naming the file, never as a
raw exception from PyMuPDF, zipfile or lxml. ``SUPPORTED_SUFFIXES`` is what folder walking picks
up; files handed over explicitly are sniffed whatever their name.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from pathlib import Path

from kbapp.ingest.document import (
    Block,
    BlockKind,
    IngestError,
    IngestErrorKind,
    Page,
    ParsedDocument,
)
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.formats import SUFFIX_FORMATS, Format

__all__ = [
    "SUPPORTED_SUFFIXES",
    "Block",
    "BlockKind",
    "Format",
    "IngestError",
    "IngestErrorKind",
    "Page",
    "ParsedDocument",
    "parse_file",
]

SUPPORTED_SUFFIXES: frozenset[str] = frozenset(SUFFIX_FORMATS)

# Readers are imported on first use: PyMuPDF, lxml, BeautifulSoup and python-docx together take
# about a second to import, which commands that only need ``kbapp.ingest.document`` must not pay.
_READERS: dict[Format, tuple[str, str]] = {
    Format.PDF: ("kbapp.ingest.pdf", "parse_pdf"),
    Format.DOCX: ("kbapp.ingest.docx", "parse_docx"),
    Format.EPUB: ("kbapp.ingest.epub", "parse_epub"),
    Format.HTML: ("kbapp.ingest.html", "parse_html"),
    Format.MARKDOWN: ("kbapp.ingest.markdown", "parse_markdown"),
    Format.TEXT: ("kbapp.ingest.text", "parse_text"),
    Format.IMAGE: ("kbapp.ingest.image", "parse_image"),
}

_log = logging.getLogger(__name__)


def parse_file(path: Path) -> ParsedDocument:
    """Parse ``path`` into pages of typed blocks, or raise ``IngestError`` saying why not."""
    from kbapp.ingest.sniff import sniff  # with its text decoding: only where files are read
    from kbapp.ingest.source import read_head

    path = Path(path)
    reader = _reader(sniff(path, read_head(path)))
    try:
        return reader(path)
    except IngestError:
        raise
    except MemoryError as exc:
        raise ingest_error(IngestErrorKind.TOO_LARGE, path, "not enough memory to read it") from exc
    except Exception as exc:  # last line of defence: a reader bug must not abort a folder import
        _log.exception("reader crashed on %s", path)
        raise ingest_error(
            IngestErrorKind.CRASHED, path, f"the reader crashed ({type(exc).__name__}: {exc})"
        ) from exc


def _reader(file_format: Format) -> Callable[[Path], ParsedDocument]:
    module, function = _READERS[file_format]
    reader: Callable[[Path], ParsedDocument] = getattr(importlib.import_module(module), function)
    return reader
