"""The real app process, told to stop by the system (logout, shutdown, Ctrl-C): it closes its window
the way a user would, instead of dying on the spot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX stop signals")


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_stop_signal_closes_the_window_cleanly(tmp_path: Path, name: str) -> None:
    config = tmp_path / "config"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(config))
    library = tmp_path / "library"
    app = subprocess.Popen(
        [sys.executable, "-m", "kbapp", "--data-dir", str(library), "gui"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        # The library is opened once the window has painted, inside the event loop.
        while not (library / "library.sqlite3").exists():
            assert app.poll() is None, app.communicate()[1]
            assert time.monotonic() < deadline, "the window never opened its library"
            time.sleep(0.1)
        app.send_signal(getattr(signal, name))
        _out, err = app.communicate(timeout=60)
    finally:
        if app.poll() is None:
            app.kill()
    assert app.returncode == 0, err
    assert "leaked" not in err  # multiprocessing's complaint when the app dies without closing
    settings = (config / "kbapp" / "kbapp.ini").read_text(encoding="utf-8", errors="replace")
    assert "geometry=" in settings  # written by the window's close
