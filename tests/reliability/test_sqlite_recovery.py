"""A damaged library file is detected on open, kept aside (never deleted), and the library rebuilt
from the kept copies (or the original files), with search working afterwards."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase
from kbapp.library.knowledge_base import DB_NAME
from tests.reliability.conftest import hits, kbapp
from tests.reliability.corpus import GoodDoc, write_good


def build(tmp_path: Path, *, keep_copies: bool = True) -> tuple[Path, Path, list[GoodDoc]]:
    folder, lib = tmp_path / "usb-stick", tmp_path / "lib"
    rnd = random.Random(4)
    docs = [
        write_good(folder, i, kind, 400, rnd)
        for i, kind in enumerate(("md", "txt", "pdf", "html", "docx", "txt"))
    ]
    with KnowledgeBase(lib, pack_dir=None, keep_copies=keep_copies) as kb:
        assert kb.import_paths([folder]).ok
    assert not (lib / f"{DB_NAME}-wal").exists()
    return lib, folder, docs


def overwrite_header(lib: Path) -> bytes:
    db = lib / DB_NAME
    data = bytearray(db.read_bytes())
    data[:100] = random.Random(1).randbytes(100)
    db.write_bytes(bytes(data))
    return bytes(data)


def overwrite_table_pages(lib: Path, *tables: str) -> bytes:
    db = lib / DB_NAME
    with sqlite3.connect(db) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        roots = [
            conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0]
            for t in tables
        ]
    conn.close()
    data = bytearray(db.read_bytes())
    rnd = random.Random(2)
    for root in roots:
        data[(root - 1) * page_size : root * page_size] = rnd.randbytes(page_size)
    db.write_bytes(bytes(data))
    return bytes(data)


def assert_restored(kb: KnowledgeBase, docs: list[GoodDoc]) -> None:
    for doc in docs:
        assert hits(kb, doc.begin) == {doc.path.name}
        assert hits(kb, doc.end) == {doc.path.name}
    assert {d.path for d in kb.documents()} == {str(d.path) for d in docs}
    assert all(
        not d.title.startswith(("0", "1", "2", "3", "4", "5", "6", "7", "8", "9")) for d in kb.documents()
    )
    assert kb.verify().ok


def test_overwritten_header_is_kept_aside_and_rebuilt_from_kept_copies(tmp_path: Path) -> None:
    lib, folder, docs = build(tmp_path)
    damaged = overwrite_header(lib)
    shutil.rmtree(folder)  # the USB stick is gone: only the kept copies can restore the documents
    with KnowledgeBase(lib, pack_dir=None) as kb:
        [kept] = list(lib.glob(f"{DB_NAME}.damaged-*"))
        assert kept.read_bytes() == damaged
        assert kb.recovering
        assert "damaged" in kb.notices[0] and kept.name in kb.notices[0]
        assert "6 documents listed by the catalogue of kept copies (6 from kept copies" in kb.notices[0]
        report = kb.resume_import()
        assert report.ok, [f.message for f in report.files]
        assert kb.notices[-1] == "The library was rebuilt: 6 of 6 documents restored."
        # The six small files' copies were read out of the pack, and those files removed once read.
        assert all(d.copy_path and d.copy_path.startswith("files/pack.sqlite3#") for d in kb.documents())
        assert not list((lib / "files" / "unpacked").iterdir())
        assert not kb.recovering and kb.interrupted_import() is None
        assert_restored(kb, docs)


def test_damaged_pages_rebuilt_from_the_list_in_the_damaged_file(tmp_path: Path) -> None:
    lib, _folder, docs = build(tmp_path)
    overwrite_table_pages(lib, "chunks", "chunk_fts_data")
    with KnowledgeBase(lib, pack_dir=None) as kb:
        assert list(lib.glob(f"{DB_NAME}.damaged-*"))
        assert "listed by the damaged library" in kb.notices[0]
        assert kb.resume_import().ok
        assert_restored(kb, docs)


def test_without_catalogue_the_kept_copies_alone_are_imported(tmp_path: Path) -> None:
    lib, folder, docs = build(tmp_path)
    overwrite_header(lib)
    (lib / "files" / "catalogue.jsonl").unlink()
    shutil.rmtree(folder)
    with KnowledgeBase(lib, pack_dir=None) as kb:
        assert "listed by the kept copies" in kb.notices[0]
        assert kb.resume_import().ok
        for doc in docs:  # the original names are lost with the catalogue; the contents are not
            assert len(hits(kb, doc.begin)) == 1 and hits(kb, doc.begin) == hits(kb, doc.end)


def test_without_copies_the_originals_are_read_and_missing_ones_named(tmp_path: Path) -> None:
    lib, _folder, docs = build(tmp_path, keep_copies=False)
    overwrite_header(lib)
    docs[2].path.unlink()
    with KnowledgeBase(lib, pack_dir=None, keep_copies=False) as kb:
        assert "1 cannot be restored (no kept copy, original gone): doc002.pdf" in kb.notices[0]
        kb.resume_import()
        assert (
            kb.notices[-1] == "The library was rebuilt: 5 of 6 documents restored; not restored: doc002.pdf."
        )
        assert hits(kb, docs[0].begin) == {docs[0].path.name}


def test_an_interrupted_rebuild_resumes(tmp_path: Path) -> None:
    lib, folder, docs = build(tmp_path)
    overwrite_header(lib)
    shutil.rmtree(folder)

    def crash_after_one(progress) -> None:  # type: ignore[no-untyped-def]
        if progress.report is not None and progress.done == 1:  # the first file is committed alone
            raise KeyboardInterrupt

    with KnowledgeBase(lib, pack_dir=None) as kb, pytest.raises(KeyboardInterrupt):
        kb.resume_import(progress=crash_after_one)
    with KnowledgeBase(lib, pack_dir=None) as kb:
        assert kb.recovering
        done, remaining = kb.interrupted_import()  # type: ignore[misc]
        assert (len(done), len(remaining)) == (1, 5)
        assert kb.resume_import().ok
        assert_restored(kb, docs)


def test_any_cli_command_finishes_the_rebuild_first(tmp_path: Path) -> None:
    lib, folder, docs = build(tmp_path)
    overwrite_header(lib)
    shutil.rmtree(folder)
    run = kbapp(lib, "search", docs[1].end, "--mode", "lexical", env={"KBAPP_MODEL_DIR": "/nonexistent"})
    assert run.returncode == 0, run.stderr
    assert "damaged" in run.stderr and "The library was rebuilt: 6 of 6 documents restored." in run.stderr
    assert docs[1].path.name in run.stdout


def test_repair_rebuilds_a_library_damaged_while_open(tmp_path: Path) -> None:
    lib, _folder, docs = build(tmp_path)
    with KnowledgeBase(lib, pack_dir=None) as kb:
        kb.engine.dispose()
        overwrite_table_pages(lib, "chunks")
        report = kb.verify()
        assert not report.ok and report.damaged and "damaged" in report.problems[0]
        repaired = kb.verify(repair=True)
        assert repaired.ok, repaired.problems
        assert repaired.repaired[0].startswith("moved the damaged library to library.sqlite3.damaged-")
        assert_restored(kb, docs)
