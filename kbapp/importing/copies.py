"""Copies of imported documents kept inside the library, so it can be rebuilt without the originals.

Field engineers import manuals from USB sticks and network shares that are gone a week later; a
damaged library could then only be rebuilt from what it kept. Copies are content-addressed
(``files/ab/<sha256><suffix>``, the suffix kept because the reader takes it as a hint), written
atomically before the document's transaction, shared by identical files and deleted once no
document refers to them. The copy is hashed while it is written: a file that changed since it
was hashed is refused, so a copy's name always matches its bytes.

Copies are made in two steps so an import can make many durable with one wait for the disk:
``stage`` writes a copy to a temporary name beside its place, ``publish`` fsyncs a group of staged
copies, moves each to its name and fsyncs their folders. Only then does the transaction that
refers to them commit; a copy is never under its name before its bytes are on the disk, so a
copy found under its name is always whole. The fsyncs of a group are issued together from a few
threads: the file system then commits them in a few journal transactions instead of one each
(a group of 50 small copies: 0.17 s one after the other, 0.01 s together, measured on ext4).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine

from kbapp.importing.catalogue import CATALOGUE, Catalogue
from kbapp.index.atomic import fsync_dir
from kbapp.store import repository

FILES_DIR = "files"
_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,10}")
_SYNC_THREADS = 8


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


@dataclass(slots=True)
class StagedCopy:
    """A copy written under a temporary name (``temp``; None if the copy was already kept)."""

    rel: str  # its path relative to the data dir, once published
    target: Path
    temp: Path | None
    new_folders: list[Path] = field(default_factory=list)  # created for it, to be fsynced in their parents


def _fsync_file(path: Path) -> None:
    with path.open("rb+") as f:  # Windows flushes only a handle opened for writing
        os.fsync(f.fileno())


def _fsync_together(paths: list[Path], fsync: Callable[[Path], None]) -> None:
    """fsync ``paths`` at once (the first failure is raised once all have finished)."""
    if len(paths) <= 1:
        for path in paths:
            fsync(path)
        return
    with ThreadPoolExecutor(min(_SYNC_THREADS, len(paths)), thread_name_prefix="kbapp-fsync") as pool:
        for _ in pool.map(fsync, paths):
            pass


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
        """Keep a copy of ``source`` (whose sha256 is ``digest``) now; returns its path relative to the
        data dir. Raises like ``stage``."""
        staged = self.stage(source, digest, suffix)
        self.publish([staged])
        return staged.rel

    def stage(self, source: Path, digest: str, suffix: str) -> StagedCopy:
        """Write a copy of ``source`` (whose sha256 is ``digest``) under a temporary name beside its place.

        Raises ``SourceProblem`` if the source cannot be read or no longer matches ``digest``, and
        ``OSError`` if the library cannot be written (disk full, read-only).
        """
        rel = self.relative(digest, suffix)
        target = self.resolve(rel)
        if target.is_file():
            return StagedCopy(rel, target, None)
        new_folders = [f for f in (self.root, target.parent) if not f.is_dir()]
        if new_folders:  # mkdir on an existing folder fails inside the OS: 0.2 ms a file here
            target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
        temp = Path(temp_name)
        try:
            _copy_checked(source, temp, digest)
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise
        return StagedCopy(rel, target, temp, new_folders)

    def publish(self, staged: list[StagedCopy]) -> None:
        """Make staged copies durable under their names: fsync them all (the disk is waited for about
        once, not once per copy), move each into place, then fsync the folders that changed."""
        fresh = [s for s in staged if s.temp is not None]
        _fsync_together([copy.temp for copy in fresh if copy.temp is not None], _fsync_file)
        for copy in fresh:
            assert copy.temp is not None
            os.replace(copy.temp, copy.target)
            copy.temp = None
        created = {folder for copy in fresh for folder in copy.new_folders}
        _fsync_together(sorted({copy.target.parent for copy in fresh}), fsync_dir)
        _fsync_together(sorted({folder.parent for folder in created}, key=lambda f: -len(f.parts)), fsync_dir)

    @staticmethod
    def discard(staged: Iterable[StagedCopy]) -> None:
        """Remove staged copies that will not be published (the import stopped before their turn)."""
        for copy in staged:
            if copy.temp is not None:
                with contextlib.suppress(OSError):
                    copy.temp.unlink()
                copy.temp = None

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
