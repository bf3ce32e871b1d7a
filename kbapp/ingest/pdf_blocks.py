"""From ordered PDF lines and tables to typed paragraphs, then into a ``Page``.

Lines are grouped into units: consecutive text lines of one MuPDF block form a paragraph (joined
with spaces, without them for CJK, de-hyphenated), monospaced lines form code, heading lines with
one style form a heading. Levels for font-based headings are only known once the whole document
has been seen, so pages are first turned into units and emitted afterwards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from kbapp.ingest.builder import PageBuilder
from kbapp.ingest.document import BlockKind, Page
from kbapp.ingest.pdf_headings import Style, font_heading, is_toc_entry, line_style, match_outline
from kbapp.ingest.pdf_layout import MONO_ADVANCE, Fragment, Line, build_lines
from kbapp.ingest.pdf_tables import Table
from kbapp.ingest.textnorm import LIST_ITEM, join_wrapped

_PARAGRAPH_GAP = 0.8  # blank space larger than this many line heights starts a new paragraph
_CODE_GAP = 1.5
_MAX_LABEL_CHARS = 30
_MAX_HEADING_LINES = 3


@dataclass(slots=True)
class Unit:
    """A paragraph-level piece of a page before heading levels are final."""

    kind: BlockKind
    lines: list[Line] = field(default_factory=list)
    text: str = ""
    style: Style | None = None  # font-based heading: level comes from the document-wide style map
    level: int = 0  # outline-based heading: level is known
    outline_entry: int | None = None
    table: Table | None = None


@dataclass(slots=True)
class PageContext:
    """Document-wide facts the per-page grouping needs."""

    body_size: float
    have_outline: bool
    outline_entries: Sequence[tuple[int, str]] = ()


def page_units(ordered: Sequence[Fragment | Table], context: PageContext) -> list[Unit]:
    """Group one page's items (already in reading order) into units."""
    sequence = _lines_and_tables(ordered)
    lines = [item for item in sequence if isinstance(item, Line)]
    outline = match_outline(lines, context.outline_entries)
    outline_by_line = {id(lines[index]): value for index, value in outline.items()}
    standalone = _standalone_bold_blocks(lines)
    units: list[Unit] = []
    for item in sequence:
        if isinstance(item, Table):
            units.append(Unit(BlockKind.TABLE, table=item))
            continue
        unit = _classify(item, context, outline_by_line.get(id(item)), item.block in standalone)
        if units and _continues(units[-1], unit, item):
            _extend(units[-1], item)
        else:
            units.append(unit)
    return units


def emit_page(number: int, units: list[Unit], levels: dict[Style, int]) -> Page:
    """Write a page's units into a ``Page``, folding label headings into the heading they introduce."""
    builder = PageBuilder(number)
    pending_label = ""
    for index, unit in enumerate(units):
        if unit.kind is BlockKind.TABLE and unit.table is not None:
            builder.add_table(unit.table.rows, header_rows=1)
        elif unit.kind is BlockKind.HEADING:
            text = join_wrapped(pending_label, unit.text) if pending_label else unit.text
            pending_label = ""
            if _is_label(unit, units[index + 1] if index + 1 < len(units) else None):
                pending_label = text
                continue
            builder.add(BlockKind.HEADING, text, _heading_level(unit, levels))
        elif unit.kind is BlockKind.CODE:
            builder.add(BlockKind.CODE, _code_text(unit.lines))
        else:
            builder.add(unit.kind, unit.text)
    if pending_label:
        builder.add(BlockKind.TEXT, pending_label)
    return builder.build()


def _code_text(lines: Sequence[Line]) -> str:
    """Code lines with their indentation rebuilt from x positions (monospaced: 0.6 em per char)."""
    left = min(line.x0 for line in lines)
    return "\n".join(" " * round((line.x0 - left) / (MONO_ADVANCE * line.size)) + line.text for line in lines)


def _heading_level(unit: Unit, levels: dict[Style, int]) -> int:
    if unit.level:
        return unit.level
    return levels.get(unit.style, 6) if unit.style is not None else 6


def font_heading_styles(units: Sequence[Unit]) -> Counter[Style]:
    return Counter(unit.style for unit in units if unit.style is not None)


def outline_heading_styles(units: Sequence[Unit]) -> dict[Style, Counter[int]]:
    styles: dict[Style, Counter[int]] = {}
    for unit in units:
        if unit.kind is BlockKind.HEADING and unit.level and unit.lines:
            styles.setdefault(line_style(unit.lines[0]), Counter())[unit.level] += 1
    return styles


def _lines_and_tables(ordered: Sequence[Fragment | Table]) -> list[Line | Table]:
    sequence: list[Line | Table] = []
    pending: list[Fragment] = []
    for item in ordered:
        if isinstance(item, Table):
            sequence.extend(build_lines(pending))
            pending = []
            sequence.append(item)
        else:
            pending.append(item)
    sequence.extend(build_lines(pending))
    return sequence


def _standalone_bold_blocks(lines: list[Line]) -> set[int]:
    """MuPDF blocks that consist of at most a few lines, all bold: candidate headings."""
    by_block: dict[int, list[Line]] = {}
    for line in lines:
        by_block.setdefault(line.block, []).append(line)
    return {
        block
        for block, members in by_block.items()
        if len(members) <= _MAX_HEADING_LINES and all(line.bold for line in members)
    }


def _classify(line: Line, context: PageContext, outline: tuple[int, int] | None, standalone: bool) -> Unit:
    if outline is not None:
        level, entry = outline
        return Unit(BlockKind.HEADING, [line], line.text, level=level, outline_entry=entry)
    if line.mono:
        return Unit(BlockKind.CODE, [line], line.text)
    if font_heading(line, context.body_size, standalone, context.have_outline):
        return Unit(BlockKind.HEADING, [line], line.text, style=line_style(line))
    return Unit(BlockKind.TEXT, [line], line.text)


def _continues(current: Unit, new: Unit, line: Line) -> bool:
    """Does ``line`` (classified as ``new``) belong to the unit being built?"""
    if current.kind is not new.kind or current.kind is BlockKind.TABLE:
        return False
    previous = current.lines[-1]
    gap = line.y0 - previous.y1
    height = max(previous.y1 - previous.y0, 1.0)
    if line.y0 < previous.y0 or gap > (_CODE_GAP if new.kind is BlockKind.CODE else _PARAGRAPH_GAP) * height:
        return False
    if new.kind is BlockKind.CODE:
        return True
    if new.kind is BlockKind.HEADING:
        if new.outline_entry is not None or current.outline_entry is not None:
            return new.outline_entry == current.outline_entry
        same_style = new.style == current.style and line.block == previous.block
        return same_style and len(current.lines) < _MAX_HEADING_LINES
    return line.block == previous.block and not LIST_ITEM.match(line.text)


def _extend(unit: Unit, line: Line) -> None:
    """Add a line: prose is joined, table-of-contents entries keep their line breaks.

    Code text is not kept up to date here; ``_code_text`` rebuilds it with indentation on emission.
    """
    if unit.kind is not BlockKind.CODE:
        keep_break = is_toc_entry(unit.lines[-1])
        unit.text = f"{unit.text}\n{line.text}" if keep_break else join_wrapped(unit.text, line.text)
    unit.lines.append(line)


def _is_label(unit: Unit, following: Unit | None) -> bool:
    """A short font heading right before a heading at least as large ("Chapter 3" + "Using SDCC")."""
    if unit.style is None or following is None or following.kind is not BlockKind.HEADING:
        return False
    if len(unit.text) > _MAX_LABEL_CHARS or not following.lines:
        return False
    return following.lines[0].size >= unit.lines[0].size
