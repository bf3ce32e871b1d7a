"""The library's readers and the worker processes behind them: whole files for imports, single
scanned pages for the OCR stage.

With limits files are read in bounded workers (see ``parse_worker``; up to one per core for an
import, ``read_pool``), started when first needed; without, in this process (tests, debugging,
custom parsers that cannot be pickled). File and page workers are separate so each keeps its
models loaded (PyMuPDF in one, the OCR engine in the other); each is shared by everything the
library reads (a folder sync included) and all are stopped when the library closes.
"""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kbapp.chunking import ChunkingConfig
from kbapp.embedding.handle import ModelHandle
from kbapp.importing.limits import ParseLimits
from kbapp.importing.reading import (
    InProcessReader,
    PageReader,
    Parser,
    Reader,
    ReadResult,
    chunked,
    crash_error,
)
from kbapp.ingest.document import IngestError

if TYPE_CHECKING:  # the worker modules load when the first worker is made: a search never needs them
    from kbapp.importing.parse_worker import PageParser, ParseWorker
    from kbapp.importing.read_pool import ReadPool


class Readers:
    def __init__(
        self,
        parse: Parser,
        chunking: ChunkingConfig,
        limits: ParseLimits | None,
        model: ModelHandle,
    ) -> None:
        """``parse`` must be a module-level function when there are ``limits`` (the worker gets it
        pickled): a ``ValueError`` says so now rather than at the first file. Passages are cut to
        budgets in ``model``'s tokens."""
        if limits is not None:
            require_picklable(parse)
        self._parse = parse
        self._chunking = chunking
        self._limits = limits
        self._count_tokens = model.token_counter
        self._tokenizer = model.tokenizer_path
        self._file_workers: ReadPool | None = None
        self._page_worker: ParseWorker | None = None

    def files(self) -> Reader:
        """The reader of the next import; its worker is started now (in the background), the
        tokenizer is loaded when the first file is read (an import of unchanged files needs neither)."""
        if self._limits is None:
            return InProcessReader(self._parse, self._count_tokens, self._chunking)
        if self._file_workers is None:
            from kbapp.importing.read_pool import ReadPool, worker_count

            parse, limits = self._parse, self._limits
            self._file_workers = ReadPool(lambda: self._worker(parse, limits), worker_count())
        with contextlib.suppress(OSError):  # reported for the first file, if it persists
            self._file_workers.start()
        return self._file_workers

    def pages(self) -> PageReader:
        """The reader of the OCR stage (onnxruntime and the OCR models load only when OCR runs)."""
        from kbapp.ocr.page_reader import ocr_page

        if self._limits is None:
            return self._page_in_process
        if self._page_worker is None:
            self._page_worker = self._worker(ocr_page, self._limits)
        return self._page_worker

    def stop(self) -> None:
        if self._file_workers is not None:
            self._file_workers.stop()
        if self._page_worker is not None:
            self._page_worker.stop()

    def _worker(self, parse: Parser | PageParser, limits: ParseLimits) -> ParseWorker:
        from kbapp.importing.parse_worker import ParseWorker

        return ParseWorker(parse, self._chunking, limits, self._count_tokens, self._tokenizer)

    def _page_in_process(
        self, path: Path, cancel: Callable[[], bool] | None, page: int, context: Sequence[str]
    ) -> ReadResult:
        from kbapp.ocr.page_reader import ocr_page

        try:
            return chunked(ocr_page(path, page), self._count_tokens(), self._chunking, context)
        except IngestError:
            raise
        except Exception as exc:  # an OCR bug costs this page only
            raise crash_error(path, exc) from exc


def require_picklable(parse: Parser) -> None:
    """The worker is spawned, so it gets ``parse`` by pickling: a lambda or a nested function fails
    there, at the first file, with an error that does not say why. Say it up front."""
    try:
        pickle.dumps(parse)
    except (pickle.PicklingError, AttributeError, TypeError) as err:
        raise ValueError(
            "parse must be a module-level function to run in the parse worker "
            "(or pass parse_limits=None to read in this process)"
        ) from err
