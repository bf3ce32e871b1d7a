"""What every format reader hands to the chunker: a document as pages of text with typed blocks.

Readers do the format-specific work (decoding, layout, tables, headings) once, so the chunker
and everything after it see one shape regardless of where the text came from. Offsets are
code-point offsets into ``Page.text``; the preview highlights there, so they must round-trip.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class BlockKind(StrEnum):
    HEADING = "heading"
    TEXT = "text"
    TABLE = "table"
    CODE = "code"


@dataclass(frozen=True, slots=True)
class Block:
    """A contiguous span ``page.text[start:end]`` with one structural role.

    For tables, ``page.text[start:header_end]`` is the header row(s), repeated in every piece
    when the chunker has to split the table by rows; rows are separated by newlines.
    """

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    header_end: int | None = None


@dataclass(slots=True)
class Page:
    """One page of extracted text; ``number`` is the 1-based physical page, None for unpaged formats."""

    number: int | None
    text: str
    blocks: list[Block] = field(default_factory=list)


@dataclass(slots=True)
class ParsedDocument:
    title: str
    doc_type: str
    pages: list[Page]
    page_count: int | None = None
    warnings: list[str] = field(default_factory=list)
    # 1-based pages without usable text, read later by the OCR stage (scans, garbled text layers).
    ocr_pages: list[int] = field(default_factory=list)
    # Page number -> the OCR'd lines with their boxes (JSON, ``kbapp.ocr.page_text``), for highlights.
    ocr_lines: dict[int, str] = field(default_factory=dict)


class IngestErrorKind(StrEnum):
    EMPTY = "empty"
    CORRUPT = "corrupt"
    ENCRYPTED = "encrypted"
    UNSUPPORTED = "unsupported"
    UNREADABLE = "unreadable"
    NO_TEXT = "no text layer"
    GARBLED = "garbled text layer"
    TOO_LARGE = "too large"
    TIMEOUT = "timeout"
    CRASHED = "parser crashed"


class IngestError(Exception):
    """A file that cannot be imported, with a reason a user can act on."""

    def __init__(self, kind: IngestErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message
