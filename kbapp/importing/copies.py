"""Copies of imported documents kept inside the library, so it can be rebuilt without the originals.

Field engineers import manuals from USB sticks and network shares that are gone a week later; a
damaged library could then only be rebuilt from what it kept. Copies are content-addressed
(``files/ab/<sha256><suffix>``, the suffix kept because the reader takes it as a hint), written
atomically before the document's transaction, shared by identical files and deleted once no
document refers to them. The copy is hashed while it is written: a file that changed since it
was hashed is refused, so a copy's name always matches its bytes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from sqlalchemy.engine import Engine

from kbapp.importing.catalogue import CATALOGUE, Catalogue
from kbapp.index.atomic import atomic_write, fsync_dir
from kbapp.store import repository

FILES_DIR = "files"
_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,10}")


class SourceProblem(Exception):
    """The original could not be copied (unreadable, or changed while being imported)."""


def _copy_checked(source: Path, target: Path, digest: str) -> None:
    h = hashlib.sha256()
    try:
        src = source.open("rb")
    except OSError as err:
        raise SourceProblem(f"cannot read file ({err.strerror})") from err
    with src, target.open("wb") as dst:
        while True:
            try:
                block = src.read(1 << 20)
            except OSError as err:
                raise SourceProblem(f"cannot read file ({err.strerror})") from err
            if not block:
                break
            h.update(block)
            dst.write(block)
    if h.hexdigest() != digest:
        raise SourceProblem("the file changed while it was being imported; import it again")


class CopyStore:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.root = data_dir / FILES_DIR
        self.catalogue = Catalogue(self.root / CATALOGUE)

    @staticmethod
    def relative(digest: str, suffix: str) -> str:
        clean = suffix.lower() if _SUFFIX.fullmatch(suffix) else ""
        return f"{FILES_DIR}/{digest[:2]}/{digest}{clean}"

    def resolve(self, rel: str) -> Path:
        return self.data_dir / rel

    def keep(self, source: Path, digest: str, suffix: str) -> str:
        """Keep a copy of ``source`` (whose sha256 is ``digest``); returns its path relative to the data dir.

        Raises ``SourceProblem`` if the source cannot be read or no longer matches ``digest``, and
        ``OSError`` if the library cannot be written (disk full, read-only).
        """
        rel = self.relative(digest, suffix)
        target = self.resolve(rel)
        if target.is_file():
            return rel
        if not target.parent.is_dir():
            created_root = not self.root.is_dir()
            target.parent.mkdir(parents=True, exist_ok=True)
            fsync_dir(self.root)
            if created_root:
                fsync_dir(self.data_dir)
        atomic_write(target, lambda tmp: _copy_checked(source, tmp, digest))
        return rel

    def unreferenced(self, engine: Engine, rels: Iterable[str]) -> list[str]:
        with engine.connect() as conn:
            return [rel for rel in dict.fromkeys(rels) if not repository.copy_in_use(conn, rel)]

    def release(self, engine: Engine, rels: Iterable[str | None]) -> None:
        """Delete the copies among ``rels`` that no document refers to any more."""
        for rel in self.unreferenced(engine, [r for r in rels if r]):
            self.resolve(rel).unlink(missing_ok=True)

    def stored(self) -> list[str]:
        """Every kept copy on disk, relative to the data dir."""
        if not self.root.is_dir():
            return []
        return sorted(
            f"{FILES_DIR}/{p.parent.name}/{p.name}"
            for p in self.root.glob("*/*")
            if p.is_file() and not p.name.startswith(".")
        )
