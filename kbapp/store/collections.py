"""Named collections of documents: the rows behind them and the checks that keep names meaningful.

A collection is only a label on documents: deleting or renaming one never touches a document,
and a document in no collection stays in the plain library. Memberships are keyed by document
id, so re-importing a changed file (which replaces its row) carries them over explicitly
(``carry_over``) in the same transaction.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from kbapp.contract import Collection, CollectionError
from kbapp.store.schema import collections, document_collections, documents


def _clean(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned:
        raise CollectionError("a collection needs a name")
    return cleaned


def find(conn: Connection, name: str) -> int | None:
    return conn.execute(select(collections.c.id).where(collections.c.name == _clean(name))).scalar()


def require(conn: Connection, name: str) -> int:
    found = find(conn, name)
    if found is None:
        raise CollectionError(f"no collection named {name!r}")
    return found


def create(conn: Connection, name: str) -> int:
    name = _clean(name)
    if find(conn, name) is not None:
        raise CollectionError(f"a collection named {name!r} already exists")
    key = conn.execute(insert(collections).values(name=name, created_at=time.time())).inserted_primary_key
    assert key is not None
    return int(key[0])


def ensure(conn: Connection, name: str) -> int:
    """The collection's id, created if it does not exist yet (a watched folder names one to feed)."""
    return find(conn, name) or create(conn, name)


def rename(conn: Connection, old: str, new: str) -> None:
    collection_id = require(conn, old)
    new = _clean(new)
    taken = find(conn, new)
    if taken is not None and taken != collection_id:
        raise CollectionError(f"a collection named {new!r} already exists")
    conn.execute(update(collections).where(collections.c.id == collection_id).values(name=new))


def remove_collection(conn: Connection, name: str) -> None:
    conn.execute(delete(collections).where(collections.c.id == require(conn, name)))


def listing(conn: Connection) -> list[Collection]:
    counts = (
        select(document_collections.c.collection_id, func.count().label("n"))
        .group_by(document_collections.c.collection_id)
        .subquery()
    )
    rows = conn.execute(
        select(collections.c.id, collections.c.name, func.coalesce(counts.c.n, 0))
        .outerjoin(counts, counts.c.collection_id == collections.c.id)
        .order_by(collections.c.name)
    )
    return [Collection(r[0], r[1], r[2]) for r in rows]


def add_documents(conn: Connection, collection_id: int, doc_ids: Iterable[int]) -> int:
    """Add the documents that exist and are not members yet; returns how many were added."""
    wanted = sorted(set(doc_ids))
    if not wanted:
        return 0
    existing = set(conn.execute(select(documents.c.id).where(documents.c.id.in_(wanted))).scalars())
    members = set(
        conn.execute(
            select(document_collections.c.document_id).where(
                document_collections.c.collection_id == collection_id,
                document_collections.c.document_id.in_(wanted),
            )
        ).scalars()
    )
    new = [d for d in wanted if d in existing and d not in members]
    if new:
        conn.execute(
            insert(document_collections), [{"collection_id": collection_id, "document_id": d} for d in new]
        )
    return len(new)


def remove_documents(conn: Connection, collection_id: int, doc_ids: Iterable[int]) -> int:
    return conn.execute(
        delete(document_collections).where(
            document_collections.c.collection_id == collection_id,
            document_collections.c.document_id.in_(sorted(set(doc_ids))),
        )
    ).rowcount


def document_ids(conn: Connection, names: Sequence[str]) -> list[int]:
    """Documents in any of the named collections (raises ``CollectionError`` for an unknown name)."""
    ids = [require(conn, n) for n in names]
    return list(
        conn.execute(
            select(document_collections.c.document_id)
            .where(document_collections.c.collection_id.in_(ids))
            .distinct()
            .order_by(document_collections.c.document_id)
        ).scalars()
    )


def memberships(conn: Connection) -> dict[int, list[str]]:
    """Collection names of every document that is in at least one."""
    rows = conn.execute(
        select(document_collections.c.document_id, collections.c.name)
        .join(collections, collections.c.id == document_collections.c.collection_id)
        .order_by(collections.c.name)
    )
    held: dict[int, list[str]] = {}
    for doc_id, name in rows:
        held.setdefault(doc_id, []).append(name)
    return held


def of_document(conn: Connection, doc_id: int) -> list[int]:
    return list(
        conn.execute(
            select(document_collections.c.collection_id).where(document_collections.c.document_id == doc_id)
        ).scalars()
    )


def carry_over(conn: Connection, collection_ids: Sequence[int], doc_id: int) -> None:
    """Give a re-imported document (a new row for the same file) the collections its old row had."""
    if collection_ids:
        conn.execute(
            insert(document_collections),
            [{"collection_id": c, "document_id": doc_id} for c in collection_ids],
        )
