"""A small append-only list, beside the kept copies, of which original file each copy came from.

The database records every document's path, hash and kept copy, but when the database itself is
damaged beyond reading, a rebuild still needs to know the original paths. ``files/catalogue.jsonl``
holds that: one JSON line per import and one per removal, appended and fsynced before the
transaction that stores (or removes) the document (the lines of a group of documents in one
write); replaying it gives the documents the library held. A line torn by a crash is skipped
when reading, and the next append starts on a fresh line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kbapp.index.atomic import atomic_write_bytes, fsync_dir

CATALOGUE = "catalogue.jsonl"


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    path: str  # the original file
    sha256: str
    copy: str | None  # kept copy, relative to the data dir


class Catalogue:
    def __init__(self, path: Path) -> None:
        self.path = path

    def add(self, path: str, sha256: str, copy: str | None) -> None:
        self.add_many([CatalogueEntry(path, sha256, copy)])

    def add_many(self, entries: Iterable[CatalogueEntry]) -> None:
        """Record ``entries`` with one write and one fsync."""
        records = [{"op": "add", "path": e.path, "sha256": e.sha256, "copy": e.copy} for e in entries]
        if records:
            self._append(records)

    def remove(self, paths: Iterable[str]) -> None:
        records = [{"op": "remove", "path": p} for p in paths]
        if records:
            self._append(records)

    def entries(self) -> dict[str, CatalogueEntry]:
        """The documents the catalogue says the library holds, by original path."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        held: dict[str, CatalogueEntry] = {}
        for line in raw.splitlines():
            try:
                record = json.loads(line)
                if record["op"] == "add":
                    held[record["path"]] = CatalogueEntry(
                        record["path"], record["sha256"], record.get("copy")
                    )
                elif record["op"] == "remove":
                    held.pop(record["path"], None)
            except (ValueError, KeyError, TypeError):
                continue  # a line torn by a crash
        return held

    def rewrite(self, entries: Iterable[CatalogueEntry]) -> None:
        """Replace the catalogue by exactly ``entries`` (compacts the history of re-imports and removals)."""
        lines = [
            json.dumps({"op": "add", "path": e.path, "sha256": e.sha256, "copy": e.copy}, ensure_ascii=False)
            for e in entries
        ]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path, "".join(line + "\n" for line in lines).encode("utf-8"))

    def _append(self, records: list[dict[str, object]]) -> None:
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0), 0o644)
        try:
            size = os.fstat(fd).st_size
            if size:
                os.lseek(fd, size - 1, os.SEEK_SET)
                if os.read(fd, 1) != b"\n":
                    data = b"\n" + data  # the last append was torn by a crash: do not glue onto it
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            fsync_dir(self.path.parent)
