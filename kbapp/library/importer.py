"""Importing one file: decide whether it is new, changed, unchanged or a duplicate, then parse,
chunk and store it in a single transaction.

Parsing and chunking happen before the write transaction opens, so the database is locked
only for the few milliseconds of inserting rows, and a file that fails to parse never
touches what the library already holds.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from sqlalchemy.engine import Engine

from kbapp.chunking import ChunkingConfig, chunk_document
from kbapp.chunking.splitter import TokenCounter
from kbapp.ingest.model import IngestError, ParsedDocument
from kbapp.store import repository
from kbapp.store.database import write_transaction

Parser = Callable[[Path], ParsedDocument]


class Outcome(StrEnum):
    IMPORTED = "imported"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    DUPLICATE = "duplicate"
    FAILED = "failed"


@dataclass(slots=True)
class FileReport:
    path: str
    outcome: Outcome
    message: str
    doc_id: int | None = None
    chunks: int = 0
    pages: int | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome is not Outcome.FAILED


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def _fail(facts: repository.FileFacts | None, path: str, message: str, engine: Engine) -> FileReport:
    if facts is not None:
        with write_transaction(engine) as conn:
            repository.record_failure(conn, facts, Path(path).suffix.lstrip(".").lower() or "file", message)
    return FileReport(path, Outcome.FAILED, message)


def import_file(
    engine: Engine,
    path: Path,
    *,
    parse: Parser,
    count_tokens: TokenCounter,
    chunking: ChunkingConfig,
    keep_copy: Callable[[Path, str], str | None] | None = None,
) -> FileReport:
    key = os.path.abspath(path)
    name = path.name
    try:
        st = path.stat()
    except OSError as err:
        return FileReport(key, Outcome.FAILED, f"{name}: cannot read file ({err.strerror})")
    if not path.is_file():
        return FileReport(key, Outcome.FAILED, f"{name}: not a regular file")
    with engine.connect() as conn:
        existing = repository.find_by_path(conn, key)
    if (
        existing is not None
        and existing.status == "ready"
        and existing.size == st.st_size
        and existing.mtime == st.st_mtime
    ):
        return FileReport(key, Outcome.UNCHANGED, f"{name}: unchanged", existing.id, existing.chunk_count)
    try:
        digest = file_digest(path)
    except OSError as err:
        return FileReport(key, Outcome.FAILED, f"{name}: cannot read file ({err.strerror})")
    facts = repository.FileFacts(key, digest, st.st_size, st.st_mtime)
    if existing is not None and existing.status == "ready" and existing.content_hash == digest:
        return FileReport(key, Outcome.UNCHANGED, f"{name}: unchanged", existing.id, existing.chunk_count)
    with engine.connect() as conn:
        twin = repository.find_ready_by_hash(conn, digest)
    if twin is not None and twin.path != key:
        return FileReport(
            key, Outcome.DUPLICATE, f"{name}: same content as {twin.path}; not imported twice", twin.id
        )
    try:
        doc = parse(path)
    except IngestError as err:
        return _fail(facts, key, err.message, engine)
    chunks = chunk_document(doc, count_tokens, chunking)
    if not chunks:
        return _fail(facts, key, f"{name}: no text found", engine)
    copy_path = keep_copy(path, digest) if keep_copy else None
    with write_transaction(engine) as conn:
        doc_id = repository.write_document(
            conn,
            facts,
            title=doc.title,
            doc_type=doc.doc_type,
            page_count=doc.page_count,
            warnings=doc.warnings,
            doc_pages=doc.pages,
            doc_chunks=chunks,
            copy_path=copy_path,
        )
    outcome = Outcome.UPDATED if existing is not None and existing.status == "ready" else Outcome.IMPORTED
    pages = f", {doc.page_count} pages" if doc.page_count else ""
    note = "; " + "; ".join(doc.warnings) if doc.warnings else ""
    return FileReport(
        key,
        outcome,
        f"{name}: {outcome}{pages}, {len(chunks)} passages{note}",
        doc_id,
        len(chunks),
        doc.page_count,
        list(doc.warnings),
    )
