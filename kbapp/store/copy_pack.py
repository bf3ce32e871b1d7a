"""Kept copies of small files, held together in one SQLite file instead of one file each.

Making a file costs the file system an inode, and on the ext4 disks measured here that, not the
bytes, was most of keeping a small copy: importing SciFact's 5,183 abstracts spent about 4 s of
the importing process's processor time in the kernel allocating inodes, as long as everything
else the process did (``perf``: ``find_inode_bit``, ``recently_deleted``). Windows' NTFS, with a
virus scanner opening every new file, is slower still. SQLite stores small blobs faster than a
file system stores small files, and one transaction makes a whole group of them durable: the
copies of a write group are inserted and committed (``synchronous=FULL``) before the library's
own transaction commits, the same order as for copies kept as files.

Names are the copy's sha256 and suffix, as for files; a name is written once with its bytes and
never changed, so ``INSERT OR IGNORE`` is all that sharing a copy between identical files needs.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

_SCHEMA = "CREATE TABLE IF NOT EXISTS copies (name TEXT PRIMARY KEY, data BLOB NOT NULL)"


class CopyPack:
    """The copies in ``path``; the file is made when the first copy is put in it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # an import thread and the window's checks share it

    def _open(self, create: bool) -> sqlite3.Connection | None:
        """The connection; None when there is no pack and ``create`` is not asked for. A pack on a
        read-only disk is read as immutable (its WAL index cannot be made there)."""
        if self._conn is None:
            if not create and not self.path.exists():
                return None
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                conn.execute(_SCHEMA)
            except sqlite3.OperationalError:
                conn.close()
                if create:
                    raise
                uri = f"{self.path.resolve().as_uri()}?immutable=1"
                conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def put_many(self, copies: Iterable[tuple[str, bytes]]) -> None:
        """Store ``(name, bytes)`` pairs durably, in one transaction."""
        self._change("INSERT OR IGNORE INTO copies (name, data) VALUES (?, ?)", list(copies), create=True)

    def contains(self, name: str) -> bool:
        with self._lock:
            conn = self._open(create=False)
            if conn is None:
                return False
            return conn.execute("SELECT 1 FROM copies WHERE name = ?", (name,)).fetchone() is not None

    def get(self, name: str) -> bytes | None:
        with self._lock:
            conn = self._open(create=False)
            if conn is None:
                return None
            row = conn.execute("SELECT data FROM copies WHERE name = ?", (name,)).fetchone()
        return None if row is None else bytes(row[0])

    def names(self) -> set[str]:
        with self._lock:
            conn = self._open(create=False)
            return set() if conn is None else {name for (name,) in conn.execute("SELECT name FROM copies")}

    def delete_many(self, names: Iterable[str]) -> None:
        self._change("DELETE FROM copies WHERE name = ?", [(name,) for name in names], create=False)

    def _change(self, sql: str, rows: Sequence[tuple[str | bytes, ...]], create: bool) -> None:
        """``sql`` for each row, in one transaction: one commit, and one wait for the disk, however
        many documents are imported or removed together."""
        if not rows:
            return
        with self._lock:
            conn = self._open(create=create)
            if conn is None:
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(sql, rows)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
