"""Atomic saves: a reader (or the next start) sees the old file or the new one, never a mixture."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kbapp.index import atomic
from kbapp.index.atomic import atomic_write, atomic_write_bytes
from tests.reliability.conftest import REPO


def test_a_failed_write_keeps_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "vectors.faiss"
    target.write_bytes(b"old")

    def half_then_fail(tmp: Path) -> None:
        tmp.write_bytes(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        atomic_write(target, half_then_fail)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vectors.faiss"]


def test_the_file_and_its_folder_are_synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def record(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else str(fd))
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", record)
    atomic_write_bytes(tmp_path / "vectors.json", b"{}")
    assert len(synced) == 2
    if os.path.exists("/proc/self/fd"):
        assert synced[0].startswith(str(tmp_path / ".vectors.json.")) and synced[1] == str(tmp_path)


def test_a_killed_writer_leaves_the_old_or_the_new_file(tmp_path: Path) -> None:
    target = tmp_path / "vectors.faiss"
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(REPO)!r})
        from kbapp.index.atomic import atomic_write_bytes
        target = Path({str(target)!r})
        n = 0
        print("go", flush=True)
        while True:
            atomic_write_bytes(target, bytes([65 + n % 2]) * (4 << 20))
            n += 1
        """
    )
    rnd = random.Random(4)
    for _ in range(15):
        writer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
        assert writer.stdout is not None and writer.stdout.readline() == b"go\n"
        time.sleep(rnd.uniform(0.05, 0.6))
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        if target.exists():
            data = target.read_bytes()
            assert len(data) == 4 << 20 and data in (b"A" * len(data), b"B" * len(data))
