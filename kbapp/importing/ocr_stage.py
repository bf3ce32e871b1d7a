"""The OCR stage: after an import has made the text-layer pages searchable, read the scanned ones.

Pages are OCR'd one at a time in the bounded worker (a page that hangs, eats memory or crashes
the engine is marked failed with its reason and the stage goes on) and each is committed with its
passages as soon as it is read, so the library grows searchable page by page and a killed run
resumes at the first page still pending. Pages are read from the library's kept copy when there
is one, so moving or deleting the original after the import does not stop OCR.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from kbapp.chunking import ChunkingConfig
from kbapp.chunking.splitter import TokenCounter
from kbapp.contract import OcrProgress, OcrReport, OcrState
from kbapp.importing.copies import CopyStore
from kbapp.importing.parse_worker import ParseLimits, ParseWorker
from kbapp.importing.reading import ImportCancelled, ReadResult, chunked, crash_error
from kbapp.ingest.document import IngestError
from kbapp.store import ocr_pages
from kbapp.store.database import write_transaction
from kbapp.store.errors import classify

# Reads one page (path, cancel, page number) into a one-page result; raises IngestError or ImportCancelled.
PageReader = Callable[[Path, Callable[[], bool] | None, int], ReadResult]


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
    for done, page in enumerate(todo):
        if cancel is not None and cancel():
            report.cancelled = True
            break
        name = Path(page.path).name
        current = f"{name} page {page.number}"
        elapsed = time.perf_counter() - started
        if progress is not None:
            left = elapsed / done * (len(todo) - done) if done else None
            progress(OcrProgress(done, len(todo), current, left))
        source = copies.resolve(page.copy_path) if page.copy_path else Path(page.path)
        try:
            result = read_page(source, cancel, page.number)
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
            ocr_pages.store_page(conn, page, text, result.chunks, result.document.ocr_lines.get(page.number))
        report.pages += 1
    else:
        if progress is not None and todo:
            progress(OcrProgress(len(todo), len(todo), "", 0.0))
    report.seconds = time.perf_counter() - started
    return report


class OcrStage:
    """The library's OCR stage: its page states, and runs of it in a worker of its own.

    The OCR worker is separate from the import's parse worker so each keeps its models loaded
    (the OCR engine in one, PyMuPDF and the tokenizer in the other). Without ``limits`` pages are
    read in this process (tests, debugging).
    """

    def __init__(
        self,
        engine: Engine,
        data_dir: Path,
        copies: CopyStore,
        chunking: ChunkingConfig,
        limits: ParseLimits | None,
        count_tokens: Callable[[], TokenCounter],
        tokenizer: Callable[[], Path | None],
    ) -> None:
        self._engine = engine
        self._data_dir = data_dir
        self._copies = copies
        self._chunking = chunking
        self._limits = limits
        self._count_tokens = count_tokens
        self._tokenizer = tokenizer
        self._worker: ParseWorker | None = None

    def states(self) -> dict[int, OcrState]:
        with self._engine.connect() as conn:
            return ocr_pages.states(conn)

    def lines(self, doc_id: int) -> dict[int, str]:
        with self._engine.connect() as conn:
            return ocr_pages.document_lines(conn, doc_id)

    def run(
        self, progress: Callable[[OcrProgress], None] | None, cancel: Callable[[], bool] | None
    ) -> OcrReport:
        """Raises ``StorageError`` if the library cannot be written; pages done so far are kept."""
        try:
            return run_ocr(self._engine, self._reader(), self._copies, progress, cancel)
        except (DBAPIError, OSError) as exc:
            storage = classify(exc, self._data_dir)
            if storage is None:
                raise
            raise storage from exc

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.stop()

    def _reader(self) -> PageReader:
        from kbapp.ocr.page_reader import ocr_page  # onnxruntime and the models load only when OCR runs

        if self._limits is None:
            return self._in_process
        if self._worker is None:
            self._worker = ParseWorker(
                ocr_page, self._chunking, self._limits, self._count_tokens, self._tokenizer
            )
        return self._worker

    def _in_process(self, path: Path, cancel: Callable[[], bool] | None, page: int) -> ReadResult:
        from kbapp.ocr.page_reader import ocr_page

        try:
            return chunked(ocr_page(path, page), self._count_tokens(), self._chunking)
        except IngestError:
            raise
        except Exception as exc:  # an OCR bug costs this page only
            raise crash_error(path, exc) from exc
