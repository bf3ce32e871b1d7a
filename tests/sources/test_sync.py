"""Watched folders end to end on real files and a real library: every kind of change to the folder,
then the library must equal the folder (documents, searchable text, no orphans) and pass verify."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase
from kbapp.sources.apply import Change
from kbapp.sources.watched import SourceError
from tests.reliability.conftest import hits
from tests.reliability.corpus import GoodDoc, write_good
from tests.sources.conftest import assert_mirrors


@pytest.fixture
def kb(tmp_path: Path):  # type: ignore[no-untyped-def]
    with KnowledgeBase(tmp_path / "lib", pack_dir=None, parse_limits=None) as kb:
        yield kb


def changes(report) -> dict[str, set[str]]:  # type: ignore[no-untyped-def]
    found: dict[str, set[str]] = {}
    for c in report.changes:
        found.setdefault(str(c.change), set()).add(Path(c.path).name)
    return found


def test_folder_changes_are_followed(kb: KnowledgeBase, folder50: tuple[Path, dict[str, GoodDoc]]) -> None:
    root, docs = folder50
    kb.sources.add(root)
    first = kb.sources.sync()
    assert first.ok, first.changes
    assert first.count(Change.ADDED) == 50
    assert_mirrors(kb, root, docs)
    ids = {d.path: d.id for d in kb.documents()}

    again = kb.sources.sync()
    assert not again.changes and again.unchanged == 50

    # change one file's content, rewrite another with the same bytes, add one, delete one
    changed = next(p for p in docs if p.endswith(".txt"))
    Path(changed).write_text("Manual changed\n\nzqchangedbegin new text\n\nzqchangedend\n", encoding="utf-8")
    docs[changed] = GoodDoc(Path(changed), "zqchangedbegin", "zqchangedend")
    same = next(p for p in docs if p.endswith(".md"))
    content = Path(same).read_bytes()
    Path(same).write_bytes(content)
    os.utime(same, (1_000_000, 1_000_000))
    new = write_good(root / "machine1", 77, "html", 80, random.Random(77))
    docs[str(new.path)] = new
    deleted = next(p for p in docs if p.endswith(".pdf"))
    Path(deleted).unlink()
    del docs[deleted]
    report = kb.sources.sync()
    assert changes(report) == {
        "updated": {Path(changed).name},
        "added": {new.path.name},
        "removed": {Path(deleted).name},
    }
    assert_mirrors(kb, root, docs)
    assert not hits(kb, docs[same].begin) - {Path(same).name}
    assert not kb.sources.sync().changes  # the same-bytes rewrite was remembered, not hashed again

    # rename within a folder and move into another: same documents, same ids
    renamed = next(p for p in docs if p.endswith(".docx"))
    moved = next(p for p in docs if p.endswith(".html") and p != str(new.path))
    targets = {
        renamed: str(Path(renamed).with_name("renamed.docx")),
        moved: str(root / "machine2" / "moved.html"),
    }
    for old, target in targets.items():
        os.rename(old, target)
        docs[target] = GoodDoc(Path(target), docs[old].begin, docs[old].end)
        del docs[old]
    report = kb.sources.sync()
    assert changes(report) == {"moved": {"renamed.docx", "moved.html"}}
    assert_mirrors(kb, root, docs)
    now = {d.path: d.id for d in kb.documents()}
    assert all(now[target] == ids[old] for old, target in targets.items())

    # a whole subfolder moved elsewhere inside the watched folder
    shutil.move(root / "machine0", root / "machine2" / "machine0")
    docs = {
        p.replace(str(root / "machine0"), str(root / "machine2" / "machine0")): d for p, d in docs.items()
    }
    docs = {p: GoodDoc(Path(p), d.begin, d.end) for p, d in docs.items()}
    report = kb.sources.sync()
    assert set(changes(report)) == {"moved"}
    assert_mirrors(kb, root, docs)


def test_bad_file_follows_the_error_path(kb: KnowledgeBase, tmp_path: Path) -> None:
    root = tmp_path / "docs"
    good = write_good(root, 1, "txt", 50, random.Random(1))
    (root / "broken.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 8)
    kb.sources.add(root)
    report = kb.sources.sync()
    [failed] = [c for c in report.changes if c.change is Change.FAILED]
    assert "broken.pdf" in failed.message and not report.ok
    assert hits(kb, good.begin) == {good.path.name}
    [source] = kb.sources.list()
    assert (source.state, source.files, source.failures) == ("ok", 2, 1)
    assert not kb.sources.sync().changes  # not read again until it changes
    (root / "broken.pdf").unlink()
    assert changes(kb.sources.sync()) == {"removed": {"broken.pdf"}}


def test_offline_folder_keeps_its_documents(
    kb: KnowledgeBase, folder50: tuple[Path, dict[str, GoodDoc]]
) -> None:
    root, docs = folder50
    kb.sources.add(root)
    kb.sources.sync()
    away = root.with_name("unplugged")
    root.rename(away)
    report = kb.sources.sync()
    assert not report.changes and [folder for folder, _ in report.offline] == [str(root)]
    [source] = kb.sources.list()
    assert source.state == "offline" and source.files == 50 and "not found" in (source.message or "")
    assert len(kb.documents()) == 50
    some = next(iter(docs.values()))
    assert hits(kb, some.begin) == {some.path.name}
    away.rename(root)
    report = kb.sources.sync()
    assert not report.changes and report.unchanged == 50
    assert kb.sources.list()[0].state == "ok"


def test_unmounted_drive_is_offline_not_empty(kb: KnowledgeBase, tmpfs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    mount = tmpfs("4m")
    docs = [write_good(mount, i, "md", 40, random.Random(i)) for i in range(3)]
    kb.sources.add(mount)
    assert kb.sources.sync().count(Change.ADDED) == 3
    subprocess.run(["umount", str(mount)], check=True)  # what unplugging leaves: an empty mount point
    report = kb.sources.sync()
    assert not report.changes and report.offline and "not mounted" in report.offline[0][1]
    assert kb.sources.list()[0].state == "offline"
    assert hits(kb, docs[0].begin) == {docs[0].path.name}


def test_watched_folder_feeds_its_collection(kb: KnowledgeBase, tmp_path: Path) -> None:
    a, b = tmp_path / "pump", tmp_path / "valve"
    pump = write_good(a, 1, "txt", 50, random.Random(1))
    valve = write_good(b, 2, "txt", 50, random.Random(2))
    kb.sources.add(a, collection="Pumps")
    kb.sources.add(b)
    kb.sources.sync()
    assert [(c.name, c.documents) for c in kb.collections.list()] == [("Pumps", 1)]
    assert hits(kb, pump.begin) == {pump.path.name}
    restricted = kb.search(valve.begin, mode="lexical", document_ids=kb.collections.restrict(None, ["Pumps"]))
    assert not restricted.results
    # a changed file is a new row: it stays in the collection
    pump.path.write_text(f"changed {pump.begin}\n", encoding="utf-8")
    kb.sources.sync()
    assert kb.collections.list()[0].documents == 1
    assert kb.search(
        pump.begin, mode="lexical", document_ids=kb.collections.restrict(None, ["Pumps"])
    ).results


def test_a_name_that_is_not_utf8_is_a_problem_not_a_crash(kb: KnowledgeBase, tmp_path: Path) -> None:
    """Names in GBK (a zip made on Chinese Windows, extracted on Linux) cannot be stored as text:
    named with their stray bytes written out, and the rest of the folder comes in."""
    root = tmp_path / "docs"
    good = write_good(root, 1, "txt", 50, random.Random(1))
    gbk = Path(os.fsdecode(os.fsencode(root) + b"/" + "说明书.txt".encode("gbk")))
    gbk.write_text("pump manual\n")
    kb.sources.add(root)
    report = kb.sources.sync()
    assert [why for _, why in report.problems] == ["its name is not valid UTF-8; rename it first"]
    shown = "说明书.txt".encode("gbk").decode("utf-8", "backslashreplace")  # stray bytes as \xNN
    assert report.problems[0][0] == str(root / shown)
    assert hits(kb, good.begin) == {good.path.name}
    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/" + "手册".encode("gbk")))
    folder.mkdir()
    with pytest.raises(SourceError, match="not valid UTF-8"):
        kb.sources.add(folder)


def test_refuses_what_cannot_be_watched(kb: KnowledgeBase, tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="not a folder"):
        kb.sources.add(tmp_path / "missing")
    with pytest.raises(SourceError, match="library's own folder"):
        kb.sources.add(tmp_path)
    with pytest.raises(SourceError, match="not a watched folder"):
        kb.sources.remove(tmp_path / "elsewhere")
