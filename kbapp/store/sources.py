"""Watched folders as rows, and the document facts a sync compares a folder against.

A document belongs to a watched folder when its path lies under the folder's path: no column
ties the two, so a document imported by hand from inside a folder that is watched later is
simply found there, and a file moved between two watched folders changes source by changing
path. The range query over the unique path index keeps reading one folder's documents cheap.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from kbapp.contract import Source
from kbapp.store.schema import collections, documents, sources


@dataclass(frozen=True, slots=True)
class StoredFile:
    """What the library holds for one file path: enough to decide whether the file changed."""

    id: int
    path: str
    content_hash: str
    size: int
    mtime: float
    status: str
    copy_path: str | None


def listing(conn: Connection) -> list[Source]:
    rows = conn.execute(
        select(sources, collections.c.name.label("collection"))
        .outerjoin(collections, collections.c.id == sources.c.collection_id)
        .order_by(sources.c.path)
    )
    return [Source(**{name: getattr(r, name) for name in Source.__dataclass_fields__}) for r in rows]


def find(conn: Connection, path: str) -> Source | None:
    return next((s for s in listing(conn) if s.path == path), None)


def add(conn: Connection, path: str, collection_id: int | None) -> None:
    """Watch ``path`` (or change which collection it feeds, if it is watched already)."""
    if find(conn, path) is not None:
        conn.execute(update(sources).where(sources.c.path == path).values(collection_id=collection_id))
        return
    conn.execute(
        insert(sources).values(
            path=path, collection_id=collection_id, added_at=time.time(), state="new", files=0, failures=0
        )
    )


def remove(conn: Connection, path: str) -> bool:
    return conn.execute(delete(sources).where(sources.c.path == path)).rowcount > 0


def record_sync(
    conn: Connection,
    source_id: int,
    *,
    state: str,
    device: int | None,
    files: int,
    failures: int,
    message: str | None,
) -> None:
    values: dict[str, object] = {"state": state, "message": message, "last_sync": time.time()}
    if state != "offline":  # an offline folder keeps what was last seen of it
        values.update(device=device, files=files, failures=failures)
    conn.execute(update(sources).where(sources.c.id == source_id).values(**values))


def _under(root: str):  # type: ignore[no-untyped-def]
    """Paths strictly inside ``root``: those between ``root/`` and the next string after it."""
    prefix = root.rstrip(os.sep) + os.sep
    return (documents.c.path >= prefix) & (documents.c.path < prefix[:-1] + chr(ord(os.sep) + 1))


def stored_files(conn: Connection, root: str) -> dict[str, StoredFile]:
    rows = conn.execute(
        select(
            documents.c.id,
            documents.c.path,
            documents.c.content_hash,
            documents.c.size,
            documents.c.mtime,
            documents.c.status,
            documents.c.copy_path,
        ).where(_under(root))
    )
    return {r.path: StoredFile(*r) for r in rows}


def document_ids_under(conn: Connection, root: str) -> list[int]:
    return list(conn.execute(select(documents.c.id).where(_under(root))).scalars())


def move_document(conn: Connection, doc_id: int, path: str, size: int, mtime: float) -> None:
    """Point a document at where its file now is: id, passages and vectors stay."""
    conn.execute(update(documents).where(documents.c.id == doc_id).values(path=path, size=size, mtime=mtime))


def touch_document(conn: Connection, doc_id: int, size: int, mtime: float) -> None:
    """The file was written again with the same content: remember its new stat so it is not hashed again."""
    conn.execute(update(documents).where(documents.c.id == doc_id).values(size=size, mtime=mtime))


def failures_under(conn: Connection, root: str) -> int:
    return len(conn.execute(select(documents.c.id).where(_under(root), documents.c.status == "failed")).all())
