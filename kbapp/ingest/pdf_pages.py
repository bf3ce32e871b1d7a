"""Scanning a PDF's pages: each page's text fragments with their style, whether its text layer is
usable (``pdf_quality``), and its ruled tables, all from one MuPDF TextPage.

Scanning is most of the time a long manual takes to read (MuPDF's text extraction and PyMuPDF's
page dictionaries), and each page is scanned on its own. So where a reader may start a helper
(``helping``) a document of ``MIN_HELPED_PAGES`` or more is scanned from both ends at once: a
helper process scans from the last page backwards while this process scans from the first page
forwards, and they stop where they meet. The helper takes about 0.35 s to start (Python and
PyMuPDF, about 55 pages of scanning), and however slow it is to start, however busy, or if it dies
(a crash, its memory limit), this process simply scans more pages itself: a page scans the same
whichever process scans it, so the document read is the same either way.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from kbapp.child_process import exit_with_parent, spawn
from kbapp.ingest.helping import may_help
from kbapp.ingest.pdf_engine import pymupdf
from kbapp.ingest.pdf_layout import Fragment, extract_fragments
from kbapp.ingest.pdf_quality import PageStatus, text_status
from kbapp.ingest.pdf_tables import Table, find_tables

# Ligatures are expanded (no PRESERVE_LIGATURES); vector paths come along for table detection.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP | pymupdf.TEXT_COLLECT_VECTORS
# Below this a helper costs more than it saves. Round, between two measured manuals (in one
# process, here): exam-zh-doc.pdf, 57 pages, took longer with a helper (0.22 -> 0.26-0.35 s);
# sdccman.pdf, 134 pages, less (0.70 -> 0.55-0.63 s); gnuplot.pdf, 311 pages, 1.91 -> 1.29 s.
MIN_HELPED_PAGES = 100


@dataclass(slots=True)
class PageScan:
    number: int
    height: float
    status: PageStatus
    fragments: list[Fragment] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


def scan_pages(document: pymupdf.Document, path: Path) -> tuple[list[PageScan], list[int]]:
    """The scans of the pages that could be read, in page order, and the numbers of those that
    could not (damaged: one bad page must not cost the rest of the manual)."""
    count = document.page_count
    helper = _Helper.start(path, count) if may_help() and count >= MIN_HELPED_PAGES else None
    helped: dict[int, PageScan | None] = {}  # by page index, from the last page backwards
    mine: list[PageScan | None] = []
    try:
        while len(mine) < count - len(helped):
            if helper is not None:
                helper.collect(helped)
                if len(mine) >= count - len(helped):
                    break
            mine.append(_scan_or_none(document, len(mine)))
    finally:
        if helper is not None:
            helper.stop()
    pages = mine + [helped[index] for index in range(len(mine), count)]
    scans = [scan for scan in pages if scan is not None]
    return scans, [index + 1 for index, scan in enumerate(pages) if scan is None]


def _scan_or_none(document: pymupdf.Document, index: int) -> PageScan | None:
    try:
        return _scan(document.load_page(index))
    except Exception:  # a damaged page
        return None


def _scan(page: pymupdf.Page) -> PageScan:
    number = page.number + 1
    height = page.rect.height
    textpage = page.get_textpage(flags=_TEXT_FLAGS)
    page_dict = textpage.extractDICT()
    fragments = extract_fragments(page_dict)
    status = text_status(fragments, page)
    if status is not PageStatus.OK:
        return PageScan(number, height, status)
    tables = find_tables(page_dict["blocks"], textpage.extractWORDS)
    if tables:
        fragments = [fragment for fragment in fragments if not _in_tables(fragment, tables)]
    return PageScan(number, height, status, fragments, tables)


def _in_tables(fragment: Fragment, tables: list[Table]) -> bool:
    x, y = (fragment.x0 + fragment.x1) / 2, (fragment.y0 + fragment.y1) / 2
    return any(table.contains(x, y) for table in tables)


class _Helper:
    """The helper process and the receiving end of the page scans it sends."""

    def __init__(self, proc: BaseProcess, conn: Connection) -> None:
        self._proc = proc
        self._conn: Connection | None = conn

    @classmethod
    def start(cls, path: Path, count: int) -> _Helper | None:
        """A helper scanning ``path`` backwards, or None when no process can be started."""
        receiving, sending = Pipe(duplex=False)
        try:
            args = (sending, str(path), count, _identity(path))
            proc = spawn(scan_backwards, args, "kbapp-pdf-helper")
        except OSError:
            receiving.close()
            return None
        finally:
            sending.close()
        return cls(proc, receiving)

    def collect(self, into: dict[int, PageScan | None]) -> None:
        """Add the scans that have arrived (without waiting for any)."""
        try:
            while self._conn is not None and self._conn.poll():
                index, scan = self._conn.recv()
                into[index] = scan
        except (EOFError, OSError):  # the helper is gone: this process scans the rest
            self._conn = None

    def stop(self) -> None:
        """Kill the helper, then close the pipe: closed first, a helper in the middle of sending
        would print a broken pipe's traceback on the user's terminal."""
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join(5)
        if self._conn is not None:
            self._conn.close()


def _identity(path: Path | str) -> tuple[int, int, int]:
    st = os.stat(path)
    return st.st_ino, st.st_size, st.st_mtime_ns


def scan_backwards(conn: Connection, path: str, count: int, identity: tuple[int, int, int]) -> None:
    """The helper: send ``(index, scan or None)`` for each page from the last one backwards until
    it is stopped. It sends nothing if the file is no longer the one the reader opened (replaced
    or rewritten since: a document must not be read half from each) or has another page count."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the importing process to handle
    exit_with_parent()
    document = pymupdf.open(path, filetype="pdf")
    if document.needs_pass:
        document.authenticate("")
    if _identity(path) != identity or document.page_count != count:
        return
    for index in range(count - 1, -1, -1):
        try:
            conn.send((index, _scan_or_none(document, index)))
        except OSError:  # the reader has what it needs and stopped listening
            return
