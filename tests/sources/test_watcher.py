"""Watched folders while the app is open: file notifications, and the periodic rescan alone (the
fallback where there are none), each drive a sync after every kind of change to a 50-file folder."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase
from kbapp.sources.watcher import FolderWatcher
from tests.reliability.conftest import hits
from tests.reliability.corpus import GoodDoc, write_good
from tests.sources.conftest import assert_mirrors, files_on_disk


def eventually(condition: Callable[[], bool], what: str) -> None:
    """Wait for a background sync to make ``condition`` true (generous bound: the machine is shared)."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


@pytest.mark.parametrize("notifications", [True, False], ids=["notifications", "rescan-only"])
def test_open_app_follows_the_folder(
    tmp_path: Path, folder50: tuple[Path, dict[str, GoodDoc]], notifications: bool
) -> None:
    root, docs = folder50
    with KnowledgeBase(tmp_path / "lib", pack_dir=None, parse_limits=None) as kb:
        kb.sources.add(root)
        kb.sources.sync()

        watcher = FolderWatcher(
            lambda: [s.path for s in kb.sources.list()],
            kb.sources.sync,
            rescan=3600 if notifications else 0.3,
            notifications=notifications,
        )
        watcher.start()
        try:
            assert watcher.notifications is notifications

            def held() -> set[str]:
                return {d.path for d in kb.documents()}

            new = write_good(root / "machine2", 90, "md", 50, random.Random(90))
            eventually(lambda: hits(kb, new.begin) == {new.path.name}, "new file searchable")
            docs[str(new.path)] = new

            changed = next(p for p in docs if p.endswith(".txt"))
            Path(changed).write_text("Manual\n\nzqwatchbegin changed\n\nzqwatchend\n", encoding="utf-8")
            docs[changed] = GoodDoc(Path(changed), "zqwatchbegin", "zqwatchend")
            eventually(lambda: hits(kb, "zqwatchbegin") == {Path(changed).name}, "change searchable")

            deleted = next(p for p in docs if p.endswith(".pdf"))
            os.unlink(deleted)
            del docs[deleted]
            eventually(lambda: deleted not in held(), "deleted file removed")

            old = next(p for p in docs if p.endswith(".docx"))
            target = str(root / "machine1" / "renamed.docx")
            before = {d.path: d.id for d in kb.documents()}[old]
            os.rename(old, target)
            docs[target] = GoodDoc(Path(target), docs[old].begin, docs[old].end)
            del docs[old]
            eventually(lambda: target in held() and old not in held(), "move followed")
            assert {d.path: d.id for d in kb.documents()}[target] == before

            eventually(lambda: held() == files_on_disk(root), "library equals the folder")
        finally:
            watcher.stop()
        assert_mirrors(kb, root, docs)
