"""A library written by the previous release (schema 2, committed under ``data/``) opens with this one:
it gains the watched-folder and collection tables, keeps its documents, and passes ``verify``."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from kbapp.library import KnowledgeBase
from kbapp.store.schema import SCHEMA_VERSION

OLD = Path(__file__).parent / "data" / "library-v2"


def test_schema_2_library_gains_sources_and_collections(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    shutil.copytree(OLD, lib)
    with sqlite3.connect(lib / "library.sqlite3") as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("2",)
    conn.close()

    with KnowledgeBase(lib, pack_dir=None, parse_limits=None) as kb:
        docs = {Path(d.path).name: d for d in kb.documents()}
        assert set(docs) == {"pump.txt", "valve.md"}
        assert kb.verify().ok, kb.verify().problems
        kb.collections.create("Pumps")
        assert kb.collections.add("Pumps", [docs["pump.txt"].id]) == 1
        hits = kb.search(
            "impeller", mode="lexical", document_ids=kb.collections.restrict(None, ["Pumps"])
        ).results
        assert [Path(r.path).name for r in hits] == ["pump.txt"]
        assert not kb.search(
            "密封圈", mode="lexical", document_ids=kb.collections.restrict(None, ["Pumps"])
        ).results

    with sqlite3.connect(lib / "library.sqlite3") as conn:
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert version == (str(SCHEMA_VERSION),) and SCHEMA_VERSION == 5
    assert {"sources", "collections", "document_collections"} <= tables
