"""Each table's SQL lives in ``kbapp/store/``: a schema change is then one package to read. Search
builds FTS5 MATCH expressions (the query language of the keyword index, not SQL); the store runs them.

Found by walking every module's syntax tree: SQL text (string constants and f-string parts that
start with an SQL statement), ``exec_driver_sql`` calls and SQLAlchemy query builders.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

KBAPP = Path(__file__).resolve().parents[2] / "kbapp"
_SQL_START = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|WITH|ALTER|DROP|REPLACE)\s")
_BUILDERS = {"select", "insert", "update", "delete", "text", "func", "and_", "or_"}


def _sql_uses(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL_START.match(node.value):
            found.append(f"line {node.lineno}: SQL text")
        elif isinstance(node, ast.Attribute) and node.attr == "exec_driver_sql":
            found.append(f"line {node.lineno}: exec_driver_sql")
        elif isinstance(node, ast.ImportFrom) and node.module == "sqlalchemy":
            builders = _BUILDERS & {a.name for a in node.names}
            if builders:
                found.append(f"line {node.lineno}: sqlalchemy {', '.join(sorted(builders))}")
    return found


def test_no_sql_outside_the_store() -> None:
    outside = {
        f"{rel}: {use}"
        for path in KBAPP.rglob("*.py")
        if (rel := path.relative_to(KBAPP)).parts[0] != "store"
        for use in _sql_uses(path)
    }
    assert not outside


def test_the_walk_finds_sql() -> None:
    """The check is only worth something if it sees the store's own SQL."""
    assert _sql_uses(KBAPP / "store" / "vectors.py")
    assert _sql_uses(KBAPP / "store" / "keywords.py")  # f-string SQL
    assert _sql_uses(KBAPP / "store" / "passages.py")  # query builders
