"""Importing one file: decide whether it is new, changed, unchanged or a duplicate, then read it,
keep a copy and store it in a single transaction.

Reading (parsing and chunking, usually in the parse worker) happens before the write transaction
opens, so the database is locked only for the few milliseconds of inserting rows, and a file
that fails to read never touches what the library already holds. The kept copy and its
catalogue line are written before the transaction: a crash in between leaves an unused copy
(``verify --repair`` removes it), never a document whose copy is missing.

Storage failures (disk full, read-only) are not the file's fault: they propagate, and the
caller stops the import and says so.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.engine import Engine

from kbapp.contract import DocumentRecord, DocumentStatus, FileReport, Outcome
from kbapp.hashing import sha256_file
from kbapp.importing.copies import CopyStore, SourceProblem
from kbapp.importing.reading import Reader, ReadResult
from kbapp.ingest.document import IngestError, IngestErrorKind
from kbapp.store import repository
from kbapp.store.database import write_transaction

_UNREADABLE = str(IngestErrorKind.UNREADABLE)


def _fail(
    facts: repository.FileFacts, path: str, message: str, engine: Engine, kind: str | None = None
) -> FileReport:
    with write_transaction(engine) as conn:
        repository.record_failure(conn, facts, Path(path).suffix.lstrip(".").lower() or "file", message)
    return FileReport(path, Outcome.FAILED, message, kind=kind)


def _renamed(result: ReadResult, read_name: str, read_stem: str, name: str, stem: str) -> ReadResult:
    """A document read from a kept copy (named by its hash) speaks of the original's name."""
    doc = result.document
    doc.title = doc.title.replace(read_name, name).replace(read_stem, stem)
    doc.warnings = [w.replace(read_name, name) for w in doc.warnings]
    return result


def import_file(
    engine: Engine,
    path: Path,
    *,
    read: Reader,
    copies: CopyStore | None = None,
    keep_copy: bool = True,
    source: Path | None = None,
    cancel: Callable[[], bool] | None = None,
) -> FileReport:
    """Import ``path``; ``source`` is the file to read instead (its kept copy) when rebuilding.

    ``copies``: where the library keeps copies (if ``keep_copy``) and its catalogue of originals.
    Raises ``ImportCancelled`` if ``cancel`` fires while the file is read.
    """
    key = os.path.abspath(path)
    name = path.name
    read_path = source or path
    settled = _settled(engine, key, name, read_path)
    if isinstance(settled, FileReport):
        return settled
    facts, existing = settled
    digest = facts.content_hash
    try:
        result = read(read_path, cancel)
    except IngestError as err:
        return _fail(facts, key, err.message.replace(read_path.name, name, 1), engine, str(err.kind))
    if read_path != path:
        result = _renamed(result, read_path.name, read_path.stem, name, path.stem)
    if not result.chunks and not result.document.ocr_pages:
        return _fail(facts, key, f"{name}: no text found", engine, str(IngestErrorKind.EMPTY))
    copy_path = None
    if copies is not None:
        if keep_copy:
            try:
                copy_path = copies.keep(read_path, digest, path.suffix)
            except SourceProblem as err:
                return _fail(facts, key, f"{name}: {err}", engine, _UNREADABLE)
        copies.catalogue.add(key, digest, copy_path)
    doc_id = _store(engine, facts, result, copy_path)
    if copies is not None and existing is not None and existing.copy_path not in (None, copy_path):
        copies.release(engine, [existing.copy_path])
    replaced = existing is not None and existing.status == DocumentStatus.READY
    return _stored_report(key, name, Outcome.UPDATED if replaced else Outcome.IMPORTED, doc_id, result)


def _store(engine: Engine, facts: repository.FileFacts, result: ReadResult, copy_path: str | None) -> int:
    """Write the document in one transaction (replacing the one of the same path); its id."""
    doc = result.document
    with write_transaction(engine) as conn:
        return repository.write_document(
            conn,
            facts,
            title=doc.title,
            doc_type=doc.doc_type,
            page_count=doc.page_count,
            warnings=doc.warnings,
            doc_pages=doc.pages,
            doc_chunks=result.chunks,
            copy_path=copy_path,
            ocr_pages=doc.ocr_pages,
        )


def _stored_report(key: str, name: str, outcome: Outcome, doc_id: int, result: ReadResult) -> FileReport:
    doc, passages = result.document, len(result.chunks)
    pages = f", {doc.page_count} pages" if doc.page_count else ""
    note = "; " + "; ".join(doc.warnings) if doc.warnings else ""
    message = f"{name}: {outcome}{pages}, {passages} passages{note}"
    return FileReport(key, outcome, message, doc_id, passages, doc.page_count, list(doc.warnings))


def _settled(
    engine: Engine, key: str, name: str, read_path: Path
) -> FileReport | tuple[repository.FileFacts, DocumentRecord | None]:
    """What is decided before reading: unreadable, unchanged (same size and time, or same hash) or
    a duplicate of another document, as a report; otherwise the file's facts and the document of
    the same path it replaces, if any. Hashing is skipped when size and time already say unchanged."""
    try:
        st = read_path.stat()
    except OSError as err:
        return FileReport(key, Outcome.FAILED, f"{name}: cannot read file ({err.strerror})", kind=_UNREADABLE)
    if not read_path.is_file():
        return FileReport(key, Outcome.FAILED, f"{name}: not a regular file", kind=_UNREADABLE)
    with engine.connect() as conn:
        existing = repository.find_by_path(conn, key)
    ready = existing if existing is not None and existing.status == DocumentStatus.READY else None
    if ready is not None and ready.size == st.st_size and ready.mtime == st.st_mtime:
        return FileReport(key, Outcome.UNCHANGED, f"{name}: unchanged", ready.id, ready.chunk_count)
    try:
        digest = sha256_file(read_path)
    except OSError as err:
        return FileReport(key, Outcome.FAILED, f"{name}: cannot read file ({err.strerror})", kind=_UNREADABLE)
    if ready is not None and ready.content_hash == digest:
        return FileReport(key, Outcome.UNCHANGED, f"{name}: unchanged", ready.id, ready.chunk_count)
    with engine.connect() as conn:
        twin = repository.find_ready_by_hash(conn, digest)
    if twin is not None and twin.path != key:
        message = f"{name}: same content as {twin.path}; not imported twice"
        return FileReport(key, Outcome.DUPLICATE, message, twin.id)
    return repository.FileFacts(key, digest, st.st_size, st.st_mtime), existing
