"""The folders-and-collections panel driven as a user would: watch a folder (and drop one with
"keep in sync"), see it synced and its status, create a collection, add documents, and search
within it with the picker; screenshots in English and Chinese."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication

from kbapp.gui.i18n import install_translators
from tests.gui.conftest import WAIT_MS, drop_paths, screenshot, search


def folder_rows(window) -> list[list[str]]:  # type: ignore[no-untyped-def]
    tree = window.sources.panel.folders
    return [[tree.topLevelItem(i).text(c) for c in range(5)] for i in range(tree.topLevelItemCount())]


def synced(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """Wait until the running (or next) sync has finished and the panel shows its result."""
    qtbot.waitUntil(
        lambda: not window.sources.sync.busy and window.sources.sync.last_report is not None, timeout=WAIT_MS
    )


def watch_and_search(qtbot, window, manuals: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ui = window.sources
    area = window.results_area
    pumps = tmp_path / "pumps"
    pumps.mkdir()
    shutil.move(manuals / "pump.pdf", pumps / "pump.pdf")
    with qtbot.waitSignal(ui.sync.finished, timeout=WAIT_MS):
        ui.panel.watchRequested.emit(str(pumps), "Pumps")
    qtbot.waitUntil(
        lambda: len(folder_rows(window)) == 1 and folder_rows(window)[0][3] == "1", timeout=WAIT_MS
    )
    qtbot.waitUntil(lambda: window.library.model.rowCount() == 1, timeout=WAIT_MS)

    (manuals / "broken.pdf").unlink()
    ui.panel.keep_in_sync.setChecked(True)
    with qtbot.waitSignal(ui.sync.finished, timeout=WAIT_MS):
        assert drop_paths(area.stack.currentWidget(), [manuals]) == (True, True)
    qtbot.waitUntil(lambda: len(folder_rows(window)) == 2, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.library.model.rowCount() == 5, timeout=WAIT_MS)
    assert not window.jobs.busy or window.jobs.current_kind != "import"  # watched, not imported once

    ui.panel.createRequested.emit("Cameras")
    qtbot.waitUntil(lambda: ui.panel.collections.count() == 2, timeout=WAIT_MS)
    window.library.table.selectAll()
    camera_rows = [
        r for r, d in enumerate(window.library.model.documents()) if Path(d.path).name.startswith("camera")
    ]
    window.library.table.clearSelection()
    for row in camera_rows:
        index = window.library._proxy.mapFromSource(window.library.model.index(row, 0))
        window.library.table.selectionModel().select(
            index,
            window.library.table.selectionModel().SelectionFlag.Select
            | window.library.table.selectionModel().SelectionFlag.Rows,
        )
    ui.sync.add_to_collection("Cameras", window.library.selected_ids())
    qtbot.waitUntil(lambda: "2" in ui.panel.collections.item(0).text(), timeout=WAIT_MS)  # "Cameras (2 …"

    search(qtbot, window, "coupling")
    assert {Path(r.path).name for r in area.response.results} == {"pump.pdf"}
    with qtbot.waitSignal(window.resultsShown, timeout=WAIT_MS):
        ui.picker.choose(["Cameras"])
    assert not area.response.results  # the pump manual is not in this collection
    search(qtbot, window, "E5021")
    assert {Path(r.path).name for r in area.response.results} <= {"camera_en.md", "camera_zh.txt"}
    assert area.response.results
    ui.panel.collections.item(0).setSelected(True)
    window.sources.dock.raise_()


def test_watch_folders_and_search_a_collection(qtbot, open_window, manuals: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    synced(qtbot, window)
    assert window.sources.picker.text() == "All documents" and not window.sources.picker.isEnabled()
    watch_and_search(qtbot, window, manuals, tmp_path)
    assert window.sources.picker.text() == "In: Cameras"
    screenshot(window, "07-folders-and-collections")

    # a watched folder that goes away is offline, its documents kept
    pumps = tmp_path / "pumps"
    pumps.rename(tmp_path / "unplugged")
    with qtbot.waitSignal(window.sources.sync.finished, timeout=WAIT_MS):
        window.sources.panel.sync_button.click()
    qtbot.waitUntil(
        lambda: any(row[0] == str(pumps) and row[1] == "Offline" for row in folder_rows(window)),
        timeout=WAIT_MS,
    )
    assert "Offline" in window.sources.panel.sync_line.text()
    assert window.library.model.rowCount() == 5


@pytest.fixture
def chinese(qapp) -> Iterator[None]:  # type: ignore[no-untyped-def]
    translators = install_translators(qapp, "zh_CN")
    yield
    for translator in translators:
        QApplication.removeTranslator(translator)
    QLocale.setDefault(QLocale("en_US"))


def test_chinese_panel(qtbot, chinese, open_window, manuals: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    synced(qtbot, window)
    assert window.sources.panel.sync_button.text() == "立即同步"
    assert window.sources.dock.windowTitle() == "文件夹与集合"
    watch_and_search(qtbot, window, manuals, tmp_path)
    assert window.sources.picker.text() == "范围：Cameras"
    assert folder_rows(window)[0][1] == "正常"
    screenshot(window, "08-folders-and-collections-chinese")
