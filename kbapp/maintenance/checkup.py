"""The full check of a library (``kbapp verify``) and its repair: the database, the kept copies, the
vector index cache and interrupted imports, in one report a user can act on.

The database checks and repairs are SQL and live in ``kbapp.store``; the files beside it are
checked in ``verify``. A damaged database is not repaired here: the façade moves it aside and
rebuilds it, which needs a new connection (``verify_library``'s ``rebuild``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from kbapp.embedding.handle import ModelHandle
from kbapp.importing.copies import CopyStore
from kbapp.importing.jobs import ImportJobs
from kbapp.index.dense import DenseIndex
from kbapp.maintenance import verify
from kbapp.store.checks import CheckReport, check_database
from kbapp.store.database import write_transaction
from kbapp.store.repair import repair_database


@dataclass(frozen=True, slots=True)
class Library:
    """What a check looks at, and what a repair works with."""

    engine: Engine
    data_dir: Path
    copies: CopyStore
    keep_copies: bool
    model: ModelHandle
    imports: ImportJobs  # interrupted imports are reported; documents that lost passages are imported again
    dense: DenseIndex | None  # the vector index in use, if loaded: a repair rebuilds that one

    @property
    def pack(self) -> tuple[str, int] | None:
        """``(pack id, dimension)`` of the active model, if any."""
        pack = self.model.pack()
        return (pack.manifest.id, pack.manifest.dimension) if pack else None


def verify_library(
    library: Callable[[], Library], *, repair: bool, rebuild: Callable[[str], list[str]]
) -> CheckReport:
    """The full check. With ``repair``, what can be fixed is fixed (in place, or for a damaged
    database by ``rebuild(problems)``, after which ``library()`` describes the fresh one) and the
    check is run again, with what was done in ``repaired``."""
    report = check_library(library())
    if not repair:
        return report
    lib = library()
    lib.imports.writable()
    actions = rebuild("; ".join(report.problems)) if report.damaged else repair_library(lib)
    final = check_library(library())
    final.repaired = actions
    return final


def check_library(lib: Library) -> CheckReport:
    pack = lib.pack
    pack_id, dimension = pack or (None, None)
    with lib.engine.connect() as conn:
        report = check_database(conn, full=True, pack_id=pack_id, dimension=dimension)
    if report.damaged:
        return report
    copies = verify.check_copies(lib.engine, lib.copies, full=True)
    report.problems += copies.problems()
    report.notes += copies.notes(lib.keep_copies)
    report.facts["kept_copies"] = len(lib.copies.stored())
    if pack is not None:
        reason = verify.check_index(lib.engine, lib.data_dir, *pack)
        if reason is not None:
            report.notes.append(
                f"{reason}; it is rebuilt from the library on the next search (or by --repair)"
            )
    interrupted = lib.imports.interrupted()
    if interrupted is not None:
        total = len(interrupted.done) + len(interrupted.remaining)
        report.notes.append(
            f"an import was interrupted: {len(interrupted.done)} of {total} files were done "
            "(import again to resume)"
        )
    return report


def repair_library(lib: Library) -> list[str]:
    """Fix what can be fixed in place; the documents that lost their passages are imported again
    (from their kept copies when there are). Returns what was done, in words."""
    pack = lib.pack
    pack_id, dimension = pack or (None, None)
    with write_transaction(lib.engine) as conn:
        fixed = repair_database(conn, pack_id=pack_id, dimension=dimension)
    actions = list(fixed.actions)
    if fixed.reimport:  # before the copies are checked: theirs are unreferenced until then
        files = [(path, rel if rel and lib.copies.has(rel) else None) for path, rel in fixed.reimport]
        imported = lib.imports.run_new("repair", files)
        actions.append(
            "imported again (they had lost their passages): " + "; ".join(f.message for f in imported.files)
        )
    copies = verify.check_copies(lib.engine, lib.copies, full=True)
    actions += verify.repair_copies(lib.engine, lib.copies, copies, keep_copies=lib.keep_copies)
    if pack is not None and verify.check_index(lib.engine, lib.data_dir, *pack) is not None:
        (lib.dense or DenseIndex(lib.engine, lib.data_dir, *pack)).rebuild()
        actions.append("rebuilt the vector index from the library")
    return actions
