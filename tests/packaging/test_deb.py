"""The Linux installers, end to end: build (or reuse a fresh build in dist/), install the .deb,
run the frozen smoke test against /usr/bin/kbapp, remove the package and check nothing is left.

Needs root on a Debian-family system (dpkg -i); skipped elsewhere, and skipped when a kbapp
package is already installed (the test would replace and then remove it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
# What the installers are built from: a .deb older than any of these is rebuilt.
INPUTS = [
    ROOT / "kbapp",
    ROOT / "packaging",
    ROOT / "resources",
    ROOT / "pyproject.toml",
    ROOT / "models" / "multilingual-e5-small-q4" / "manifest.json",
]
BUILD_TIMEOUT = 3600


def _skip_reason() -> str | None:
    if not sys.platform.startswith("linux") or not Path("/etc/debian_version").exists():
        return "not a Debian-family Linux (needs dpkg)"
    if os.geteuid() != 0:
        return "needs root to install the .deb (dpkg -i)"
    if shutil.which("dpkg-deb") is None:
        return "dpkg-deb not found"
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "kbapp"], capture_output=True, text=True)
    if "install ok installed" in status.stdout:
        return "a kbapp package is already installed here; not replacing it"
    return None


_SKIP = _skip_reason()
pytestmark = pytest.mark.skipif(_SKIP is not None, reason=str(_SKIP))


def _newest_input() -> float:
    times = [0.0]
    for path in INPUTS:
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        times += [f.stat().st_mtime for f in files if "__pycache__" not in f.parts]
    return max(times)


def _packages() -> tuple[Path, Path] | None:
    debs, tarballs = sorted(DIST.glob("kbapp_*.deb")), sorted(DIST.glob("kbapp-*-linux-*.tar.gz"))
    if not debs or not tarballs:
        return None
    return debs[-1], tarballs[-1]


@pytest.fixture(scope="module")
def packages() -> tuple[Path, Path]:
    """The .deb and tarball in dist/, built by packaging/linux/build.sh unless already fresh."""
    found = _packages()
    if found is None or min(p.stat().st_mtime for p in found) < _newest_input():
        subprocess.run(
            ["bash", str(ROOT / "packaging" / "linux" / "build.sh")],
            cwd=ROOT,
            check=True,
            timeout=BUILD_TIMEOUT,
        )
        found = _packages()
    assert found is not None, "build.sh produced no .deb or tarball in dist/"
    return found


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def _missing_libraries(folder: Path) -> set[str]:
    """Libraries the bundle links against that neither it nor the system provides."""
    env = {**os.environ, "LD_LIBRARY_PATH": str(folder / "_internal")}  # as the bootloader sets it
    missing = set()
    for lib in folder.rglob("*.so*"):
        if lib.is_file() and not lib.is_symlink():
            out = subprocess.run(["ldd", str(lib)], capture_output=True, text=True, env=env).stdout
            missing |= {line.split()[0] for line in out.splitlines() if "not found" in line}
    return missing


def test_tarball_is_a_runnable_bundle(packages: tuple[Path, Path]) -> None:
    _deb, tarball = packages
    with tarfile.open(tarball) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    assert f"{top}/kbapp" in names
    assert f"{top}/_internal/models/multilingual-e5-small-q4/model.onnx" in names


def test_deb_installs_runs_and_removes_cleanly(packages: tuple[Path, Path]) -> None:
    deb, _tarball = packages
    depends = _run("dpkg-deb", "-f", str(deb), "Depends").stdout
    assert "libxcb-cursor0" in depends and "libegl1" in depends, depends
    try:
        if _run("dpkg", "-i", str(deb)).returncode != 0:  # missing Depends: let apt fetch them
            fixed = _run("apt-get", "install", "-f", "-y", "-q")
            assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        assert Path("/usr/bin/kbapp").resolve() == Path("/opt/kbapp/kbapp")
        desktop = Path("/usr/share/applications/kbapp.desktop")
        assert "application/pdf" in desktop.read_text(encoding="utf-8")
        assert Path("/usr/share/icons/hicolor/256x256/apps/kbapp.png").is_file()
        if shutil.which("desktop-file-validate"):
            checked = _run("desktop-file-validate", str(desktop))
            assert checked.returncode == 0, checked.stdout + checked.stderr
        assert _missing_libraries(Path("/opt/kbapp")) == set()
        smoke = subprocess.run(
            [sys.executable, str(ROOT / "packaging" / "smoke_test.py"), "/usr/bin/kbapp"],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    finally:
        removed = _run("dpkg", "-r", "kbapp")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not Path("/opt/kbapp").exists(), "dpkg -r left files under /opt/kbapp"
    assert not Path("/usr/bin/kbapp").exists() and not Path("/usr/bin/kbapp").is_symlink()
    assert not Path("/usr/share/applications/kbapp.desktop").exists()
