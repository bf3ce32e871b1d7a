"""Consistency checks of the library file, cheap ones for every start and full ones for ``verify``."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError


@dataclass(slots=True)
class CheckReport:
    problems: list[str] = field(default_factory=list)
    facts: dict[str, int | str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def _scalar(conn: Connection, sql: str) -> int:
    return int(conn.exec_driver_sql(sql).scalar_one())


def check_database(conn: Connection, *, full: bool) -> CheckReport:
    report = CheckReport()
    pragma = "integrity_check" if full else "quick_check"
    rows = [r[0] for r in conn.exec_driver_sql(f"PRAGMA {pragma}")]
    if rows != ["ok"]:
        report.problems.append(f"SQLite {pragma}: " + "; ".join(rows[:5]))
    report.facts["documents"] = _scalar(conn, "SELECT count(*) FROM documents WHERE status = 'ready'")
    report.facts["failed_documents"] = _scalar(conn, "SELECT count(*) FROM documents WHERE status = 'failed'")
    report.facts["chunks"] = _scalar(conn, "SELECT count(*) FROM chunks")
    missing = _scalar(conn, "SELECT count(*) FROM chunks WHERE id NOT IN (SELECT rowid FROM chunk_fts)")
    orphans = _scalar(conn, "SELECT count(*) FROM chunk_fts WHERE rowid NOT IN (SELECT id FROM chunks)")
    if missing:
        report.problems.append(f"{missing} passages have no keyword-index entry")
    if orphans:
        report.problems.append(f"{orphans} keyword-index entries belong to no passage")
    empty = _scalar(
        conn,
        "SELECT count(*) FROM documents d WHERE d.status = 'ready' "
        "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id)",
    )
    if empty:
        report.problems.append(f"{empty} documents have no passages")
    if full:
        try:
            conn.exec_driver_sql("INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('integrity-check', 1)")
        except DBAPIError as err:
            report.problems.append(f"keyword index integrity check failed: {err.orig}")
    return report
