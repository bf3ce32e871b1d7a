"""Watched-folder fixtures: a folder of 50 mixed documents and checks that a library mirrors a folder."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from kbapp.ingest import SUPPORTED_SUFFIXES
from kbapp.library import KnowledgeBase
from tests.reliability.conftest import hits
from tests.reliability.conftest import tmpfs as tmpfs  # the fixture, for these tests too
from tests.reliability.corpus import GoodDoc, write_good

KINDS = ["md", "txt", "pdf", "html", "docx"]


@pytest.fixture
def folder50(tmp_path: Path) -> tuple[Path, dict[str, GoodDoc]]:
    """50 documents of five kinds, two levels deep; keyed by path."""
    rnd = random.Random(5)
    root = tmp_path / "manuals"
    docs = {}
    for i in range(50):
        where = root / f"machine{i % 3}" if i % 2 else root
        doc = write_good(where, i, KINDS[i % 5], 60 + 7 * i, rnd)
        docs[str(doc.path)] = doc
    return root, docs


def files_on_disk(root: Path) -> set[str]:
    return {
        os.path.join(d, f)
        for d, _, names in os.walk(root)
        for f in names
        if Path(f).suffix.lower() in SUPPORTED_SUFFIXES
    }


def orphans(kb: KnowledgeBase) -> dict[str, int]:
    """Rows that belong to nothing: passages, keyword rows and vectors without their owner."""
    queries = {
        "chunks": "SELECT count(*) FROM chunks c LEFT JOIN documents d ON d.id = c.document_id "
        "WHERE d.id IS NULL",
        "fts": "SELECT (SELECT count(*) FROM chunk_fts) - (SELECT count(*) FROM chunks)",
        "vectors": "SELECT count(*) FROM vectors v LEFT JOIN chunks c ON c.id = v.chunk_id "
        "WHERE c.id IS NULL",
        "memberships": "SELECT count(*) FROM document_collections m LEFT JOIN documents d "
        "ON d.id = m.document_id WHERE d.id IS NULL",
    }
    with kb.engine.connect() as conn:
        found = {name: int(conn.exec_driver_sql(sql).scalar_one()) for name, sql in queries.items()}
    return {name: n for name, n in found.items() if n}


def assert_mirrors(kb: KnowledgeBase, root: Path, docs: dict[str, GoodDoc]) -> None:
    """The library holds exactly the folder's documents, each searchable end to end, nothing orphaned."""
    held = {d.path: d for d in kb.documents() if d.path.startswith(str(root) + os.sep)}
    assert set(held) == files_on_disk(root)
    assert set(docs) <= set(held)
    for path, doc in docs.items():
        assert held[path].status == "ready", held[path].error
        name = Path(path).name
        assert hits(kb, doc.begin) == {name}, (name, doc.begin)
        assert hits(kb, doc.end) == {name}, (name, doc.end)
    assert not orphans(kb)
    report = kb.verify()
    assert report.ok, report.problems
