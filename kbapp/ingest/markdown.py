"""Markdown reader: the block structure of CommonMark/GFM that matters for search.

Headings (ATX and setext) give the chunker section boundaries, fenced code stays verbatim, pipe
tables become table blocks whose header row is repeated when a table is split. Inline markup is
reduced to its text so "[manual](x.pdf)" is indexed as "manual", and a paragraph's lines are
joined where they were only wrapped (``unwrap``). Everything is one unpaged Page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kbapp.ingest.builder import PageBuilder
from kbapp.ingest.decoding import decode_text
from kbapp.ingest.document import BlockKind, IngestErrorKind, ParsedDocument
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.source import read_all
from kbapp.ingest.textnorm import clean_text
from kbapp.ingest.unwrap import unwrap, wrap_width

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_RULE = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_FRONT_MATTER_TITLE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.M)
_INLINE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),
    (re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"), r"\1"),
    (re.compile(r"__(?=\S)(.+?)(?<=\S)__"), r"\1"),
    (re.compile(r"`([^`]+)`"), r"\1"),
    (re.compile(r"\\([\\`*_{}\[\]()#+\-.!|])"), r"\1"),
)


@dataclass(slots=True)
class MdBlock:
    kind: BlockKind
    text: str = ""
    level: int = 0
    rows: list[list[str]] = field(default_factory=list)


def parse_markdown(path: Path) -> ParsedDocument:
    decoded = decode_text(read_all(path), path)
    lines = clean_text(decoded.text).split("\n")
    front_title, lines = _split_front_matter(lines)
    builder = PageBuilder(None)
    first_heading = None
    blocks = list(iter_blocks(lines))
    width = wrap_width(block.text for block in blocks if block.kind is BlockKind.TEXT)
    for block in blocks:
        if block.kind is BlockKind.TABLE:
            builder.add_table(block.rows, header_rows=1)
            continue
        text = unwrap(block.text, width) if block.kind is BlockKind.TEXT else block.text
        builder.add(block.kind, text, block.level)
        if block.kind is BlockKind.HEADING and first_heading is None:
            first_heading = block.text.strip() or None
    if builder.is_empty:
        raise ingest_error(IngestErrorKind.EMPTY, path, "no text (only whitespace or markup)")
    title = front_title or first_heading or path.stem
    return ParsedDocument(
        title=title, doc_type="markdown", pages=[builder.build()], warnings=decoded.warnings
    )


def iter_blocks(lines: list[str]) -> Iterator[MdBlock]:
    """Yield blocks in document order; a small line-based parser, not a full CommonMark one."""
    paragraph: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE_OPEN.match(line)
        atx = _ATX.match(line)
        table = _starts_table(lines, index)
        if fence or atx or table or not line.strip():
            yield from _flush(paragraph)
        if fence:
            code, index = _read_fence(lines, index, fence)
            yield MdBlock(BlockKind.CODE, code)
        elif atx:
            yield MdBlock(BlockKind.HEADING, _inline(atx.group(2) or ""), level=len(atx.group(1)))
            index += 1
        elif not line.strip():
            index += 1
        elif table:
            rows, index = _read_table(lines, index)
            yield MdBlock(BlockKind.TABLE, rows=rows)
        elif paragraph and _SETEXT.match(line):
            level = 1 if line.strip().startswith("=") else 2
            yield MdBlock(BlockKind.HEADING, _inline(" ".join(part.strip() for part in paragraph)), level)
            paragraph.clear()
            index += 1
        elif _THEMATIC_BREAK.match(line):
            index += 1
        else:
            paragraph.append(_QUOTE.sub("", line))
            index += 1
    yield from _flush(paragraph)


def _flush(paragraph: list[str]) -> Iterator[MdBlock]:
    if paragraph:
        yield MdBlock(BlockKind.TEXT, _inline("\n".join(paragraph)))
        paragraph.clear()


def _read_fence(lines: list[str], index: int, fence: re.Match[str]) -> tuple[str, int]:
    """Collect a fenced block up to the closing fence (or the end of the file, as CommonMark does)."""
    indent, marker = len(fence.group(1)), fence.group(2)
    closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
    body = []
    index += 1
    while index < len(lines) and not closing.match(lines[index]):
        line = lines[index]
        body.append(line[min(indent, len(line) - len(line.lstrip(" "))) :])
        index += 1
    return "\n".join(body), index + 1


def _starts_table(lines: list[str], index: int) -> bool:
    """A GFM table: a row with pipes followed by a delimiter row with the same number of cells."""
    if index + 1 >= len(lines) or "|" not in lines[index] or "|" not in lines[index + 1]:
        return False
    if not _TABLE_RULE.match(lines[index + 1]):
        return False
    return len(_cells(lines[index])) == len(_cells(lines[index + 1]))


def _read_table(lines: list[str], index: int) -> tuple[list[list[str]], int]:
    rows = [_cells(lines[index])]
    index += 2  # header row and delimiter row
    while index < len(lines) and lines[index].strip() and "|" in lines[index]:
        rows.append(_cells(lines[index]))
        index += 1
    return rows, index


def _cells(line: str) -> list[str]:
    stripped = line.strip()
    stripped = stripped.removeprefix("|")
    if stripped.endswith("|") and not stripped.endswith("\\|"):
        stripped = stripped[:-1]
    return [_inline(cell.strip()) for cell in _CELL_SPLIT.split(stripped)]


def _inline(text: str) -> str:
    """Reduce inline markup to the words a reader sees."""
    for pattern, replacement in _INLINE:
        text = pattern.sub(replacement, text)
    return text


def _split_front_matter(lines: list[str]) -> tuple[str | None, list[str]]:
    """YAML front matter (``---`` ... ``---``) is metadata, not text; its ``title:`` is the title."""
    if not lines or lines[0].strip() != "---":
        return None, lines
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            match = _FRONT_MATTER_TITLE.search("\n".join(lines[1:end]))
            title = match.group(1).strip("\"'") if match else None
            return title or None, lines[end + 1 :]
    return None, lines
