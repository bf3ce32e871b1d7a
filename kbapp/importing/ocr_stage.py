"""The OCR stage: after an import has made the text-layer pages searchable, read the scanned ones.

Pages are OCR'd one at a time in the bounded worker (a page that hangs, eats memory or crashes
the engine is marked failed with its reason and the stage goes on) and each is committed with its
passages as soon as it is read, so the library grows searchable page by page and a killed run
resumes at the first page still pending. Pages are read in order, and each continues the section
the page before it ended in (its last passage's heading path), so a scanned page carries
"Chapter 3 > 3.8 Interrupt Service Routines" like a text-layer page. Pages are read from the
library's kept copy when there is one, so moving or deleting the original after the import does
not stop OCR.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from kbapp.contract import OcrProgress, OcrReport, OcrState
from kbapp.importing.copies import CopyStore
from kbapp.importing.reading import ImportCancelled, PageReader
from kbapp.ingest.document import IngestError
from kbapp.store import ocr_pages
from kbapp.store.database import write_transaction
from kbapp.store.errors import classify


def run_ocr(
    engine: Engine,
    read_page: PageReader,
    copies: CopyStore,
    progress: Callable[[OcrProgress], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> OcrReport:
    """OCR every pending page of every document; returns what was done (cancel keeps the rest pending)."""
    started = time.perf_counter()
    report = OcrReport()
    with engine.connect() as conn:
        todo = ocr_pages.pending(conn)
    read: dict[str, Path] = {}  # the file read for each kept copy
    try:
        for done, page in enumerate(todo):
            if cancel is not None and cancel():
                report.cancelled = True
                break
            name = Path(page.path).name
            elapsed = time.perf_counter() - started
            if progress is not None:
                left = elapsed / done * (len(todo) - done) if done else None
                progress(OcrProgress(done, len(todo), name, page.number, left))
            source = Path(page.path)
            if page.copy_path:
                if page.copy_path not in read:
                    read[page.copy_path] = copies.readable(page.copy_path) or source
                source = read[page.copy_path]
            with engine.connect() as conn:
                context = ocr_pages.heading_before(conn, page)
            try:
                result = read_page(source, cancel, page.number, context)
            except ImportCancelled:
                report.cancelled = True
                break
            except IngestError as error:
                message = error.message.replace(source.name, name, 1)
                with write_transaction(engine) as conn:
                    ocr_pages.fail_page(conn, page, message)
                report.failed.append(message)
                continue
            text = result.document.pages[0] if result.document.pages else None
            with write_transaction(engine) as conn:
                lines = result.document.ocr_lines.get(page.number)
                ocr_pages.store_page(conn, page, text, result.chunks, result.terms, lines)
            report.pages += 1
        else:
            if progress is not None and todo:
                progress(OcrProgress(len(todo), len(todo), "", 0, 0.0))
    finally:
        copies.tidy(read.values())
    report.seconds = time.perf_counter() - started
    return report


class OcrStage:
    """The library's OCR stage: its page states, and runs of it with the library's page reader."""

    def __init__(
        self, engine: Engine, data_dir: Path, copies: CopyStore, read_page: Callable[[], PageReader]
    ) -> None:
        """``read_page()`` gives the reader of the next run (it may start the OCR worker)."""
        self._engine = engine
        self._data_dir = data_dir
        self._copies = copies
        self._read_page = read_page

    def states(self) -> dict[int, OcrState]:
        with self._engine.connect() as conn:
            return ocr_pages.states(conn)

    def pending(self) -> int:
        return sum(state.pending for state in self.states().values())

    def lines(self, doc_id: int) -> dict[int, str]:
        with self._engine.connect() as conn:
            return ocr_pages.document_lines(conn, doc_id)

    def run(
        self, progress: Callable[[OcrProgress], None] | None, cancel: Callable[[], bool] | None
    ) -> OcrReport:
        """Raises ``StorageError`` if the library cannot be written; pages done so far are kept."""
        try:
            return run_ocr(self._engine, self._read_page(), self._copies, progress, cancel)
        except (DBAPIError, OSError) as exc:
            storage = classify(exc, self._data_dir)
            if storage is None:
                raise
            raise storage from exc
