"""Unreadable files and folders. As root, permission bits do not stop reads, so the import runs
with the capabilities that bypass them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) dropped."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.reliability.conftest import kbapp

SETPRIV = shutil.which("setpriv")


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0 or SETPRIV is None, reason="needs root and setpriv"
)
def test_unreadable_file_and_folder_are_reported(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    (folder / "locked").mkdir(parents=True)
    (folder / "open.md").write_text("# Open\n\nreadable zqopen\n", encoding="utf-8")
    (folder / "secret.md").write_text("# Secret\n\nzqsecret\n", encoding="utf-8")
    (folder / "locked" / "inside.md").write_text("# Inside\n\nzqinside\n", encoding="utf-8")
    (folder / "secret.md").chmod(0)
    (folder / "locked").chmod(0)
    try:
        drop = ["--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]
        env = {"KBAPP_MODEL_DIR": "/nonexistent"}
        run = kbapp(
            tmp_path / "lib", "import", str(folder), "--no-embed", env=env, prefix=(str(SETPRIV), *drop)
        )
    finally:
        (folder / "secret.md").chmod(0o644)
        (folder / "locked").chmod(0o755)
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert "IMPORTED  open.md: imported, 1 passages" in lines
    assert "FAILED    secret.md: cannot read file (Permission denied)" in lines
    assert f"FAILED    {folder / 'locked'}: cannot read folder (Permission denied)" in lines
