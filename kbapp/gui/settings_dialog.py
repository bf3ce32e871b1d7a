"""Preferences: the interface language (applied at the next start) and where the library is."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from kbapp.gui.settings import LANGUAGE, app_settings


class SettingsDialog(QDialog):
    def __init__(self, data_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self.language = QComboBox()
        # Each language is named in itself, so a user can find theirs whatever the UI shows.
        for code, name in (("", self.tr("Same as the system")), ("en", "English"), ("zh_CN", "简体中文")):
            self.language.addItem(name, code)
        current = str(app_settings().value(LANGUAGE, "") or "")
        self.language.setCurrentIndex(max(0, self.language.findData(current)))
        note = QLabel(self.tr("A new language takes effect the next time kbapp starts."))
        note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        note.setWordWrap(True)
        folder = QLabel(str(data_dir))
        folder.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        folder.setWordWrap(True)
        form = QFormLayout()
        form.addRow(self.tr("Language:"), self.language)
        form.addRow("", note)
        form.addRow(self.tr("Library folder:"), folder)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def accept(self) -> None:
        app_settings().setValue(LANGUAGE, self.language.currentData())
        super().accept()
