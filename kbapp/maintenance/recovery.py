"""Opening the library file, and what happens when SQLite says it is damaged.

A damaged file is never deleted and never written to: it (with its ``-wal`` and ``-shm``) is
renamed to ``library.sqlite3.damaged-<time>`` so nothing in it is lost for good, and a fresh
library is created in its place. The documents to rebuild it from are listed, in order of
preference, by the damaged file itself (if its document table can still be read), by the
catalogue beside the kept copies, or by the kept copies alone; each is read from its kept copy,
else from its original path. The rebuild is recorded as an import job, so it survives being
interrupted like any import and reports what it restored.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from kbapp.contract import Outcome, StorageError, StorageProblem
from kbapp.importing.copies import CopyStore
from kbapp.index.atomic import fsync_dir
from kbapp.store import journal, repository
from kbapp.store.checks import sqlite_check
from kbapp.store.database import open_engine, write_transaction
from kbapp.store.errors import classify_os_error, folder_writable, is_damage


@dataclass(frozen=True, slots=True)
class Damage:
    reason: str
    kept_as: Path


@dataclass(slots=True)
class RebuildPlan:
    files: list[tuple[str, str | None]] = field(default_factory=list)  # original path, file to read
    lost: list[tuple[str, str]] = field(default_factory=list)  # original path, why it cannot be restored
    from_copies: int = 0
    from_originals: int = 0
    listed_by: str = "the damaged library"

    def summary(self) -> str:
        found = f"{len(self.files)} documents listed by {self.listed_by}"
        sources = f"{self.from_copies} from kept copies, {self.from_originals} from their original files"
        lost = ""
        if self.lost:
            names = ", ".join(Path(p).name for p, _ in self.lost[:5])
            lost = f"; {len(self.lost)} cannot be restored (no kept copy, original gone): {names}"
        return f"{found} ({sources}){lost}"


def open_folder(data_dir: Path, notices: list[str]) -> bool:
    """Create the library folder if needed; True if it is read-only (a notice says what still works)."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise classify_os_error(err, data_dir) from err
    if folder_writable(data_dir):
        return False
    notices.append(
        f"The library folder {data_dir} is read-only: searching works, importing and removing do not."
    )
    return True


def open_library(
    db_path: Path, copies: CopyStore, *, read_only: bool, damage: Damage | None = None
) -> tuple[Engine, str | None]:
    """The library's engine. A damaged file is moved aside and a fresh library opened in its place;
    its rebuild (or that of ``damage``, a file a check found damaged and set aside) is queued as an
    interrupted import, with a notice that says so."""
    engine, found = _open_sound(db_path, read_only=read_only)
    damage = damage or found
    return engine, queue_rebuild(engine, damage, copies) if damage is not None else None


def set_aside(engine: Engine, db_path: Path, problems: str) -> Damage:
    """Close the library a check found damaged and move its file aside, to be rebuilt."""
    engine.dispose()
    return Damage(problems, move_aside(db_path))


def _open_sound(db_path: Path, *, read_only: bool) -> tuple[Engine, Damage | None]:
    """The library's engine; if the file is damaged, it is moved aside and a fresh one opened."""
    if read_only and not db_path.exists():
        raise StorageError(
            StorageProblem.READ_ONLY, db_path.parent, "there is no library here to open read-only"
        )
    try:
        engine = open_engine(db_path, read_only=read_only)
    except (DBAPIError, sqlite3.DatabaseError) as exc:
        if not is_damage(exc):
            raise
        reason = str(getattr(exc, "orig", exc))
    else:
        with engine.connect() as conn:
            problems = sqlite_check(conn, full=False)
        if not problems:
            return engine, None
        engine.dispose()
        reason = "; ".join(problems[:3])
    if read_only:
        raise StorageError(
            StorageProblem.DAMAGED, db_path.parent, f"{reason}; a read-only library cannot be rebuilt"
        )
    kept = move_aside(db_path)
    return open_engine(db_path), Damage(reason, kept)


def move_aside(db_path: Path) -> Path:
    """Rename the damaged file and its WAL companions to ``<name>.damaged-<time>`` (never delete)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = db_path.with_name(f"{db_path.name}.damaged-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = db_path.with_name(f"{db_path.name}.damaged-{stamp}-{n}")
    # Companions first: a fresh library must never meet the damaged one's write-ahead log.
    for suffix in ("-wal", "-shm"):
        side = db_path.with_name(db_path.name + suffix)
        if side.exists():
            os.replace(side, target.with_name(target.name + suffix))
    os.replace(db_path, target)
    fsync_dir(db_path.parent)
    return target


def _documents_in(damaged: Path) -> list[tuple[str, str, str | None]] | None:
    """``(path, sha256, kept copy)`` of the documents a damaged library held, None if unreadable."""
    try:
        conn = sqlite3.connect(f"{damaged.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return repository.ready_files(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def plan_rebuild(damaged: Path | None, copies: CopyStore) -> RebuildPlan:
    """Which documents to restore and where to read each from."""
    plan = RebuildPlan()
    rows = _documents_in(damaged) if damaged is not None else None
    if rows is None:
        entries = copies.catalogue.entries()
        if entries:
            plan.listed_by = "the catalogue of kept copies"
            rows = [(e.path, e.sha256, e.copy) for e in entries.values()]
        else:
            plan.listed_by = "the kept copies"
            # The original names are lost: each document is named after its copy.
            rows = [(str(copies.root / copies.name(rel)), "", rel) for rel in copies.stored()]
    for path, _sha256, rel in rows:
        if rel and copies.has(rel):
            plan.files.append((path, rel))
            plan.from_copies += 1
        elif Path(path).is_file():
            plan.files.append((path, None))
            plan.from_originals += 1
        else:
            plan.lost.append((path, f"{Path(path).name}: no kept copy, and the original file is gone"))
    return plan


def queue_rebuild(engine: Engine, damage: Damage, copies: CopyStore) -> str:
    """Record the rebuild of a damaged library as an import job in the fresh library ``engine``
    opens, to be run like any interrupted import; returns the notice that says so."""
    plan = plan_rebuild(damage.kept_as, copies)
    with write_transaction(engine) as conn:
        journal.start_job(conn, "recovery", plan.files, [(p, Outcome.FAILED, why) for p, why in plan.lost])
    return (
        f"The library file was damaged ({damage.reason}); it was kept as {damage.kept_as.name} and the "
        f"library is being rebuilt from {plan.summary()}."
    )
