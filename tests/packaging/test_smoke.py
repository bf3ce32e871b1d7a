"""The frozen smoke test must fail on a broken bundle: a copy of dist/kbapp/ with one thing
removed (a model file, Qt's offscreen platform plugin) is rejected.

Uses the build test_deb.py makes or an existing one (packaging/linux/build.sh, or the Windows
workflow), and skips without one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "dist" / "kbapp"
EXE = BUNDLE / ("kbapp.exe" if sys.platform == "win32" else "kbapp")


@pytest.fixture(autouse=True)
def _built() -> None:
    """Asked when each test runs, not when the module is collected: in a fresh checkout the build
    appears only then, made by test_deb.py, which runs first."""
    if not EXE.is_file():
        pytest.skip(f"no frozen build at {EXE} (run packaging/linux/build.sh)")


def _broken_copy(tmp: Path, remove: str) -> Path:
    """A copy of the bundle (hard links where possible: it is ~500 MB) without ``remove``."""

    def link_or_copy(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    copy = tmp / "kbapp"
    shutil.copytree(BUNDLE, copy, symlinks=True, copy_function=link_or_copy)
    victims = list((copy / "_internal").glob(remove))
    assert victims, f"nothing matches {remove} in the bundle"
    for victim in victims:
        victim.unlink()
    return copy / EXE.name


def _smoke(exe: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "smoke_test.py"), str(exe), *options],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=900,
    )


def test_missing_model_file_fails(tmp_path: Path) -> None:
    result = _smoke(_broken_copy(tmp_path, "models/*/model.onnx"))
    assert result.returncode == 1
    assert "model.onnx" in result.stderr


def test_missing_qt_platform_plugin_fails(tmp_path: Path) -> None:
    result = _smoke(_broken_copy(tmp_path, "PySide6/**/platforms/*offscreen*"), "--gui-only")
    assert result.returncode == 1
    assert "offscreen" in result.stderr
