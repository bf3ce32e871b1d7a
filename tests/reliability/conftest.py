"""Fixtures for the reliability tests: small real filesystems, and helpers to look into a library."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase

REPO = Path(__file__).resolve().parents[2]
PACK = REPO / "models" / "multilingual-e5-small-q4"
needs_pack = pytest.mark.skipif(
    not (PACK / "manifest.json").is_file(), reason=f"the real model pack is not at {PACK}"
)


def hits(kb: KnowledgeBase, token: str) -> set[str]:
    """Names of the documents a keyword search for ``token`` returns."""
    return {Path(r.path).name for r in kb.search(token, k=50, mode="lexical").results}


def kbapp(
    data: Path, *args: str, env: dict[str, str] | None = None, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """Run the CLI on library ``data`` (``prefix``: a command to run it under, e.g. setpriv)."""
    return subprocess.run(
        [*prefix, sys.executable, "-m", "kbapp", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        env={**os.environ, **(env or {})},
        cwd=REPO,
    )


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """``mount(size)`` gives a fresh tmpfs of that size (e.g. "3m"); all are unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root")
    mounts: list[Path] = []

    def mount(size: str) -> Path:
        target = tmp_path / f"mnt{len(mounts)}"
        target.mkdir()
        run = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(target)],
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {run.stderr.strip()}")
        mounts.append(target)
        return target

    yield mount
    for target in mounts:
        if subprocess.run(["umount", str(target)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(target)], capture_output=True)


def orphan_jobs(lib: Path) -> None:
    """Make the journal's jobs look like those of a process that was killed (it has exited)."""
    with sqlite3.connect(lib / "library.sqlite3") as conn:
        conn.execute("UPDATE import_jobs SET owner_pid = ?, owner_started = 0", (_exited_pid(),))
    conn.close()


def _exited_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def remount(target: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(target)], check=True, capture_output=True)
