"""Importing one file: decide whether it is new, changed, unchanged or a duplicate, then turn what
was read into what the library writes: a document beside its kept copy, or a failure.

Reading (parsing and chunking, usually in a parse worker) happens before anything is written, so
a file that fails to read never touches what the library already holds. The kept copy is staged
when the file has been read; the write group (``write_group``) makes it durable, appends its
catalogue line and stores the document in one transaction, in that order: a crash in between
leaves an unused copy (``verify --repair`` removes it), never a document whose copy is missing.

Storage failures (disk full, read-only) are not the file's fault: they propagate, and the
caller stops the import and says so.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from kbapp.contract import DocumentRecord, DocumentStatus, FileReport, Outcome
from kbapp.hashing import sha256_file
from kbapp.importing.copies import CopyStore, SourceProblem
from kbapp.importing.reading import Reader, ReadResult
from kbapp.importing.write_group import Failed, Settled, Stored, WriteGroup, Written
from kbapp.ingest.document import IngestError, IngestErrorKind
from kbapp.store import repository

_UNREADABLE = str(IngestErrorKind.UNREADABLE)


@dataclass(frozen=True, slots=True)
class ToRead:
    """A file that must be read: its facts, and the document of the same path it replaces, if any."""

    facts: repository.FileFacts
    existing: DocumentRecord | None


def _unreadable(key: str, message: str) -> Settled:
    return Settled(FileReport(key, Outcome.FAILED, message, kind=_UNREADABLE))


def _unchanged(key: str, name: str, ready: DocumentRecord) -> Settled:
    return Settled(FileReport(key, Outcome.UNCHANGED, f"{name}: unchanged", ready.id, ready.chunk_count))


def settle(engine: Engine, path: Path, read_path: Path) -> Settled | ToRead:
    """What is decided before reading: unreadable, unchanged (same size and time, or same hash) or
    a duplicate of another document; otherwise what reading needs. Hashing is skipped when size
    and time already say unchanged. ``read_path`` is the file to read (a kept copy, when rebuilding)."""
    key, name = os.path.abspath(path), path.name
    try:
        st = read_path.stat()
    except OSError as err:
        return _unreadable(key, f"{name}: cannot read file ({err.strerror})")
    if not read_path.is_file():
        return _unreadable(key, f"{name}: not a regular file")
    # One connection for both look-ups; they begin no transaction, so none is held open while
    # the file is hashed.
    with engine.connect() as conn:
        existing = repository.find_by_path(conn, key)
        ready = existing if existing is not None and existing.status == DocumentStatus.READY else None
        if ready is not None and ready.size == st.st_size and ready.mtime == st.st_mtime:
            return _unchanged(key, name, ready)
        try:
            digest = sha256_file(read_path)
        except OSError as err:
            return _unreadable(key, f"{name}: cannot read file ({err.strerror})")
        if ready is not None and ready.content_hash == digest:
            return _unchanged(key, name, ready)
        twin = repository.find_ready_by_hash(conn, digest)
    if twin is not None and twin.path != key:
        message = f"{name}: same content as {twin.path}; not imported twice"
        return Settled(FileReport(key, Outcome.DUPLICATE, message, twin.id), twin=twin.path)
    return ToRead(repository.FileFacts(key, digest, st.st_size, st.st_mtime), existing)


def _renamed(result: ReadResult, read_name: str, read_stem: str, name: str, stem: str) -> ReadResult:
    """A document read from a kept copy (named by its hash) speaks of the original's name."""
    doc = result.document
    doc.title = doc.title.replace(read_name, name).replace(read_stem, stem)
    doc.warnings = [w.replace(read_name, name) for w in doc.warnings]
    return result


def to_write(
    path: Path,
    read_path: Path,
    todo: ToRead,
    outcome: ReadResult | IngestError,
    copies: CopyStore | None,
    keep_copy: bool,
) -> Written:
    """What the library writes for a file that was read: its document (with its kept copy staged,
    if ``keep_copy``), or why it has none."""
    facts, name = todo.facts, path.name
    if isinstance(outcome, IngestError):
        message = outcome.message.replace(read_path.name, name, 1)
        return Failed(facts, FileReport(facts.path, Outcome.FAILED, message, kind=str(outcome.kind)))
    result = outcome
    if read_path != path:
        result = _renamed(result, read_path.name, read_path.stem, name, path.stem)
    if not result.chunks and not result.document.ocr_pages:
        message = f"{name}: no text found"
        return Failed(facts, FileReport(facts.path, Outcome.FAILED, message, kind=str(IngestErrorKind.EMPTY)))
    copy = None
    if copies is not None and keep_copy:
        try:
            copy = copies.stage(read_path, facts.content_hash, path.suffix)
        except SourceProblem as err:
            return Failed(facts, FileReport(facts.path, Outcome.FAILED, f"{name}: {err}", kind=_UNREADABLE))
    return Stored(facts, result, copy, todo.existing, name)


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
    """Import ``path`` on its own; ``source`` is the file to read instead (its kept copy) when rebuilding.

    ``copies``: where the library keeps copies (if ``keep_copy``) and its catalogue of originals.
    Raises ``ImportCancelled`` if ``cancel`` fires while the file is read.
    """
    read_path = source or path
    todo = settle(engine, path, read_path)
    if isinstance(todo, Settled):
        return todo.report
    try:
        outcome: ReadResult | IngestError = read(read_path, cancel)
    except IngestError as err:
        outcome = err
    group = WriteGroup(engine, copies)
    group.add(to_write(path, read_path, todo, outcome, copies, keep_copy), None)
    try:
        return group.write()[0]
    finally:
        group.discard()
