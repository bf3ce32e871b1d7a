"""Kept copies: content-addressed, written before the document commits, shared by identical
files, deleted when no document needs them, and listed in the catalogue with the original path."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from kbapp.importing.copies import PACK_MAX_BYTES
from kbapp.ingest import ParsedDocument, parse_file
from kbapp.library import KnowledgeBase


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("filler", "kept_as"),
    [(0, "files/pack.sqlite3#{digest}.md"), (PACK_MAX_BYTES, "files/{short}/{digest}.md")],
    ids=["small, in the pack", "large, a file"],
)
def test_copies_follow_the_documents(tmp_path: Path, filler: int, kept_as: str) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    manual = folder / "Manual.MD"
    padding = "\n\n" + "gasket torque values " * (filler // 20)
    manual.write_text("# Pump\n\nseal kit zqcopyone\n" + padding, encoding="utf-8")
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.import_paths([folder]).ok
        [doc] = kb.documents()
        digest = sha(manual)
        assert doc.copy_path == kept_as.format(digest=digest, short=digest[:2])
        copy = kb.copies.readable(doc.copy_path)
        assert copy is not None and copy.read_bytes() == manual.read_bytes()
        assert kb.copies.catalogue.entries()[str(manual)].copy == doc.copy_path
        kb.copies.tidy([copy])
        assert kb.copies.stored() == [doc.copy_path]

        twin = tmp_path / "twin.md"
        twin.write_bytes(manual.read_bytes())
        assert [f.outcome for f in kb.import_paths([twin]).files] == ["duplicate"]

        old = doc.copy_path
        manual.write_text("# Pump\n\nseal kit zqcopytwo\n" + padding, encoding="utf-8")
        os.utime(manual, (1, 1))
        assert [f.outcome for f in kb.import_paths([manual]).files] == ["updated"]
        [doc] = kb.documents()
        assert doc.copy_path != old and not kb.copies.has(old)  # the old version's copy
        assert doc.copy_path is not None and kb.copies.has(doc.copy_path)

        kb.remove([doc.id])
        assert kb.copies.stored() == []
        assert kb.copies.catalogue.entries() == {}
        assert kb.verify().ok


def test_without_copies_the_catalogue_still_lists_originals(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("A\n\nzqplainone\n", encoding="utf-8")
    with KnowledgeBase(tmp_path / "lib", pack_dir=None, keep_copies=False) as kb:
        assert kb.import_paths([tmp_path / "a.txt"]).ok
        assert kb.documents()[0].copy_path is None and kb.copies.stored() == []
        assert kb.copies.catalogue.entries()[str(tmp_path / "a.txt")].copy is None


def changing_parse(path: Path) -> ParsedDocument:
    """Reads the file, then the file changes (a download still being written)."""
    doc = parse_file(path)
    with path.open("a", encoding="utf-8") as f:
        f.write("\nmore\n")
    return doc


def test_a_file_that_changes_while_imported_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "growing.txt"
    target.write_text("Log\n\nfirst part zqgrow\n", encoding="utf-8")
    with KnowledgeBase(tmp_path / "lib", pack_dir=None, parse=changing_parse, parse_limits=None) as kb:
        [report] = kb.import_paths([target]).files
        assert report.message == "growing.txt: the file changed while it was being imported; import it again"
        assert kb.copies.stored() == [] and not list((kb.data_dir / "files").rglob("*.tmp"))


def test_a_torn_catalogue_line_is_skipped_and_not_glued_to(tmp_path: Path) -> None:
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        catalogue = kb.copies.catalogue
        catalogue.add("/a.pdf", "0" * 64, None)
        with catalogue.path.open("ab") as f:
            f.write(b'{"op": "add", "path": "/torn.pdf", "sha')  # a crash mid-append
        catalogue.add("/b.pdf", "1" * 64, None)
        assert sorted(catalogue.entries()) == ["/a.pdf", "/b.pdf"]
