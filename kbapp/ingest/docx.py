"""Word (.docx) reader: body paragraphs and tables in document order.

The package's document, styles and core properties are read straight from the archive
(``opc``); the body is walked as XML so paragraphs and tables interleave as they do on screen.
Headings come from the style (built-in "heading N"/"Title", localised names such as "标题 1"
written by WPS and older Chinese Word, or the style's outline level) or a direct outline level on
the paragraph. Text boxes, headers, footers and footnotes are not read.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from kbapp.ingest.builder import PageBuilder
from kbapp.ingest.document import BlockKind, IngestError, IngestErrorKind, ParsedDocument
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.opc import Package
from kbapp.ingest.textnorm import collapse_spaces
from kbapp.ingest.ziputil import open_archive

_WHAT = "Word document"
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_DOCX_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_WORD_TYPES = "application/vnd.ms-word.", "application/vnd.openxmlformats-officedocument.wordprocessingml."
_HEADING_NAME = re.compile(
    r"^(?:heading|标题|標題|überschrift|titre|titolo|título|見出し|заголовок)\s*([1-9])$", re.I
)
_TITLE_NAMES = frozenset({"title", "标题", "標題"})
_MAX_STYLE_DEPTH = 10


def _qn(tag: str) -> str:
    """``w:p`` as lxml names it."""
    return _W + tag.removeprefix("w:")


_P, _TBL, _TR, _TC = _qn("w:p"), _qn("w:tbl"), _qn("w:tr"), _qn("w:tc")
_SDT, _SDT_CONTENT, _CUSTOM_XML = _qn("w:sdt"), _qn("w:sdtContent"), _qn("w:customXml")
_T, _TAB, _BR, _CR = _qn("w:t"), _qn("w:tab"), _qn("w:br"), _qn("w:cr")
_NO_BREAK_HYPHEN = _qn("w:noBreakHyphen")
_SKIPPED = frozenset(
    {
        _qn("w:pPr"), _qn("w:rPr"), _qn("w:del"), _qn("w:txbxContent"),
        "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback",
    }
)  # fmt: skip
_VAL = _qn("w:val")
_BODY, _PPR, _PSTYLE, _OUTLINE_LVL = _qn("w:body"), _qn("w:pPr"), _qn("w:pStyle"), _qn("w:outlineLvl")
_STYLE, _STYLE_ID, _NAME, _BASED_ON = _qn("w:style"), _qn("w:styleId"), _qn("w:name"), _qn("w:basedOn")


@dataclass(frozen=True, slots=True)
class _Style:
    name: str
    based_on: str | None
    outline_level: int | None


# A package without a styles part: the ids Word gives its built-in headings (python-docx, which
# read these files before, supplied its default styles in that case).
_BUILT_IN_STYLES = {f"Heading{n}": _Style(f"heading {n}", None, None) for n in range(1, 10)} | {
    "Title": _Style("title", None, None)
}


# Documents written from one template (a company's, python-docx's default) carry the same styles
# part, often hundreds of kilobytes: parsing it was more than half of reading a small generated
# document (125 of them: 0.79 s, 0.16 s with this). The styles read from a part are kept by a
# digest of its bytes, for the reader's later files; the same bytes always read the same.
_STYLES_KEPT = 32
_kept_styles: dict[bytes, Mapping[str, _Style]] = {}
_kept_lock = threading.Lock()


def _styles(package: Package, part: str) -> Mapping[str, _Style]:
    digest = hashlib.blake2b(package.data(part), digest_size=16).digest()
    with _kept_lock:
        kept = _kept_styles.get(digest)
    if kept is not None:
        return kept
    styles = _read_styles(package.xml(part))
    with _kept_lock:
        if len(_kept_styles) >= _STYLES_KEPT:
            del _kept_styles[next(iter(_kept_styles))]
        _kept_styles[digest] = styles
    return styles


def parse_docx(path: Path) -> ParsedDocument:
    with open_archive(path, _WHAT) as archive:  # integrity and zip-bomb check before inflating
        package = Package(archive, path, _WHAT)
        main = package.related("", "officeDocument")
        if main is None:
            raise ingest_error(IngestErrorKind.CORRUPT, path, f"not a valid {_WHAT} (no main document part)")
        content_type = package.content_type(main)
        if content_type != _DOCX_MAIN:
            raise _not_docx(path, content_type)
        body = package.xml(main).find(_BODY)
        if body is None:
            raise ingest_error(IngestErrorKind.CORRUPT, path, f"not a valid {_WHAT} (no document body)")
        styles_part = package.related(main, "styles")
        styles = _styles(package, styles_part) if styles_part else _BUILT_IN_STYLES
        core = package.related("", "metadata/core-properties")
        title_element = package.xml(core).find(_DC_TITLE) if core else None
        core_title = collapse_spaces(title_element.text or "") if title_element is not None else ""
    builder = PageBuilder(None)
    first_heading = None
    for element in _body_items(body):
        if element.tag == _TBL:
            rows, header_rows = _table_rows(element)
            builder.add_table(rows, header_rows)
            continue
        text = paragraph_text(element)
        level = _heading_level(element, styles)
        builder.add(BlockKind.HEADING if level else BlockKind.TEXT, text, level)
        if level and first_heading is None and text.strip():
            first_heading = collapse_spaces(text)
    if builder.is_empty:
        raise ingest_error(IngestErrorKind.EMPTY, path, "no text found in the document body")
    title = core_title or first_heading or path.stem
    return ParsedDocument(title=title, doc_type="docx", pages=[builder.build()])


def _not_docx(path: Path, content_type: str) -> IngestError:
    """A .docm, .dotx or .dotm, or another Office format under a .docx name."""
    if content_type.startswith(_WORD_TYPES):
        return ingest_error(
            IngestErrorKind.UNSUPPORTED,
            path,
            "macro-enabled or template Word files are not supported; save as .docx",
        )
    reason = f"not a Word document (its main part is {content_type or 'undeclared'})"
    return ingest_error(IngestErrorKind.UNSUPPORTED, path, reason)


def paragraph_text(paragraph: etree._Element) -> str:
    """Visible text of a ``w:p``: runs, hyperlinks, insertions; not deletions or fallbacks."""
    return "".join(_run_text(paragraph))


def _run_text(element: etree._Element) -> Iterator[str]:
    for child in element:
        tag = child.tag
        if tag == _T:
            yield child.text or ""
        elif tag == _TAB:
            yield "\t"
        elif tag in (_BR, _CR):
            yield "\n"
        elif tag == _NO_BREAK_HYPHEN:
            yield "-"
        elif tag not in _SKIPPED:
            yield from _run_text(child)


def _body_items(container: etree._Element) -> Iterator[etree._Element]:
    """Paragraphs and tables in order, looking through content controls and custom XML wrappers."""
    for child in container:
        if child.tag in (_P, _TBL):
            yield child
        elif child.tag == _SDT:
            content = child.find(_SDT_CONTENT)
            if content is not None:
                yield from _body_items(content)
        elif child.tag == _CUSTOM_XML:
            yield from _body_items(child)


def _table_rows(table: etree._Element) -> tuple[list[list[str]], int]:
    """Cell texts per row (merged cells padded so columns line up) and the number of header rows."""
    rows: list[list[str]] = []
    header_rows = 0
    for row in table.iterchildren(_TR):
        cells: list[str] = []
        for cell in row.iterchildren(_TC):
            continued = cell.find(f"{_qn('w:tcPr')}/{_qn('w:vMerge')}")
            is_continuation = continued is not None and continued.get(_VAL, "continue") == "continue"
            text = "" if is_continuation else " ".join(paragraph_text(p) for p in cell.iter(_P))
            cells.append(text)
            cells.extend([""] * (_grid_span(cell) - 1))
        if row.find(f"{_qn('w:trPr')}/{_qn('w:tblHeader')}") is not None and header_rows == len(rows):
            header_rows += 1
        rows.append(cells)
    return rows, header_rows or 1


def _grid_span(cell: etree._Element) -> int:
    span = cell.find(f"{_qn('w:tcPr')}/{_qn('w:gridSpan')}")
    try:
        return min(max(int(span.get(_VAL, "1")), 1), 64) if span is not None else 1
    except ValueError:
        return 1


def _read_styles(styles: etree._Element) -> dict[str, _Style]:
    result = {}
    for style in styles.iterchildren(_STYLE):
        style_id = style.get(_STYLE_ID)
        if style_id is None:
            continue
        name = style.find(_NAME)
        based_on = style.find(_BASED_ON)
        result[style_id] = _Style(
            name=(name.get(_VAL, "") if name is not None else "").strip().lower(),
            based_on=based_on.get(_VAL) if based_on is not None else None,
            outline_level=_outline_level(style.find(_PPR)),
        )
    return result


def _heading_level(paragraph: etree._Element, styles: Mapping[str, _Style]) -> int:
    """1-6 for headings, 0 for body text."""
    properties = paragraph.find(_PPR)
    direct = _outline_level(properties)
    if direct is not None:
        return direct
    style_ref = properties.find(_PSTYLE) if properties is not None else None
    style_id = style_ref.get(_VAL) if style_ref is not None else None
    for _ in range(_MAX_STYLE_DEPTH):
        style = styles.get(style_id) if style_id else None
        if style is None:
            return 0
        match = _HEADING_NAME.match(style.name)
        if match:
            return min(int(match.group(1)), 6)
        if style.name in _TITLE_NAMES:
            return 1
        if style.outline_level is not None:
            return style.outline_level
        style_id = style.based_on
    return 0


def _outline_level(properties: etree._Element | None) -> int | None:
    """Heading level from ``w:outlineLvl`` (0-based; 9 means body text)."""
    if properties is None:
        return None
    level = properties.find(_OUTLINE_LVL)
    try:
        value = int(level.get(_VAL, "9")) if level is not None else 9
    except ValueError:
        return None
    return min(value + 1, 6) if 0 <= value < 9 else None
