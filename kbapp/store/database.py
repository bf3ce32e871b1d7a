"""Opening the library database: durable pragmas on every connection, then forward migrations.

WAL lets searches read while an import writes; ``synchronous=FULL`` makes a commit survive a
power cut (the laptop dying mid-import is the normal case, not the edge case); foreign keys
make deleting a document cascade to its pages, chunks and vectors.

A library on a read-only disk (a write-protected USB stick, a read-only mount) is opened
read-only so it can still be searched; WAL needs its ``-shm`` file for that, and if the disk
holds none (the last writer closed cleanly) the file is opened as immutable instead.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, event, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import QueuePool

from kbapp.contract import StorageError, StorageProblem
from kbapp.store.schema import MIGRATIONS, SCHEMA_VERSION, meta


class NewerLibraryError(RuntimeError):
    """The library was written by a newer kbapp; opening it could damage it."""


def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    dbapi_connection.isolation_level = None  # let SQLAlchemy's BEGIN be the only transaction control
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _on_connect_read_only(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    dbapi_connection.isolation_level = None
    dbapi_connection.execute("PRAGMA busy_timeout=30000")


def _connect_read_only(db_path: Path) -> sqlite3.Connection:
    uri = db_path.resolve().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False, timeout=30)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:  # WAL without a -shm file on a disk where it cannot be made
        conn.close()
    return sqlite3.connect(f"{uri}?immutable=1", uri=True, check_same_thread=False)


def _on_begin(conn) -> None:  # type: ignore[no-untyped-def]
    # Writers take the write lock up front: a deferred transaction that upgrades later can fail
    # with SQLITE_BUSY instead of waiting when another process is writing.
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.info.pop("write", False) else "BEGIN")


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """One durable write transaction: everything in it is committed together or not at all."""
    with engine.connect() as conn:
        conn.info["write"] = True
        with conn.begin():
            yield conn


def open_engine(db_path: Path, *, read_only: bool = False) -> Engine:
    """The library's engine, migrated to the current schema (read-only: checked, not migrated)."""
    if read_only:
        engine = create_engine(
            "sqlite://", creator=lambda: _connect_read_only(db_path), poolclass=QueuePool, pool_size=4
        )
        event.listen(engine, "connect", _on_connect_read_only)
        event.listen(engine, "begin", _on_begin)
        if schema_version(engine) != SCHEMA_VERSION:
            engine.dispose()
            raise StorageError(
                StorageProblem.READ_ONLY, db_path.parent, "the library must be upgraded, which needs writing"
            )
        return engine
    engine = create_engine(
        f"sqlite:///{db_path}",
        poolclass=QueuePool,
        pool_size=4,
        max_overflow=4,
        connect_args={"check_same_thread": False, "timeout": 30},
    )
    event.listen(engine, "connect", _on_connect)
    event.listen(engine, "begin", _on_begin)
    try:
        migrate(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


def schema_version(engine: Engine) -> int:
    with engine.connect() as conn:
        exists = conn.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
        ).first()
        if not exists:
            return 0
        row = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).first()
        return int(row[0]) if row else 0


def migrate(engine: Engine) -> None:
    version = schema_version(engine)
    if version > SCHEMA_VERSION:
        raise NewerLibraryError(
            f"this library has schema version {version}; this kbapp understands up to {SCHEMA_VERSION}"
        )
    for step in range(version, SCHEMA_VERSION):
        with write_transaction(engine) as conn:
            MIGRATIONS[step](conn)
            conn.exec_driver_sql(
                "INSERT INTO meta(key, value) VALUES ('schema_version', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(step + 1),),
            )
