"""The window's remembered state (QSettings, an INI file in the user's config folder).

Per user, not per library: language, window geometry, splitter positions and search history
belong to the person, whichever data folder they open.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings

LANGUAGE = "ui/language"  # "" = follow the system locale, else "en" or "zh_CN"
GEOMETRY = "window/geometry"
STATE = "window/state"
SPLITTER = "window/splitter"
HISTORY = "search/history"
HISTORY_SIZE = 30


def app_settings() -> QSettings:
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "kbapp", "kbapp")


def string_list(settings: QSettings, key: str) -> list[str]:
    """A list value; QSettings returns a bare string for one item and None for none."""
    value = settings.value(key, [])
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]
