"""``verify`` finds what is wrong, naming the files, and ``verify --repair`` fixes what can be fixed."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import time
from pathlib import Path

from kbapp.index.vector_index import MANIFEST_FILE
from kbapp.library import KnowledgeBase
from kbapp.library.knowledge_base import DB_NAME
from tests.reliability.conftest import PACK, hits, kbapp, needs_pack
from tests.reliability.corpus import write_good

NO_PACK = {"KBAPP_MODEL_DIR": "/nonexistent"}


def test_verify_names_the_damage_and_repair_fixes_it(tmp_path: Path) -> None:
    rnd = random.Random(10)
    docs = {d.path.name: d for d in (write_good(tmp_path / "docs", i, "txt", 300, rnd) for i in range(6))}
    lib = tmp_path / "lib"
    with KnowledgeBase(lib, pack_dir=None) as kb:
        assert kb.import_paths([tmp_path / "docs"]).ok
        ids = {Path(d.path).name: d.id for d in kb.documents()}
        copies = {Path(d.path).name: kb.copies.name(d.copy_path) for d in kb.documents()}  # type: ignore[arg-type]
    with sqlite3.connect(lib / DB_NAME) as conn:  # foreign keys off: anything goes
        conn.execute(
            "DELETE FROM chunk_fts WHERE rowid IN (SELECT id FROM chunks WHERE document_id = ?)",
            (ids["doc000.txt"],),
        )
        conn.execute("INSERT INTO chunk_fts(rowid, body, context) VALUES (999999, 'zqorphan', '')")
        conn.execute("DELETE FROM chunks WHERE document_id = ?", (ids["doc001.txt"],))
        conn.execute("INSERT INTO pages(document_id, page_index, number, text) VALUES (424242, 0, NULL, 'x')")
    conn.close()
    with sqlite3.connect(lib / "files" / "pack.sqlite3") as conn:  # small files' copies are kept here
        conn.execute("DELETE FROM copies WHERE name = ?", (copies["doc002.txt"],))
        conn.execute("UPDATE copies SET data = ? WHERE name = ?", (b"bit rot", copies["doc003.txt"]))
        conn.execute("INSERT INTO copies VALUES (?, ?)", ("e" * 64 + ".txt", b"orphan copy"))
    conn.close()
    docs["doc003.txt"].path.unlink()  # and its original is gone too
    unused = lib / "files" / "ff" / ("f" * 64 + ".txt")  # a larger file's copy is a file
    unused.parent.mkdir()
    unused.write_text("orphan copy")
    stale = lib / "files" / ".half-written.tmp"
    unpacked = lib / "files" / "unpacked" / copies["doc004.txt"]  # written out by a rebuild, then killed
    unpacked.parent.mkdir()
    for debris in (stale, unpacked):
        debris.write_bytes(b"x")
        os.utime(debris, (time.time() - 7200, time.time() - 7200))

    run = kbapp(lib, "verify", "--json", env=NO_PACK)
    assert run.returncode == 1
    found = json.loads(run.stdout)
    assert found["ok"] is False
    assert found["problems"] == [
        "passages missing from the keyword index: doc000.txt",
        "1 keyword-index entries belong to no passage",
        "documents listed as imported but without passages: doc001.txt",
        "1 pages, passages or vectors belong to nothing",
        "kept copies missing: doc002.txt",
        "kept copies damaged (content does not match): doc003.txt",
    ]
    assert any("2 kept copies belong to no document" in n for n in found["notes"])
    assert any("2 temporary files" in n for n in found["notes"])

    run = kbapp(lib, "verify", "--repair", "--json", env=NO_PACK)
    assert run.returncode == 0, run.stdout + run.stderr
    fixed = json.loads(run.stdout)
    assert fixed["ok"] is True and fixed["problems"] == []
    [note] = fixed["notes"]  # its copy and its original are both gone: nothing can keep one now
    assert note.startswith("1 documents have no kept copy: doc003.txt")
    repaired = "\n".join(fixed["repaired"])
    for words in (
        "dropped 1 pages",
        "rebuilt the keyword index",
        "imported again (they had lost their passages): doc001.txt: imported",
        "kept copies made again from the original files: doc002.txt",
        "kept copies lost and the originals gone",
        "doc003.txt",
        "removed 2 kept copies",
        "removed 2 temporary files",
    ):
        assert words in repaired, repaired
    assert not unused.exists() and not stale.exists() and not unpacked.exists()
    with KnowledgeBase(lib, pack_dir=None) as kb:
        for name, doc in docs.items():
            assert hits(kb, doc.begin) == {name} and hits(kb, doc.end) == {name}
        assert not hits(kb, "zqorphan")
        assert kb.verify().ok
        kept = {kb.copies.name(rel) for rel in kb.copies.stored()}
        assert copies["doc002.txt"] in kept and "e" * 64 + ".txt" not in kept


@needs_pack
def test_damaged_vectors_are_requeued_and_the_index_rebuilt(tmp_path: Path, sample_folder: Path) -> None:
    lib = tmp_path / "lib"
    with KnowledgeBase(lib, pack_dir=PACK) as kb:
        assert kb.import_paths([sample_folder]).ok
        kb.embed_pending()
        with kb.engine.connect() as conn:
            total = conn.exec_driver_sql("SELECT count(*) FROM vectors").scalar_one()
    with sqlite3.connect(lib / DB_NAME) as conn:
        conn.execute(
            "UPDATE vectors SET vector = x'0102' WHERE chunk_id = (SELECT min(chunk_id) FROM vectors)"
        )
    conn.close()
    (lib / MANIFEST_FILE).unlink()
    with KnowledgeBase(lib, pack_dir=PACK, autoload_model=False) as kb:
        report = kb.verify()
        assert report.problems == ["1 stored vectors are damaged (wrong size)"]
        assert any("vector index manifest is missing" in n for n in report.notes)
        fixed = kb.verify(repair=True)
        assert fixed.ok, fixed.problems
        assert "dropped 1 damaged vectors; their passages will be embedded again" in fixed.repaired
        assert "rebuilt the vector index from the library" in fixed.repaired
        assert kb.pending_embeddings() == 1
        assert kb.embed_pending() == 1
        with kb.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM vectors").scalar_one() == total
        assert kb.search("exposure time", mode="dense").results
