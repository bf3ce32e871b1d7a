"""Turning a file into a ``ParsedDocument``: the only entry point the importer needs.

``parse_file`` sniffs the content to pick a reader (a PDF saved as ".txt" is still a PDF) and
guarantees that bad input surfaces as ``IngestError`` with a message naming the file, never as a
raw exception from PyMuPDF, zipfile or lxml. ``SUPPORTED_SUFFIXES`` is what folder walking picks
up; files handed over explicitly are sniffed whatever their name.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from kbapp.ingest.docx import parse_docx
from kbapp.ingest.epub import parse_epub
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.html import parse_html
from kbapp.ingest.markdown import parse_markdown
from kbapp.ingest.model import (
    Block,
    BlockKind,
    IngestError,
    IngestErrorKind,
    Page,
    ParsedDocument,
)
from kbapp.ingest.pdf import parse_pdf
from kbapp.ingest.sniff import SUFFIX_FORMATS, Format, sniff
from kbapp.ingest.source import read_head
from kbapp.ingest.text import parse_text

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

_READERS: dict[Format, Callable[[Path], ParsedDocument]] = {
    Format.PDF: parse_pdf,
    Format.DOCX: parse_docx,
    Format.EPUB: parse_epub,
    Format.HTML: parse_html,
    Format.MARKDOWN: parse_markdown,
    Format.TEXT: parse_text,
}

_log = logging.getLogger(__name__)


def parse_file(path: Path) -> ParsedDocument:
    """Parse ``path`` into pages of typed blocks, or raise ``IngestError`` saying why not."""
    path = Path(path)
    reader = _READERS[sniff(path, read_head(path))]
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
