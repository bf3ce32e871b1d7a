"""Kill test for watched folders: ``kbapp sync`` SIGKILLed at random moments, first while it imports a
folder, then while it follows moves, deletions and additions in it.

After every kill the library must open and pass ``verify``, keep every change the process reported
as committed, hold no partial document and no document twice; the next sync finishes the work, and
a moved file keeps its document id. Reuses the import kill harness's corpus and checks.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from kbapp.library import KnowledgeBase
from tests.reliability.conftest import REPO
from tests.reliability.corpus import GoodDoc
from tests.reliability.test_kill import NO_PACK, check_library, keyword_folder, reference_counts
from tests.sources.conftest import files_on_disk, orphans

COMMITTED = re.compile(r"^(ADDED|UPDATED|MOVED)\s+(\S+):")


def run_sync(lib: Path, kill_after: float | None) -> tuple[list[str], bool]:
    """Run ``kbapp sync``; SIGKILL it ``kill_after`` seconds after start unless it finished first."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kbapp", "--data-dir", str(lib), "sync"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        env={**os.environ, **NO_PACK},
        cwd=REPO,
    )
    killed = False
    try:
        proc.wait(timeout=kill_after)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        killed = True
    out, _ = proc.communicate(timeout=600)
    if not killed:
        assert proc.returncode == 0, out
    return out.splitlines(), killed


def check(lib: Path, docs: dict[str, GoodDoc], counts: dict[str, int], committed: set[str]) -> None:
    check_library(lib, docs, counts, committed, None)
    with KnowledgeBase(lib, pack_dir=None, parse_limits=None) as kb:
        names = [Path(d.path).name for d in kb.documents()]
        assert len(names) == len(set(names)), "a document is held twice"
        assert not orphans(kb)


def kill_until_done(
    lib: Path,
    docs: dict[str, GoodDoc],
    counts: dict[str, int],
    rnd: random.Random,
    window: tuple[float, float],
) -> int:
    """Kill ``kbapp sync`` up to 5 times at a random moment in ``window`` (seconds after its start),
    checking the library after each run, then let one run finish; returns how many were killed."""
    kills = 0
    while True:
        lines, killed = run_sync(lib, rnd.uniform(*window) if kills < 5 else None)
        committed = {m[2] for line in lines if (m := COMMITTED.match(line))}
        check(lib, docs, counts, committed)
        if not killed:
            return kills
        kills += 1


def kill_window(lib: Path, probe: Path) -> tuple[float, float]:
    """When to kill: within the first half of an unkilled ``kbapp sync`` of a copy of ``lib``, timed
    first, so the kills land in real work on a fast machine and on a loaded one alike."""
    shutil.copytree(lib, probe)
    started = time.monotonic()
    run_sync(probe, None)
    seconds = time.monotonic() - started
    return 0.15 * seconds, 0.5 * seconds


def test_kill_during_sync(tmp_path: Path) -> None:
    folder, docs = keyword_folder(tmp_path)
    counts, _ = reference_counts(folder, tmp_path / "reference", None)
    staging = tmp_path / "staging"
    staging.mkdir()
    # The largest files come in later, so the second sync has real work to be killed in.
    later = sorted(docs, key=lambda name: -(folder / name).stat().st_size)[:4]
    for name in later:
        shutil.move(folder / name, staging / name)
    lib = tmp_path / "lib"
    with KnowledgeBase(lib, pack_dir=None, parse_limits=None) as kb:
        kb.sources.add(folder)
    rnd = random.Random(31)
    first = kill_until_done(lib, docs, counts, rnd, kill_window(lib, tmp_path / "probe-1"))

    with KnowledgeBase(lib, pack_dir=None, parse_limits=None) as kb:
        ids = {Path(d.path).name: d.id for d in kb.documents()}
    assert set(ids) == set(docs) - set(later)
    present = sorted(set(docs) - set(later))
    moved, deleted = present[4:9], present[9:12]
    (folder / "moved").mkdir()
    for name in moved:
        os.rename(folder / name, folder / "moved" / name)
    for name in deleted:
        (folder / name).unlink()
    for name in later:
        shutil.move(staging / name, folder / name)
    second = kill_until_done(lib, docs, counts, rnd, kill_window(lib, tmp_path / "probe-2"))

    with KnowledgeBase(lib, pack_dir=None, parse_limits=None) as kb:
        held = {d.path: d.id for d in kb.documents()}
        assert set(held) == files_on_disk(folder)
        assert all(held[str(folder / "moved" / name)] == ids[name] for name in moved)
        assert kb.verify().ok
    print(f"\n{first} kills while importing, {second} while following moves, deletions and additions")
    assert first >= 2 and second >= 1
