"""GUI test fixtures: an offscreen Qt, isolated settings, real windows over real libraries.

Screenshots of the main states are saved to ``test-artifacts/screenshots/`` (git-ignored);
the folder is printed at the end of the run.
"""

from __future__ import annotations

import json
import os
import tempfile

# Before anything imports Qt: no display, and a virtual 1600×1000 screen (the offscreen default,
# 800×800, would squeeze a restored window to a size no desktop has).
_SCREENS = os.path.join(tempfile.gettempdir(), "kbapp-gui-test-screens.json")
with open(_SCREENS, "w", encoding="utf-8") as _f:
    json.dump(
        {
            "screens": [
                {
                    "name": "test",
                    "x": 0,
                    "y": 0,
                    "width": 1600,
                    "height": 1000,
                    "logicalDpi": 96,
                    "logicalBaseDpi": 96,
                    "dpr": 1,
                }
            ]
        },
        _f,
    )
os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREENS}"
# The imports below come after the Qt environment above, hence E402.

from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from tests.conftest import CAMERA_EN, CAMERA_ZH, write_pdf  # noqa: E402

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
WAIT_MS = 60_000  # generous: CI machines are shared and slow
_saved: list[Path] = []


@pytest.fixture(scope="session", autouse=True)
def isolated_settings(tmp_path_factory: pytest.TempPathFactory) -> None:
    """QSettings (geometry, history, language) go to a temporary folder, not the user's."""
    QSettings.setPath(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path_factory.mktemp("settings"))
    )


def screenshot(widget: QWidget, name: str) -> Path:
    """Save what ``widget`` shows as ``test-artifacts/screenshots/<name>.png``."""
    QApplication.processEvents()  # let pending layouts settle before grabbing
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    assert widget.grab().save(str(path))
    _saved.append(path)
    return path


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _saved:
        terminalreporter.write_line(f"GUI screenshots ({len(_saved)}): {SCREENSHOTS}")


@pytest.fixture
def manuals(tmp_path: Path) -> Path:
    """A folder of generated manuals: English, Chinese, PDF, hostile markup, astral characters,
    and one broken file."""
    folder = tmp_path / "manuals"
    folder.mkdir()
    (folder / "camera_en.md").write_text(
        CAMERA_EN.replace("Chapter", "# Chapter").replace("\n3.", "\n## 3."), encoding="utf-8"
    )
    (folder / "camera_zh.txt").write_text(CAMERA_ZH, encoding="utf-8")
    write_pdf(
        folder / "pump.pdf",
        [
            [
                "Pump P-17 Maintenance",
                "Replace the seal kit SK-9 every 2000 hours of operation.",
                "The coupling is covered by the guard.",
            ],
            [
                "Troubleshooting",
                "If the pump vibrates, check the coupling alignment and the M3x0.5 screws.",
                "Coupling wear shows as black dust under the guard.",
            ],
        ],
    )
    (folder / "valve_notes.txt").write_text(
        "Valve V-900 notes\n\nThe old web manual embedded <script>alert(1)</script> and <b>bold</b> tags "
        "around the valve torque table. Tighten the valve bonnet to 30 N·m.\n",
        encoding="utf-8",
    )
    (folder / "wrench_🔧.txt").write_text(
        "🔧 Tools 𠀀𠀁 list\n\nUse the torque wrench TW-5 set to 12 N·m for the 𠀀 cover screws. "
        "Check the torque wrench calibration every year.\n",
        encoding="utf-8",
    )
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    return folder


def drop_paths(target: QWidget, paths: list[Path]) -> tuple[bool, bool]:
    """Drag ``paths`` onto ``target`` and drop them, as a file manager would; returns whether
    the drag was accepted and whether the drop was."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    center = QPointF(target.rect().center())
    enter = QDragEnterEvent(
        center, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(target, enter)
    drop = QDropEvent(
        center, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(target, drop)
    return enter.isAccepted(), drop.isAccepted()


def import_by_drop(qtbot, window, paths: list[Path]):  # type: ignore[no-untyped-def]
    """Drop ``paths`` on the results area (the drop reaches the window) and wait for the import."""
    with qtbot.waitSignal(window.jobs.importFinished, timeout=WAIT_MS) as finished:
        accepted = drop_paths(window.results_area.stack.currentWidget(), paths)
    assert accepted == (True, True)
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=WAIT_MS)
    return finished.args[0]


def search(qtbot, window, query: str) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.resultsShown, timeout=WAIT_MS):
        window.search_bar.setText(query)
        window.search_bar.search_now()


@pytest.fixture
def open_window(qtbot, tmp_path: Path) -> Iterator[Callable[..., object]]:  # type: ignore[no-untyped-def]
    """``open_window(**kb_options)``: a shown MainWindow over a fresh library, with its library
    listed and its model state settled. Keyword-only unless ``pack_dir`` is given, and files are
    read in this process unless ``parse_limits`` is given (a worker process takes seconds to
    start; the tests that exercise it pass ``parse_limits=ParseLimits()``). The model runs in its
    own process, as in the app."""
    from kbapp.contract import ModelState
    from kbapp.gui.main_window import MainWindow
    from kbapp.library import KnowledgeBase

    opened: list[tuple[MainWindow, KnowledgeBase]] = []

    def open_(data_dir: Path | None = None, **options: object) -> MainWindow:
        options.setdefault("pack_dir", None)
        options.setdefault("parse_limits", None)
        options.setdefault("model_process", True)  # as the app opens it
        kb = KnowledgeBase(data_dir or tmp_path / f"lib{len(opened)}", autoload_model=False, **options)  # type: ignore[arg-type]
        window = MainWindow(kb)
        opened.append((window, kb))
        window.show()
        qtbot.waitExposed(window)
        with qtbot.waitSignal(window.libraryLoaded, timeout=WAIT_MS):
            window.start()
        qtbot.waitUntil(lambda: window.jobs.model_state != ModelState.LOADING, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not window.jobs.busy, timeout=WAIT_MS)
        return window

    yield open_
    for window, kb in opened:
        window.close()
        kb.close()
