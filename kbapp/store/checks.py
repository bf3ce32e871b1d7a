"""Consistency checks of the library file, cheap ones for every start and full ones for ``verify``.

Problems are things that are wrong and need ``--repair`` (or a rebuild); notes are facts worth
knowing that fix themselves or need no action (passages waiting for embedding, an index cache to
be rebuilt). Each message names the files it concerns where there are files to name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from kbapp.store.errors import is_damage

# Listing every file a problem touches helps up to a point; beyond it the count says enough.
_MAX_NAMED = 5


@dataclass(slots=True)
class CheckReport:
    problems: list[str] = field(default_factory=list)
    facts: dict[str, int | str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    damaged: bool = False  # SQLite's own check failed: only a rebuild from the sources helps

    @property
    def ok(self) -> bool:
        return not self.problems


def _scalar(conn: Connection, sql: str, params: tuple[object, ...] = ()) -> int:
    return int(conn.exec_driver_sql(sql, params).scalar_one())


def named_files(paths: list[str]) -> str:
    """ "a.pdf, b.pdf and 3 more": the files a message is about, without flooding it."""
    names = [PurePath(p).name for p in paths[:_MAX_NAMED]]
    more = f" and {len(paths) - _MAX_NAMED} more" if len(paths) > _MAX_NAMED else ""
    return ", ".join(names) + more


def sqlite_check(conn: Connection, *, full: bool) -> list[str]:
    """SQLite's own check of the file (``quick_check`` or ``integrity_check``); [] if it is sound."""
    pragma = "integrity_check" if full else "quick_check"
    try:
        rows = [r[0] for r in conn.exec_driver_sql(f"PRAGMA {pragma}")]
    except DBAPIError as err:
        if is_damage(err):
            return [str(err.orig)]
        raise
    return [] if rows == ["ok"] else rows


def check_database(
    conn: Connection, *, full: bool, pack_id: str | None = None, dimension: int | None = None
) -> CheckReport:
    report = CheckReport()
    damage = sqlite_check(conn, full=full)
    if damage:
        report.damaged = True
        report.problems.append("the library database is damaged (SQLite: " + "; ".join(damage[:3]) + ")")
        return report
    try:
        _check_contents(conn, report, full=full, pack_id=pack_id, dimension=dimension)
    except DBAPIError as err:
        if not is_damage(err):
            raise
        report.damaged = True  # damage quick_check did not see
        report.problems.append(f"the library database cannot be read ({err.orig})")
    return report


def _check_contents(
    conn: Connection, report: CheckReport, *, full: bool, pack_id: str | None, dimension: int | None
) -> None:
    report.facts["documents"] = _scalar(conn, "SELECT count(*) FROM documents WHERE status = 'ready'")
    report.facts["failed_documents"] = _scalar(conn, "SELECT count(*) FROM documents WHERE status = 'failed'")
    report.facts["chunks"] = _scalar(conn, "SELECT count(*) FROM chunks")
    unindexed = [
        r[0]
        for r in conn.exec_driver_sql(
            "SELECT DISTINCT d.path FROM chunks c JOIN documents d ON d.id = c.document_id "
            "WHERE c.id NOT IN (SELECT rowid FROM chunk_fts) ORDER BY d.path"
        )
    ]
    if unindexed:
        report.problems.append(f"passages missing from the keyword index: {named_files(unindexed)}")
    orphans = _scalar(conn, "SELECT count(*) FROM chunk_fts WHERE rowid NOT IN (SELECT id FROM chunks)")
    if orphans:
        report.problems.append(f"{orphans} keyword-index entries belong to no passage")
    empty = [
        r[0]
        for r in conn.exec_driver_sql(
            "SELECT d.path FROM documents d WHERE d.status = 'ready' "
            "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id) "
            # A scan's passages come from the OCR stage, later or never (a blank page).
            "AND NOT EXISTS (SELECT 1 FROM ocr_pages o WHERE o.document_id = d.id) ORDER BY d.path"
        )
    ]
    if empty:
        report.problems.append(f"documents listed as imported but without passages: {named_files(empty)}")
    dangling = len(conn.exec_driver_sql("PRAGMA foreign_key_check").all())
    if dangling:
        report.problems.append(f"{dangling} pages, passages or vectors belong to nothing")
    if pack_id is not None and dimension is not None:
        bad = _scalar(
            conn,
            "SELECT count(*) FROM vectors WHERE pack_id = ? AND length(vector) != ?",
            (pack_id, dimension * 2),
        )
        if bad:
            report.problems.append(f"{bad} stored vectors are damaged (wrong size)")
        pending = _scalar(
            conn,
            "SELECT count(*) FROM chunks c LEFT JOIN vectors v ON v.chunk_id = c.id AND v.pack_id = ? "
            "WHERE v.chunk_id IS NULL",
            (pack_id,),
        )
        report.facts["passages_waiting_for_embedding"] = pending
        if pending:
            report.notes.append(
                f"{pending} passages are waiting for embedding (the next import or the app embeds them)"
            )
    if full:
        try:
            conn.exec_driver_sql("INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('integrity-check', 1)")
        except DBAPIError as err:
            report.problems.append(f"the keyword index is damaged ({err.orig})")
