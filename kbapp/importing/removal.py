"""Removing documents: their rows, their catalogue lines, and the kept copies no other document shares.

The rows go in one transaction; the catalogue is told before the copies are deleted, so a rebuild
never restores a document the user removed. A storage failure surfaces as ``StorageError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from kbapp.contract import DocumentRecord
from kbapp.importing.copies import CopyStore
from kbapp.store import repository
from kbapp.store.database import write_transaction
from kbapp.store.errors import classify


def remove_documents(engine: Engine, copies: CopyStore, data_dir: Path, doc_ids: Iterable[int]) -> int:
    """Remove the documents among ``doc_ids`` that exist; returns how many were removed."""
    removed: list[DocumentRecord] = []
    try:
        with write_transaction(engine) as conn:
            for doc_id in doc_ids:
                record = repository.get_document(conn, doc_id)
                if record is not None and repository.delete_document(conn, doc_id):
                    removed.append(record)
        copies.catalogue.remove(r.path for r in removed)
    except (DBAPIError, OSError) as exc:
        storage = classify(exc, data_dir)
        if storage is None:
            raise
        raise storage from exc
    copies.release(engine, [r.copy_path for r in removed])
    return len(removed)
