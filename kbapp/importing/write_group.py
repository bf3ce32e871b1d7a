"""Writing what an import has read in groups: several small documents per transaction.

Every commit waits for the disk (``synchronous=FULL`` fsyncs the WAL), as does making each kept
copy durable; for a folder of small files those waits were most of the import. A group collects
what was read — documents with their staged copies, failures, files settled without reading —
and writes it in one go: the copies are fsynced together and moved into place, the catalogue
gets one append, and one transaction stores the documents and marks their files done in the
journal. A crash at any moment leaves all of a group's documents in the library or none of
them, and the journal marks exactly the stored ones done, so a resumed import reads the rest
again.

The first file of a run is written alone, so it is searchable (and reported) at once; after that
a group is written when it holds ``MAX_FILES`` files or ``MAX_BYTES`` of them, or its oldest file
has waited ``MAX_WAIT`` seconds (a slow file behind it does not hold the ones before it back).
A large file fills a group alone: grouping only pays where commits cost more than reading.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Connection, Engine

from kbapp.contract import DocumentRecord, DocumentStatus, FileReport, Outcome
from kbapp.importing.catalogue import CatalogueEntry
from kbapp.importing.copies import CopyStore, StagedCopy
from kbapp.importing.reading import ReadResult
from kbapp.store import journal, repository
from kbapp.store.database import write_transaction

MAX_FILES = 200
MAX_BYTES = 512 * 1024
MAX_WAIT = 0.25


@dataclass(frozen=True, slots=True)
class Settled:
    """Decided without reading: unchanged, a duplicate of the document at ``twin``, or unreadable."""

    report: FileReport
    twin: str | None = None


@dataclass(frozen=True, slots=True)
class Failed:
    """Read, and not importable: remembered in the library with the reason."""

    facts: repository.FileFacts
    report: FileReport


@dataclass(frozen=True, slots=True)
class Stored:
    """Read: stored as a document beside its kept copy, replacing the one of the same path."""

    facts: repository.FileFacts
    result: ReadResult
    copy: StagedCopy | None
    replaces: DocumentRecord | None
    name: str


Written = Settled | Failed | Stored


def _size(item: Written) -> int:
    return 0 if isinstance(item, Settled) else item.facts.size


class WriteGroup:
    def __init__(self, engine: Engine, copies: CopyStore | None) -> None:
        """``copies``: where the documents' copies are kept and their originals catalogued (None: neither)."""
        self._engine = engine
        self._copies = copies
        self._items: list[tuple[Written, tuple[int, int] | None]] = []
        self._bytes = 0
        self._since = 0.0
        self._first = True

    def __len__(self) -> int:
        return len(self._items)

    def add(self, item: Written, job_file: tuple[int, int] | None) -> None:
        """Add a file's outcome; ``job_file`` (job id, file number) is marked done when it is written."""
        if not self._items:
            self._since = time.monotonic()
        self._items.append((item, job_file))
        self._bytes += _size(item)

    def due(self) -> bool:
        return bool(self._items) and (
            self._first
            or len(self._items) >= MAX_FILES
            or self._bytes >= MAX_BYTES
            or time.monotonic() - self._since >= MAX_WAIT
        )

    def time_left(self) -> float | None:
        """Seconds until the group is due by age; None while it is empty."""
        return max(0.0, self._since + MAX_WAIT - time.monotonic()) if self._items else None

    def write(self) -> list[FileReport]:
        """Make the copies durable, catalogue them, and store everything in one transaction; the
        files' reports, in the order they were added. Raises (and writes nothing) on a storage failure."""
        items, self._items, self._bytes, self._first = self._items, [], 0, False
        if not items:
            return []
        stored = [item for item, _ in items if isinstance(item, Stored)]
        staged = [item.copy for item in stored if item.copy is not None]
        try:
            if self._copies is not None:
                self._copies.publish(staged)
                self._copies.catalogue.add_many(
                    CatalogueEntry(s.facts.path, s.facts.content_hash, s.copy.rel if s.copy else None)
                    for s in stored
                )
            with write_transaction(self._engine) as conn:
                reports = [_write(conn, item) for item, _ in items]
                done = [
                    journal.Done(job_file[0], job_file[1], str(report.outcome), report.message)
                    for (_, job_file), report in zip(items, reports, strict=True)
                    if job_file is not None
                ]
                journal.mark_done(conn, done)
        finally:
            if self._copies is not None:
                self._copies.discard(staged)
        self._release(stored)
        return reports

    def discard(self) -> None:
        """Forget what was not written (the import stopped); staged copies are removed."""
        staged = [item.copy for item, _ in self._items if isinstance(item, Stored) and item.copy]
        if self._copies is not None:
            self._copies.discard(staged)
        self._items, self._bytes = [], 0

    def _release(self, stored: list[Stored]) -> None:
        """Delete the kept copies of replaced versions that no document refers to any more."""
        old = [s.replaces.copy_path for s in stored if s.replaces is not None and s.replaces.copy_path]
        new = {s.copy.rel for s in stored if s.copy is not None}
        if self._copies is not None and old:
            self._copies.release(self._engine, [rel for rel in old if rel not in new])


def _write(conn: Connection, item: Written) -> FileReport:
    if isinstance(item, Settled):
        return item.report
    if isinstance(item, Failed):
        doc_type = Path(item.facts.path).suffix.lstrip(".").lower() or "file"
        repository.record_failure(conn, item.facts, doc_type, item.report.message)
        return item.report
    doc = item.result.document
    doc_id = repository.write_document(
        conn,
        item.facts,
        title=doc.title,
        doc_type=doc.doc_type,
        page_count=doc.page_count,
        warnings=doc.warnings,
        doc_pages=doc.pages,
        doc_chunks=item.result.chunks,
        chunk_terms=item.result.terms,
        copy_path=item.copy.rel if item.copy is not None else None,
        ocr_pages=doc.ocr_pages,
    )
    replaced = item.replaces is not None and item.replaces.status == DocumentStatus.READY
    return _stored_report(item, Outcome.UPDATED if replaced else Outcome.IMPORTED, doc_id)


def _stored_report(item: Stored, outcome: Outcome, doc_id: int) -> FileReport:
    doc, passages = item.result.document, len(item.result.chunks)
    pages = f", {doc.page_count} pages" if doc.page_count else ""
    note = "; " + "; ".join(doc.warnings) if doc.warnings else ""
    message = f"{item.name}: {outcome}{pages}, {passages} passages{note}"
    return FileReport(item.facts.path, outcome, message, doc_id, passages, doc.page_count, list(doc.warnings))
