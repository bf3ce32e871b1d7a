"""PDF reader (PyMuPDF): per-page text in reading order with headings, tables and code.

Each page is scanned once with one TextPage: fragments with style, a cheap check that the text
layer is real (scanned pages and fonts without a Unicode map give no or garbage text, and are
reported as needing OCR instead of being indexed), and ruled tables. Then document-wide passes
drop running headers/footers, fix the body font size, match the outline to printed headings and
assign heading levels, and each page is emitted as blocks.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import pymupdf

from kbapp.ingest.errors import ingest_error
from kbapp.ingest.model import BlockKind, IngestErrorKind, Page, ParsedDocument
from kbapp.ingest.pdf_blocks import (
    PageContext,
    Unit,
    emit_page,
    font_heading_styles,
    outline_heading_styles,
    page_units,
)
from kbapp.ingest.pdf_headings import assign_levels, body_size
from kbapp.ingest.pdf_layout import Fragment, extract_fragments
from kbapp.ingest.pdf_order import reading_order
from kbapp.ingest.pdf_running import running_fragments
from kbapp.ingest.pdf_tables import Table, find_tables
from kbapp.ingest.textnorm import CJK_CLASS, clean_text, collapse_spaces

_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP  # ligatures expanded
_MAX_GARBAGE = 0.1
_MIN_ALNUM = 0.4
_MIN_TEXT_CHARS = 20
_IMAGE_COVER = 0.3
# Whitespace, leaders and rules: evidence neither of text nor of garbage.
_FILLERS = str.maketrans("", "", " \t\n.·…_-–—=*•|")
# Controls, private use (BMP and planes 15-16), U+FFFD.
_GARBAGE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ue000-\uf8ff\ufffd\U000f0000-\U0010ffff]")
_SAMPLE_CHARS = 4000
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")
_CJK = re.compile(f"[{CJK_CLASS}]")
_OTHER = re.compile(f"[^\\x00-\\u024f{CJK_CLASS}]")
_MIN_MAIN_SCRIPTS = 0.8
_PLACEHOLDER_TITLES = frozenset({"untitled", "title", "document", "slide 1", "no title", "unknown"})
_FILE_NAME_SUFFIXES = (
    ".pdf",
    ".doc",
    ".docx",
    ".tex",
    ".dvi",
    ".rtf",
    ".odt",
    ".txt",
    ".ps",
    ".indd",
    ".qxd",
)


class PageStatus(Enum):
    OK = "ok"
    BLANK = "blank"
    NEEDS_OCR = "needs OCR"
    GARBLED = "garbled"


@dataclass(slots=True)
class PageScan:
    number: int
    height: float
    status: PageStatus
    fragments: list[Fragment] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


def parse_pdf(path: Path) -> ParsedDocument:
    document = _open(path)
    try:
        return _read(document, path)
    finally:
        document.close()


def _open(path: Path) -> pymupdf.Document:
    try:
        document = pymupdf.open(path, filetype="pdf")
    except Exception as exc:  # MuPDF raises several unrelated types for unparsable files
        raise ingest_error(
            IngestErrorKind.CORRUPT, path, "not a valid PDF (file is damaged or truncated)"
        ) from exc
    if document.needs_pass and not document.authenticate(""):
        document.close()
        raise ingest_error(IngestErrorKind.ENCRYPTED, path, "encrypted PDF (password required)")
    if document.page_count == 0:
        document.close()
        raise ingest_error(IngestErrorKind.CORRUPT, path, "not a valid PDF (it has no pages)")
    return document


def _read(document: pymupdf.Document, path: Path) -> ParsedDocument:
    scans, damaged = _scan_pages(document)
    usable = [scan for scan in scans if scan.status is PageStatus.OK]
    unusable = [scan for scan in scans if scan.status in (PageStatus.NEEDS_OCR, PageStatus.GARBLED)]
    if not usable:
        raise _no_text_error(path, scans, damaged)
    outline = _outline(document)
    context = PageContext(
        body_size=body_size(fragment for scan in usable for fragment in scan.fragments),
        have_outline=bool(outline),
    )
    running = running_fragments([(scan.height, scan.fragments) for scan in usable])
    units_by_page = [(scan.number, _units(scan, running, context, outline)) for scan in usable]
    all_units = [unit for _, units in units_by_page for unit in units]
    levels = assign_levels(font_heading_styles(all_units), outline_heading_styles(all_units))
    pages = [page for number, units in units_by_page if (page := emit_page(number, units, levels)).blocks]
    if not pages:
        raise ingest_error(
            IngestErrorKind.NO_TEXT, path, "no text left after removing page headers and footers"
        )
    warnings = []
    if unusable:
        warnings.append(
            f"no usable text on {page_ranges([scan.number for scan in unusable])}; needs OCR"
        )
    if damaged:
        warnings.append(f"{page_ranges(damaged)} could not be read (damaged) and were skipped")
    return ParsedDocument(
        title=_title(document, pages, path),
        doc_type="pdf",
        pages=pages,
        page_count=document.page_count,
        warnings=warnings,
    )


def _scan_pages(document: pymupdf.Document) -> tuple[list[PageScan], list[int]]:
    scans: list[PageScan] = []
    damaged: list[int] = []
    for index in range(document.page_count):
        try:
            scans.append(_scan(document.load_page(index)))
        except Exception:  # a damaged page must not cost the rest of the manual
            damaged.append(index + 1)
    return scans, damaged


def _scan(page: pymupdf.Page) -> PageScan:
    number = page.number + 1
    height = page.rect.height
    textpage = page.get_textpage(flags=_TEXT_FLAGS)
    fragments = extract_fragments(textpage.extractDICT())
    status = _text_status(fragments, page)
    if status is not PageStatus.OK:
        return PageScan(number, height, status)
    tables = find_tables(page.get_cdrawings(), textpage.extractWORDS)
    if tables:
        fragments = [fragment for fragment in fragments if not _in_tables(fragment, tables)]
    return PageScan(number, height, status, fragments, tables)


def _text_status(fragments: list[Fragment], page: pymupdf.Page) -> PageStatus:
    """Is this page's text layer worth indexing?

    Scans have no text (or a stray page number) over a page-sized image. Fonts without a Unicode
    map come out as glyph ids read as code points: control characters, private-use characters,
    U+FFFD, or letters scattered over unrelated scripts (Arabic next to Ethiopic next to Han).
    """
    sample = "".join(fragment.text for fragment in fragments).translate(_FILLERS)[:_SAMPLE_CHARS]
    if sample:
        if len(_GARBAGE.findall(sample)) > _MAX_GARBAGE * len(sample) or _scattered_scripts(sample):
            return PageStatus.GARBLED
        alnum = sum(map(str.isalnum, sample))
        if len(sample) >= _MIN_TEXT_CHARS and alnum < _MIN_ALNUM * len(sample):
            return PageStatus.GARBLED
        if alnum >= _MIN_TEXT_CHARS:
            return PageStatus.OK
    if _image_cover(page) >= _IMAGE_COVER:
        return PageStatus.NEEDS_OCR
    return PageStatus.OK if sample else PageStatus.BLANK


def _scattered_scripts(sample: str) -> bool:
    """Real text is written in one or two scripts (Chinese + Latin); glyph-id soup is not."""
    scripts: Counter[str] = Counter(
        {"LATIN": len(_LATIN_LETTER.findall(sample)), "CJK": len(_CJK.findall(sample))}
    )
    scripts.update(
        unicodedata.name(char, "?").split(" ", 1)[0] for char in _OTHER.findall(sample) if char.isalpha()
    )
    total = scripts.total()
    if total < _MIN_TEXT_CHARS:
        return False
    return sum(count for _, count in scripts.most_common(2)) < _MIN_MAIN_SCRIPTS * total


def _image_cover(page: pymupdf.Page) -> float:
    """Share of the page covered by images (overlaps counted twice; only a rough test)."""
    area = abs(page.rect)
    if not area:
        return 0.0
    covered = 0.0
    for info in page.get_image_info():
        covered += abs(pymupdf.Rect(info["bbox"]) & page.rect)
    return covered / area


def _in_tables(fragment: Fragment, tables: list[Table]) -> bool:
    x, y = (fragment.x0 + fragment.x1) / 2, (fragment.y0 + fragment.y1) / 2
    return any(table.contains(x, y) for table in tables)


def _units(
    scan: PageScan, running: set[int], context: PageContext, outline: dict[int, list[tuple[int, str]]]
) -> list[Unit]:
    items: list[Fragment | Table] = [fragment for fragment in scan.fragments if id(fragment) not in running]
    items.extend(scan.tables)
    page_context = PageContext(context.body_size, context.have_outline, outline.get(scan.number, ()))
    return page_units(reading_order(items), page_context)


def _outline(document: pymupdf.Document) -> dict[int, list[tuple[int, str]]]:
    """Outline entries grouped by their 1-based target page; a broken outline counts as none."""
    try:
        toc = document.get_toc(simple=True)
    except Exception:  # outlines are optional metadata; damage there must not stop the import
        return {}
    entries: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for level, title, page in toc:
        if page >= 1 and title.strip():
            entries[page].append((level, title))
    return dict(entries)


def _no_text_error(path: Path, scans: list[PageScan], damaged: list[int]) -> Exception:
    garbled = [scan.number for scan in scans if scan.status is PageStatus.GARBLED]
    needs_ocr = [scan.number for scan in scans if scan.status is PageStatus.NEEDS_OCR]
    if not scans:
        return ingest_error(IngestErrorKind.CORRUPT, path, "not a valid PDF (file is damaged or truncated)")
    if garbled and len(garbled) >= len(needs_ocr):
        return ingest_error(
            IngestErrorKind.GARBLED,
            path,
            f"the text layer is garbled on {page_ranges(garbled + needs_ocr)} "
            "(fonts without a Unicode map); needs OCR",
        )
    if needs_ocr:
        return ingest_error(
            IngestErrorKind.NO_TEXT, path, f"no usable text on {page_ranges(needs_ocr)}; needs OCR"
        )
    return ingest_error(IngestErrorKind.NO_TEXT, path, "no text on any page (the pages are blank)")


def page_ranges(numbers: list[int]) -> str:
    """``[3, 7, 8, 9]`` -> ``"pages 3, 7–9"``; ``[4]`` -> ``"page 4"``."""
    ordered = sorted(set(numbers))
    ranges: list[str] = []
    start = previous = ordered[0]
    for number in [*ordered[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        ranges.append(str(start) if start == previous else f"{start}–{previous}")
        if number is not None:
            start = previous = number
    return ("page " if len(ordered) == 1 else "pages ") + ", ".join(ranges)


def _title(document: pymupdf.Document, pages: list[Page], path: Path) -> str:
    metadata_title = collapse_spaces(clean_text((document.metadata or {}).get("title") or ""))
    if _meaningful_title(metadata_title):
        return metadata_title
    for page in pages:
        for block in page.blocks:
            if block.kind is BlockKind.HEADING:
                return page.text[block.start : block.end]
    return path.stem


def _meaningful_title(title: str) -> bool:
    """Reject the placeholders producers write: "Untitled", "Microsoft Word - x.doc", file names."""
    lowered = title.lower()
    if len(title) < 3 or not any(char.isalpha() for char in title):
        return False
    if lowered in _PLACEHOLDER_TITLES or lowered.startswith("microsoft word - "):
        return False
    return not lowered.endswith(_FILE_NAME_SUFFIXES)
