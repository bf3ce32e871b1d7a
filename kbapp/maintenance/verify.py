"""The checks and repairs of what lives beside the database: kept copies and the vector index cache.

The database checks are in ``kbapp.store.checks``; these look at the files the database points
to. A missing or damaged kept copy is a problem (a rebuild could not restore that document); an
outdated vector index is only a note, since it is rebuilt from SQLite by itself.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from sqlalchemy.engine import Engine

from kbapp.contract import DocumentStatus
from kbapp.hashing import sha256_file
from kbapp.importing.catalogue import CatalogueEntry
from kbapp.importing.copies import FILES_DIR, UNPACKED_DIR, CopyStore, SourceProblem
from kbapp.index.dense import database_state
from kbapp.index.vector_index import IndexMismatch, VectorIndex
from kbapp.store import repository
from kbapp.store.checks import named_files
from kbapp.store.database import write_transaction

_STALE_TEMP_SECONDS = 3600


@dataclass(slots=True)
class CopyCheck:
    missing: list[tuple[str, str, str]] = field(default_factory=list)  # path, sha256, copy
    damaged: list[tuple[str, str, str]] = field(default_factory=list)
    without: list[tuple[str, str]] = field(default_factory=list)  # path, sha256
    unused: list[str] = field(default_factory=list)
    stale: list[Path] = field(default_factory=list)  # half-written, or packed copies written out

    def problems(self) -> list[str]:
        out = []
        if self.missing:
            out.append(f"kept copies missing: {named_files([p for p, _, _ in self.missing])}")
        if self.damaged:
            names = named_files([p for p, _, _ in self.damaged])
            out.append(f"kept copies damaged (content does not match): {names}")
        return out

    def notes(self, keep_copies: bool) -> list[str]:
        out = []
        if keep_copies and self.without:
            names = named_files([p for p, _ in self.without])
            out.append(
                f"{len(self.without)} documents have no kept copy: {names} "
                "(--repair keeps copies of those whose original is still there)"
            )
        if self.unused:
            out.append(f"{len(self.unused)} kept copies belong to no document (--repair removes them)")
        if self.stale:
            out.append(
                f"{len(self.stale)} temporary files left by an interrupted run (--repair removes them)"
            )
        return out


def check_copies(engine: Engine, copies: CopyStore, *, full: bool) -> CopyCheck:
    result = CopyCheck()
    with engine.connect() as conn:
        rows = repository.file_rows(conn)
    referenced = {r.copy_path for r in rows if r.copy_path}
    for r in rows:
        if r.status != DocumentStatus.READY:
            continue
        if r.copy_path is None:
            result.without.append((r.path, r.content_hash))
            continue
        digest = _copy_digest(copies, r.copy_path, r.content_hash, full)
        if digest is None:
            result.missing.append((r.path, r.content_hash, r.copy_path))
        elif digest != r.content_hash:
            result.damaged.append((r.path, r.content_hash, r.copy_path))
    result.unused = [rel for rel in copies.stored() if rel not in referenced]
    result.stale = stale_temp_files(copies.data_dir)
    return result


def _copy_digest(copies: CopyStore, rel: str, expected: str, full: bool) -> str | None:
    """The copy's sha256 (without ``full``, the expected one if the copy is there); None if missing."""
    if not full:
        return expected if copies.has(rel) else None
    return copies.digest(rel)


def stale_temp_files(data_dir: Path) -> list[Path]:
    """Half-written files (copies, index, catalogue) and packed copies written out to be read that a
    killed process left behind; only old ones, so a file another running kbapp is writing or
    reading right now is not taken for debris."""
    cutoff = time.time() - _STALE_TEMP_SECONDS
    found = []
    patterns = (".*.tmp", f"{FILES_DIR}/.*.tmp", f"{FILES_DIR}/*/.*.tmp", f"{FILES_DIR}/{UNPACKED_DIR}/*")
    for pattern in patterns:
        for path in data_dir.glob(pattern):
            with contextlib.suppress(OSError):
                if path.is_file() and path.stat().st_mtime < cutoff:
                    found.append(path)
    return found


def _original_matches(path: str, sha256: str) -> bool:
    try:
        return Path(path).is_file() and sha256_file(Path(path)) == sha256
    except OSError:
        return False


def repair_copies(engine: Engine, copies: CopyStore, check: CopyCheck, *, keep_copies: bool) -> list[str]:
    """Restore missing or damaged copies from originals, drop what cannot be restored or is unused,
    and rewrite the catalogue from the database."""
    actions: list[str] = []
    restored, gone = [], []
    updates: list[tuple[str | None, str]] = []  # new copy path, document path
    copies.remove(rel for _, _, rel in check.missing + check.damaged)
    for path, sha256, _ in check.missing + check.damaged:
        if _original_matches(path, sha256):
            try:
                copies.keep(Path(path), sha256, PurePath(path).suffix)
                restored.append(path)
                continue
            except SourceProblem:
                pass
        gone.append(path)
        updates.append((None, path))
    if keep_copies:
        for path, sha256 in check.without:
            if _original_matches(path, sha256):
                try:
                    updates.append((copies.keep(Path(path), sha256, PurePath(path).suffix), path))
                    restored.append(path)
                except SourceProblem:
                    continue
    if updates:
        with write_transaction(engine) as conn:
            repository.set_copy_paths(conn, updates)
    if restored:
        actions.append(f"kept copies made again from the original files: {named_files(restored)}")
    if gone:
        actions.append(
            f"kept copies lost and the originals gone (the documents stay searchable, but a rebuild "
            f"could not restore them): {named_files(gone)}"
        )
    copies.remove(copies.unreferenced(engine, check.unused))
    if check.unused:
        actions.append(f"removed {len(check.unused)} kept copies that belonged to no document")
    for tmp in check.stale:
        tmp.unlink(missing_ok=True)
    if check.stale:
        actions.append(f"removed {len(check.stale)} temporary files left by an interrupted run")
    with engine.connect() as conn:
        rows = repository.ready_files(conn)
    copies.catalogue.rewrite(CatalogueEntry(path, sha256, copy) for path, sha256, copy in rows)
    return actions


def check_index(engine: Engine, folder: Path, pack_id: str, dimension: int) -> str | None:
    """Why the saved vector index cannot be used as it is (None if it matches the database)."""
    with engine.connect() as conn:
        state = database_state(conn, pack_id, dimension)
    if state.count == 0:
        return None
    try:
        VectorIndex.load(folder, state)
    except IndexMismatch as err:
        return str(err)
    return None
