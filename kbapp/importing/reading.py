"""What the importer gets from one file: its pages and passages, or the reason it has none.

The pages handed back carry their text only: layout blocks are what the chunker needed, and the
library does not store them. A reader reads one file when called, or many through a ``session``:
the import submits files ahead while the session has room and takes the answers in file order,
so reading the next files overlaps storing the last ones.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kbapp.chunking import Chunk, ChunkingConfig, chunk_document
from kbapp.chunking.splitter import TokenCounter
from kbapp.ingest.document import IngestError, IngestErrorKind, Page, ParsedDocument
from kbapp.text.terms import index_terms

Parser = Callable[[Path], ParsedDocument]


class ImportCancelled(Exception):
    """The user cancelled while a file was being read."""


@dataclass(slots=True)
class ReadResult:
    document: ParsedDocument
    chunks: list[Chunk]
    terms: list[str]  # each passage's keyword-index terms, worked out where it was cut (the worker)


class ReadSession(Protocol):
    def room(self) -> bool:
        """Whether another file may be submitted before an answer is taken."""
        ...

    def submit(self, path: Path, size: int) -> None:
        """Ask for ``path`` (``size`` bytes: how much reading it is likely to take)."""
        ...

    def next(self, timeout: float | None) -> ReadResult | IngestError | None:
        """The oldest submitted file's pages and passages, or why it has none; None if ``timeout``
        seconds passed first. Raises ``ImportCancelled``."""
        ...


class Reader(Protocol):
    def __call__(self, path: Path, cancel: Callable[[], bool] | None = None) -> ReadResult:
        """Read one file; raises ``IngestError`` (the file cannot be imported) or ``ImportCancelled``."""
        ...

    def session(self, cancel: Callable[[], bool] | None) -> AbstractContextManager[ReadSession]: ...


# Reads one page (path, cancel, page number, heading path in force where the page starts) into a
# one-page result; raises IngestError or ImportCancelled.
PageReader = Callable[[Path, Callable[[], bool] | None, int, Sequence[str]], ReadResult]


def chunked(
    doc: ParsedDocument, count_tokens: TokenCounter, chunking: ChunkingConfig, context: Sequence[str] = ()
) -> ReadResult:
    """The document cut into passages with their keyword terms, its pages reduced to their text;
    ``context`` as for ``chunk_document``."""
    chunks = chunk_document(doc, count_tokens, chunking, context)
    pages = [Page(p.number, p.text) for p in doc.pages]
    kept = ParsedDocument(
        doc.title, doc.doc_type, pages, doc.page_count, list(doc.warnings), doc.ocr_pages, doc.ocr_lines
    )
    return ReadResult(kept, chunks, [index_terms(chunk.text) for chunk in chunks])


def crash_error(path: Path, exc: BaseException) -> IngestError:
    return IngestError(
        IngestErrorKind.CRASHED, f"{path.name}: the reader crashed ({type(exc).__name__}: {exc})"
    )


class InProcessReader:
    """Reading in the importing process, without limits: for tests, debugging and custom parsers
    that cannot be sent to another process."""

    def __init__(
        self, parse: Parser, count_tokens: Callable[[], TokenCounter], chunking: ChunkingConfig
    ) -> None:
        self._parse = parse
        self._count = count_tokens
        self._chunking = chunking

    def __call__(self, path: Path, cancel: Callable[[], bool] | None = None) -> ReadResult:
        try:
            return chunked(self._parse(path), self._count(), self._chunking)
        except IngestError:
            raise
        except MemoryError as exc:
            raise IngestError(
                IngestErrorKind.TOO_LARGE, f"{path.name}: not enough memory to read it"
            ) from exc
        except Exception as exc:  # a reader bug costs this file, not the import
            raise crash_error(path, exc) from exc

    @contextmanager
    def session(self, cancel: Callable[[], bool] | None) -> Iterator[ReadSession]:
        """Files read one at a time, each when its answer is asked for."""
        yield OneAtATime(self)


class OneAtATime:
    """A session that reads each file when its answer is asked for (nothing is read ahead)."""

    def __init__(self, read: Callable[[Path], ReadResult]) -> None:
        self._read = read
        self._queue: deque[Path] = deque()

    def room(self) -> bool:
        return not self._queue

    def submit(self, path: Path, size: int) -> None:
        self._queue.append(path)

    def next(self, timeout: float | None) -> ReadResult | IngestError | None:
        try:
            return self._read(self._queue.popleft())
        except IngestError as err:
            return err
