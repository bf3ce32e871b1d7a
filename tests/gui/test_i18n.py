"""The Chinese UI: language choice, complete translations, and a window that speaks Chinese."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QApplication

from kbapp.gui.i18n import HERE, install_translators, resolve_language
from tests.gui.conftest import screenshot


def test_language_follows_the_setting_then_the_system() -> None:
    assert resolve_language("en", QLocale("zh_CN")) == "en"
    assert resolve_language("", QLocale("zh_CN")) == "zh_CN"
    assert resolve_language(None, QLocale("zh_TW")) == "zh_CN"
    assert resolve_language("", QLocale("de_DE")) == "en"


@pytest.mark.parametrize("name", ["kbapp_zh_CN", "kbapp_en"])
def test_every_string_is_translated_and_compiled(name: str) -> None:
    ts = HERE / f"{name}.ts"
    unfinished = [
        m.findtext("source")
        for m in ET.parse(ts).getroot().iter("message")
        if m.find("translation").get("type") == "unfinished"
    ]
    assert unfinished == []
    qm = ts.with_suffix(".qm")
    assert qm.is_file() and qm.stat().st_mtime >= ts.stat().st_mtime - 1, (
        "run: python -m kbapp.gui.i18n.build"
    )


@pytest.fixture
def chinese(qapp) -> Iterator[None]:  # type: ignore[no-untyped-def]
    translators = install_translators(qapp, "zh_CN")
    yield
    for translator in translators:
        QApplication.removeTranslator(translator)
    QLocale.setDefault(QLocale("en_US"))


def test_chinese_window(qtbot, chinese, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.gui.conftest import import_by_drop, search

    window = open_window()
    assert window.results_area.welcome.title.text() == "资料库还是空的"
    assert window.results_area.welcome.sample_button.text() == "试用示例资料库"
    assert [a.text() for a in window.menuBar().actions()] == [
        "文件(&F)",
        "编辑(&E)",
        "资料库(&L)",
        "帮助(&H)",
    ]
    assert window.status.model_label.text() == "仅关键词搜索"
    import_by_drop(qtbot, window, [manuals / "camera_zh.txt", manuals / "pump.pdf"])
    qtbot.waitUntil(lambda: window.library.model.rowCount() == 2, timeout=10_000)
    assert window.status.library_label.text().startswith("2 个文档")
    search(qtbot, window, "coupling alignment")
    qtbot.waitUntil(
        lambda: window.preview.shown_doc == window.results_area.response.results[0].doc_id, timeout=10_000
    )
    assert window.preview.where.text().endswith("第 2 页")
    assert window.library.model.headerData(0, Qt.Orientation.Horizontal) == "文档"
    screenshot(window, "06-chinese-ui")
