"""The fresh processes ``bench_gui`` times from spawn to the window's first paint: one starts the
window as ``kbapp gui`` does, the other is the cheapest Qt window (the baseline). Each prints its
timings as JSON.

They import nothing before the paint but what they time: run as ``python -m bench.bench_gui``,
the benchmark's own imports (its report module, psutil, argparse) had added about 0.11 s to both
figures, a cost ``kbapp gui`` never pays. psutil, for the resident memory, is imported after the
paint.

Run (by ``bench_gui``, from the repository root):
    python -m bench.gui_start startup DATA_DIR BORN
    python -m bench.gui_start bare BORN
"""

from __future__ import annotations

import json
import os
import sys
import time

if (
    not os.environ.get("DISPLAY")
    and not os.environ.get("WAYLAND_DISPLAY")
    and sys.platform.startswith("linux")
):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

QUERY = "E5021 曝光时间"


def startup(data_dir: str, born: float) -> None:
    """Runs in a fresh process, as ``kbapp gui`` does: show the window, type the query as soon as
    it is on screen, print the timings as JSON. ``born`` is the wall-clock time at which the
    parent spawned this process (the OS's process creation time is only known to within a second
    on Linux: it is derived from the boot time, which /proc/stat gives in whole seconds)."""
    from PySide6.QtCore import QTimer

    import kbapp.cli.main  # noqa: F401  (what the ``kbapp`` command imports before it runs ``gui``)
    from kbapp.gui.app import create_application, launch

    app = create_application([sys.argv[0]])
    times: dict[str, float] = {}
    window = launch(data_dir)

    def painted() -> None:
        times["window"] = time.time() - born
        window.search_bar.setText(QUERY)
        window.search_bar.search_now()  # before the library is even open: it searches once attached

    def shown() -> None:
        response = window.results_area.response
        if response and response.results and "first_result" not in times:
            times["first_result"] = time.time() - born
            times["results"] = len(response.results)
            QTimer.singleShot(1000, window.close)  # a second on: the model and index are loaded

    def closing() -> None:
        import psutil

        me = psutil.Process()
        times["rss_mb"] = me.memory_info().rss / 2**20
        # The model's process (and any reader still running): the memory the window costs in all.
        times["helpers_rss_mb"] = sum(c.memory_info().rss for c in me.children(recursive=True)) / 2**20

    window.painted.connect(painted)
    window.resultsShown.connect(shown)
    app.aboutToQuit.connect(closing)
    QTimer.singleShot(30_000, window.close)
    app.exec()
    if window.kb is not None:
        window.kb.close()
    print(json.dumps(times))


def bare(born: float) -> None:
    """The baseline: the cheapest Qt window, in a fresh process, timed like ``startup``."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([sys.argv[0]])
    window = QMainWindow()
    window.resize(1000, 700)
    window.show()
    times: dict[str, float] = {}

    def painted() -> None:
        times["window"] = time.time() - born
        import psutil

        times["rss_mb"] = psutil.Process().memory_info().rss / 2**20
        app.quit()

    QTimer.singleShot(0, painted)  # the first event-loop turn, after the show's paint is queued
    app.exec()
    print(json.dumps(times))


if __name__ == "__main__":
    if sys.argv[1] == "startup":
        startup(sys.argv[2], float(sys.argv[3]))
    else:
        bare(float(sys.argv[2]))
