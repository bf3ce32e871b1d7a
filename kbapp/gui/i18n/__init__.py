"""Choosing and installing the UI language (English source strings, Simplified Chinese .qm).

``kbapp_zh_CN.ts`` is the translation source, edited with Qt Linguist; ``kbapp_en.ts`` only
holds English plural forms. ``python -m kbapp.gui.i18n.build`` refreshes both from the code
(pyside6-lupdate) and compiles the ``.qm`` files next to them (pyside6-lrelease).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

HERE = Path(__file__).parent
LANGUAGES = ("en", "zh_CN")


def resolve_language(setting: str | None, system: QLocale | None = None) -> str:
    """The language to use: the saved choice, else the system's (any Chinese → Simplified)."""
    if setting in LANGUAGES:
        return setting
    name = (system or QLocale.system()).name()
    return "zh_CN" if name.startswith("zh") else "en"


def install_translators(app: QCoreApplication, language: str) -> list[QTranslator]:
    """Load kbapp's and Qt's own translations (standard dialogs, buttons) for ``language``.

    The translators are returned so the caller keeps them alive as long as the app.
    """
    installed: list[QTranslator] = []
    candidates = [
        (HERE, f"kbapp_{language}"),
        (Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)), f"qtbase_{language}"),
    ]
    for folder, name in candidates:
        translator = QTranslator(app)
        if translator.load(name, str(folder)):
            app.installTranslator(translator)
            installed.append(translator)
    QLocale.setDefault(QLocale(language))
    return installed
