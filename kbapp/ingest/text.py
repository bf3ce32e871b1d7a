"""Plain-text reader: decoded carefully, split into paragraphs on blank lines.

Plain-text manuals and notes usually put a title on the first line followed by a blank line (the
evaluation corpora do too), so a short first line standing alone becomes the title and a level-1
heading; everything else is text.
"""

from __future__ import annotations

import re
from pathlib import Path

from kbapp.ingest.builder import PageBuilder
from kbapp.ingest.decoding import decode_text
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.model import BlockKind, IngestErrorKind, ParsedDocument
from kbapp.ingest.source import read_all
from kbapp.ingest.textnorm import clean_text, is_cjk

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_MAX_TITLE_WIDTH = 100


def parse_text(path: Path) -> ParsedDocument:
    decoded = decode_text(read_all(path), path)
    paragraphs = split_paragraphs(clean_text(decoded.text))
    if not paragraphs:
        raise ingest_error(IngestErrorKind.EMPTY, path, "no text (only whitespace)")
    builder = PageBuilder(None)
    title = path.stem
    if len(paragraphs) > 1 and is_title_line(paragraphs[0]):
        title = paragraphs[0].strip()
        builder.add(BlockKind.HEADING, title, level=1)
        paragraphs = paragraphs[1:]
    for paragraph in paragraphs:
        builder.add(BlockKind.TEXT, paragraph)
    return ParsedDocument(title=title, doc_type="text", pages=[builder.build()], warnings=decoded.warnings)


def split_paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs, without empty ones."""
    return [part for part in _PARAGRAPH_BREAK.split(text.strip()) if part.strip()]


def is_title_line(paragraph: str) -> bool:
    """A single short line (CJK characters count double, as they are twice as wide)."""
    line = paragraph.strip()
    if "\n" in line:
        return False
    width = sum(2 if is_cjk(char) else 1 for char in line)
    return 0 < width <= _MAX_TITLE_WIDTH
