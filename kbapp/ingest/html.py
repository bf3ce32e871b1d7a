"""HTML reader: the text a person sees in a browser, with the structure kept as blocks.

Scripts, styles, templates and hidden elements are dropped; h1-h6 become headings, ``pre`` becomes
code, data tables become table blocks, and every other block-level element ends a paragraph.
Tables that only lay out the page (nested tables, headings inside cells, a single column) are read
as ordinary content instead. The EPUB reader reuses ``add_body`` for its chapters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from enum import Enum
from pathlib import Path

from bs4 import (
    BeautifulSoup,
    Comment,
    Declaration,
    Doctype,
    NavigableString,
    PageElement,
    ProcessingInstruction,
    Tag,
)

from kbapp.ingest.builder import PageBuilder
from kbapp.ingest.decoding import decode_declared
from kbapp.ingest.document import BlockKind, IngestErrorKind, ParsedDocument
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.source import read_all
from kbapp.ingest.textnorm import collapse_spaces, is_cjk

_DROPPED = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "head",
        "iframe",
        "object",
        "canvas",
        "select",
        "datalist",
    }
)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details",
        "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header",
        "hgroup", "hr", "html", "legend", "li", "main", "nav", "ol", "p", "section", "summary",
        "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
_LAYOUT_MARKERS = frozenset({"table", "h1", "h2", "h3", "h4", "h5", "h6", "pre"})
_NOT_TEXT = (Comment, Declaration, Doctype, ProcessingInstruction)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_DECLARED_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)|<\?xml[^>]+encoding\s*=\s*["']([\w:.-]+)""", re.I
)
_HTML_SPACE = re.compile(r"[ \t\r\n\f]+")
_BREAK = "\u2028"  # stands for <br> until whitespace is collapsed; clean_text turns it into "\n"
_MAX_COLSPAN = 50


def parse_html(path: Path) -> ParsedDocument:
    data = read_all(path)
    decoded = decode_declared(data, declared_encoding(data), path)
    soup = parse_markup(decoded.text)
    builder = PageBuilder(None)
    first_h1 = add_body(soup, builder)
    if builder.is_empty:
        raise ingest_error(IngestErrorKind.EMPTY, path, "no visible text")
    title = markup_title(soup) or first_h1 or path.stem
    return ParsedDocument(title=title, doc_type="html", pages=[builder.build()], warnings=decoded.warnings)


def declared_encoding(data: bytes) -> str | None:
    """The charset named by a meta tag or XML declaration near the start of the file."""
    match = _DECLARED_CHARSET.search(data[:4096])
    if match is None:
        return None
    return (match.group(1) or match.group(2)).decode("ascii", errors="ignore") or None


def parse_markup(markup: str) -> BeautifulSoup:
    return BeautifulSoup(markup, "lxml")


def markup_title(soup: BeautifulSoup) -> str | None:
    title = soup.find("title")
    text = collapse_spaces(title.get_text()) if title is not None else ""
    return text or None


def add_body(soup: BeautifulSoup, builder: PageBuilder) -> str | None:
    """Add the visible blocks of ``soup`` to ``builder``; returns the first h1's text, if any."""
    collector = _Collector(builder)
    collector.walk(soup.body or soup)
    collector.flush()
    return collector.first_h1


class _Entered(Enum):
    """What ``_Collector.walk`` does with an element's children after handling the element."""

    NO = "no"  # dropped, or already added whole (heading, code, data table, line break)
    INLINE = "inline"  # walk them as part of the current paragraph
    BLOCK = "block"  # walk them, then end the paragraph


class _Collector:
    """Walks the DOM, buffering inline text until a block boundary flushes it as a paragraph."""

    def __init__(self, builder: PageBuilder) -> None:
        self.builder = builder
        self.inline: list[str] = []
        self.first_h1: str | None = None

    def walk(self, root: Tag) -> None:
        """Depth-first over ``root``'s children with an explicit stack instead of recursion.

        Generated or broken pages nest elements thousands deep (an unclosed ``<div>`` per row),
        far past Python's recursion limit; lxml keeps every level, so the walk must too.
        """
        stack: list[Iterator[PageElement] | None] = [iter(root.children)]
        while stack:
            children = stack.pop()
            if children is None:  # end of a block-level element
                self.flush()
                continue
            for child in children:
                if isinstance(child, Tag):
                    entered = self._element(child)
                    if entered is not _Entered.NO:
                        stack.append(children)  # resume the siblings once the element is done
                        if entered is _Entered.BLOCK:
                            stack.append(None)
                        stack.append(iter(child.children))
                        break
                elif isinstance(child, NavigableString) and not isinstance(child, _NOT_TEXT):
                    self.inline.append(str(child))

    def flush(self) -> None:
        text = normalise_inline("".join(self.inline))
        self.inline.clear()
        self.builder.add(BlockKind.TEXT, text)

    def _element(self, tag: Tag) -> _Entered:
        """Handle ``tag`` itself; the return value tells ``walk`` whether to go into its children."""
        name = tag.name.lower()
        if name in _DROPPED or _is_hidden(tag):
            return _Entered.NO
        if name == "br":
            self.inline.append(_BREAK)
        elif name in _HEADINGS:
            self.flush()
            text = element_text(tag)
            self.builder.add(BlockKind.HEADING, text, level=int(name[1]))
            if name == "h1" and self.first_h1 is None and text:
                self.first_h1 = text
        elif name == "pre" or (name == "code" and "\n" in tag.get_text().strip()):
            self.flush()
            self.builder.add(BlockKind.CODE, tag.get_text())
        elif name == "table" and (table := _data_table(tag)) is not None:
            self.flush()
            self.builder.add_table(*table)
        elif name in _BLOCKS:
            self.flush()
            return _Entered.BLOCK
        else:
            return _Entered.INLINE
        return _Entered.NO


def element_text(tag: Tag) -> str:
    """Visible text of an element on one line (for headings and table cells)."""
    return collapse_spaces(normalise_inline("".join(_visible_strings(tag))))


def normalise_inline(text: str) -> str:
    """Collapse HTML whitespace like a browser: one space, none at a line break between CJK characters."""

    def replace(match: re.Match[str]) -> str:
        before = text[match.start() - 1] if match.start() else ""
        after = text[match.end()] if match.end() < len(text) else ""
        if "\n" in match.group() and before and after and is_cjk(before) and is_cjk(after):
            return ""
        return " "

    return _HTML_SPACE.sub(replace, text).strip()


def _visible_strings(tag: Tag) -> Iterator[str]:
    """Visible strings under ``tag`` in document order; iterative for the same reason as ``walk``."""
    stack: list[Iterator[PageElement]] = [iter(tag.children)]
    while stack:
        for child in stack[-1]:
            if isinstance(child, Tag):
                name = child.name.lower()
                if name in _DROPPED or _is_hidden(child):
                    continue
                if name == "br":
                    yield " "
                else:
                    stack.append(iter(child.children))
                    break
            elif isinstance(child, NavigableString) and not isinstance(child, _NOT_TEXT):
                yield str(child)
        else:
            stack.pop()


def _is_hidden(tag: Tag) -> bool:
    return tag.has_attr("hidden") or bool(_HIDDEN_STYLE.search(str(tag.get("style") or "")))


def _data_table(table: Tag) -> tuple[list[list[str]], int] | None:
    """Rows and header-row count of a data table, or None for a layout table."""
    if any(tag.name in _LAYOUT_MARKERS for tag in _descendant_tags(table)):
        return None
    rows: list[list[str]] = []
    header_flags: list[bool] = []
    for row, in_thead in _own_rows(table):
        cells: list[str] = []
        all_th = True
        for cell in row.find_all(["td", "th"], recursive=False):
            all_th = all_th and cell.name == "th"
            cells.append(element_text(cell))
            cells.extend([""] * (_colspan(cell) - 1))
        if cells:
            rows.append(cells)
            header_flags.append(in_thead or all_th)
    if not rows or max(len(cells) for cells in rows) < 2:
        return None
    header_rows = next((index for index, flag in enumerate(header_flags) if not flag), len(rows))
    return rows, header_rows or 1


def _descendant_tags(tag: Tag) -> Iterator[Tag]:
    """Elements under ``tag`` in document order, stopping as soon as the caller does.

    bs4's ``find``/``descendants`` first walks down to the last descendant, which makes checking
    every table of a page with tables nested thousands deep quadratic.
    """
    stack: list[Iterator[PageElement]] = [iter(tag.children)]
    while stack:
        for child in stack[-1]:
            if isinstance(child, Tag):
                yield child
                stack.append(iter(child.children))
                break
        else:
            stack.pop()


def _own_rows(table: Tag) -> Iterator[tuple[Tag, bool]]:
    """Rows of this table (directly or via thead/tbody/tfoot), not of tables nested in cells."""
    for child in table.find_all(True, recursive=False):
        if child.name == "tr":
            yield child, False
        elif child.name in ("thead", "tbody", "tfoot"):
            for row in child.find_all("tr", recursive=False):
                yield row, child.name == "thead"


def _colspan(cell: Tag) -> int:
    try:
        return min(max(int(str(cell.get("colspan") or 1)), 1), _MAX_COLSPAN)
    except ValueError:
        return 1
