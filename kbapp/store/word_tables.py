"""Word → words tables in an SQLite file of their own: a cache derived from data the app ships
(the Chinese–English bridge), looked up a word at a time so a one-shot search does not load
100,000 entries to read a few dozen.

The file is written whole and replaced atomically, and opened read-only after a structural check
(``quick_check``, 7 ms for the bridge's 3 MB); a damaged or missing file raises, and the caller
rebuilds it from its source. It is never the library file, which has its own schema and checks.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from kbapp.index.atomic import atomic_write

_SEPARATOR = "\x1f"  # between the words of one entry: never part of a word


class WordTable(Mapping[str, tuple[str, ...]]):
    """One table of the file. The connection is shared by the threads that search (SQLite is
    built serialized); the lock keeps each lookup's statement and fetch together."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock, table: str) -> None:
        self._conn, self._lock, self._table = conn, lock, table

    def __getitem__(self, word: str) -> tuple[str, ...]:
        with self._lock:
            row = self._conn.execute(f"SELECT words FROM {self._table} WHERE word = ?", (word,)).fetchone()
        if row is None:
            raise KeyError(word)
        return tuple(row[0].split(_SEPARATOR))

    def __iter__(self) -> Iterator[str]:
        with self._lock:
            words = [word for (word,) in self._conn.execute(f"SELECT word FROM {self._table}")]
        return iter(words)

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute(f"SELECT count(*) FROM {self._table}").fetchone()[0])


def write_word_tables(path: Path, tables: Mapping[str, Mapping[str, tuple[str, ...]]]) -> None:
    """Replace ``path`` with a file holding ``tables`` (name → word → words), atomically."""

    def write(tmp: Path) -> None:
        conn = sqlite3.connect(tmp)
        try:
            for name, table in tables.items():
                conn.execute(
                    f"CREATE TABLE {name} (word TEXT PRIMARY KEY, words TEXT NOT NULL) WITHOUT ROWID"
                )
                conn.executemany(
                    f"INSERT INTO {name} VALUES (?, ?)", ((w, _SEPARATOR.join(ws)) for w, ws in table.items())
                )
            conn.commit()
        finally:
            conn.close()

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, write)


def open_word_tables(path: Path, names: tuple[str, ...]) -> dict[str, WordTable]:
    """The tables ``names`` of the file at ``path``, read-only. Raises ``OSError`` for a missing
    file and ``sqlite3.Error`` for a damaged one or one without those tables."""
    if not path.is_file():
        raise FileNotFoundError(path)
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
    try:
        if conn.execute("PRAGMA quick_check").fetchone() != ("ok",):
            raise sqlite3.DatabaseError(f"{path} is damaged")
        present = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not set(names) <= present:
            raise sqlite3.DatabaseError(f"{path} lacks the tables {sorted(set(names) - present)}")
    except BaseException:
        conn.close()
        raise
    lock = threading.Lock()
    return {name: WordTable(conn, lock, name) for name in names}
