"""PDF reader (PyMuPDF): per-page text in reading order with headings, tables and code.

Each page is scanned once (``pdf_pages``, a long document from both ends at once where a helper
process may run): fragments with style, a cheap check that the text layer is real
(``pdf_quality``: scanned pages and fonts without a Unicode map are listed in ``ocr_pages`` for
the OCR stage instead of being indexed), and ruled tables. Then document-wide passes
drop running headers/footers, fix the body font size, match the outline to printed headings and
assign heading levels, and each page is emitted as blocks.

MuPDF silently repairs damaged files, truncated downloads included, rebuilding what it can find.
What it recovers is imported, but never as if the file were fine: a repaired document carries a
warning (naming pages that came out empty, whose content was most likely lost), and a repaired
document with no text at all is reported as corrupt rather than as blank.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

from kbapp.ingest.document import BlockKind, IngestErrorKind, Page, ParsedDocument
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.pdf_blocks import (
    PageContext,
    Unit,
    emit_page,
    font_heading_styles,
    outline_heading_styles,
    page_units,
)
from kbapp.ingest.pdf_engine import pymupdf
from kbapp.ingest.pdf_headings import assign_levels, body_size
from kbapp.ingest.pdf_layout import Fragment
from kbapp.ingest.pdf_order import reading_order
from kbapp.ingest.pdf_pages import PageScan, scan_pages
from kbapp.ingest.pdf_quality import PageStatus
from kbapp.ingest.pdf_running import running_fragments
from kbapp.ingest.pdf_tables import Table
from kbapp.ingest.textnorm import clean_text, collapse_spaces

_PLACEHOLDER_TITLES = frozenset({"untitled", "title", "document", "slide 1", "no title", "unknown"})
_FILE_NAME = re.compile(r"\.(?:pdf|docx?|tex|dvi|rtf|odt|txt|ps|indd|qxd)$", re.I)
_CORRUPT = "not a valid PDF (file is damaged or truncated)"
_EOF_MARKER = b"%%EOF"
_EOF_WINDOW = 1024  # writers may append whitespace or padding after the end-of-file marker


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
        raise ingest_error(IngestErrorKind.CORRUPT, path, _CORRUPT) from exc
    if document.needs_pass and not document.authenticate(""):
        document.close()
        raise ingest_error(IngestErrorKind.ENCRYPTED, path, "encrypted PDF (password required)")
    if document.page_count == 0:
        repaired = document.is_repaired
        document.close()
        raise ingest_error(
            IngestErrorKind.CORRUPT, path, _CORRUPT if repaired else "not a valid PDF (it has no pages)"
        )
    return document


def _read(document: pymupdf.Document, path: Path) -> ParsedDocument:
    scans, damaged = scan_pages(document, path)
    usable = [scan for scan in scans if scan.status is PageStatus.OK]
    unusable = [scan for scan in scans if scan.status in (PageStatus.NEEDS_OCR, PageStatus.GARBLED)]
    if not usable and unusable and not document.is_repaired:
        reason = str(_no_text_error(path, scans, damaged, repaired=False)).removeprefix(f"{path.name}: ")
        return ParsedDocument(
            title=_title(document, [], path),
            doc_type="pdf",
            pages=[],
            page_count=document.page_count,
            warnings=[reason],
            ocr_pages=[scan.number for scan in unusable],
        )
    if not usable:
        raise _no_text_error(path, scans, damaged, document.is_repaired)
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
    if document.is_repaired:
        blank = [scan.number for scan in scans if scan.status is PageStatus.BLANK]
        warnings.append(_repair_warning(path, blank))
    if unusable:
        warnings.append(f"no usable text on {page_ranges([scan.number for scan in unusable])}; needs OCR")
    if damaged:
        warnings.append(f"{page_ranges(damaged)} could not be read (damaged) and were skipped")
    return ParsedDocument(
        title=_title(document, pages, path),
        doc_type="pdf",
        pages=pages,
        page_count=document.page_count,
        warnings=warnings,
        ocr_pages=[scan.number for scan in unusable],
    )


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


def _repair_warning(path: Path, blank_pages: list[int]) -> str:
    """Say that MuPDF had to rebuild the file, and which pages that cost, if it shows."""
    if _truncated(path):
        what = "the file is truncated (its end is missing) and was repaired"
    else:
        what = "the file is damaged and was repaired"
    if blank_pages:
        return f"{what}; {page_ranges(blank_pages)} came out empty (content probably lost)"
    return f"{what}; some content may be missing"


def _truncated(path: Path) -> bool:
    """A complete PDF ends with ``%%EOF``; a cut-off download or copy does not."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - _EOF_WINDOW))
            return _EOF_MARKER not in handle.read()
    except OSError:
        return False


def _no_text_error(path: Path, scans: list[PageScan], damaged: list[int], repaired: bool) -> Exception:
    garbled = [scan.number for scan in scans if scan.status is PageStatus.GARBLED]
    needs_ocr = [scan.number for scan in scans if scan.status is PageStatus.NEEDS_OCR]
    if not scans:
        return ingest_error(IngestErrorKind.CORRUPT, path, _CORRUPT)
    if repaired and not garbled and not needs_ocr:
        # Blank pages in a rebuilt file are pages whose content was lost, not a blank document.
        return ingest_error(IngestErrorKind.CORRUPT, path, f"{_CORRUPT}; no text could be recovered")
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
    return not _FILE_NAME.search(title)
