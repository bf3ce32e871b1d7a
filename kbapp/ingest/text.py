"""Plain-text reader: decoded carefully, split into paragraphs on blank lines.

Plain-text manuals and notes usually put a title on the first line followed by a blank line (the
evaluation corpora do too), so a first line standing alone becomes the title and a level-1
heading; everything else is text. Report and paper titles often run past 100 characters (42 % of
SciFact's do); a line that long is taken as the title only when the paragraph after it is longer
still, so an opening one-sentence paragraph of prose stays text. A paragraph's lines are joined
where they were only wrapped (``unwrap``).
"""

from __future__ import annotations

import re
from pathlib import Path

from kbapp.ingest.builder import PageBuilder
from kbapp.ingest.decoding import decode_text
from kbapp.ingest.document import BlockKind, IngestErrorKind, ParsedDocument
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.source import read_all
from kbapp.ingest.textnorm import clean_text
from kbapp.ingest.unwrap import columns, unwrap, wrap_width

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_SHORT_TITLE_WIDTH = 100
_MAX_TITLE_WIDTH = 200


def parse_text(path: Path) -> ParsedDocument:
    decoded = decode_text(read_all(path), path)
    paragraphs = split_paragraphs(clean_text(decoded.text))
    if not paragraphs:
        raise ingest_error(IngestErrorKind.EMPTY, path, "no text (only whitespace)")
    builder = PageBuilder(None)
    title = path.stem
    if len(paragraphs) > 1 and is_title_line(paragraphs[0], paragraphs[1]):
        title = paragraphs[0].strip()
        builder.add(BlockKind.HEADING, title, level=1)
        paragraphs = paragraphs[1:]
    width = wrap_width(paragraphs)
    for paragraph in paragraphs:
        builder.add(BlockKind.TEXT, unwrap(paragraph, width))
    return ParsedDocument(title=title, doc_type="text", pages=[builder.build()], warnings=decoded.warnings)


def split_paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs, without empty ones."""
    return [part for part in _PARAGRAPH_BREAK.split(text.strip()) if part.strip()]


def is_title_line(paragraph: str, following: str) -> bool:
    """A single short line, or a long one (up to 200 columns) heading a longer paragraph; CJK
    characters count double, as they are twice as wide."""
    line = paragraph.strip()
    if "\n" in line:
        return False
    width = columns(line)
    return 0 < width <= _SHORT_TITLE_WIDTH or (
        width <= _MAX_TITLE_WIDTH and columns(following.strip()) > width
    )
