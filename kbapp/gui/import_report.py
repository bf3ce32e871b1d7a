"""The list of files an import could not take, each with its reason.

Shown without blocking (a user can keep searching with it open) and only when something
failed; a clean import is summed up in the status bar instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from kbapp.contract import ImportReport


def _reason(path: str, message: str) -> str:
    """The core prefixes messages with the file name; the dialog has a column for it."""
    prefix = f"{Path(path).name}: "
    return message[len(prefix) :] if message.startswith(prefix) else message


class ImportReportDialog(QDialog):
    def __init__(self, report: ImportReport, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Files that could not be imported"))
        self.resize(720, 360)
        failures = [(f.path, _reason(f.path, f.message)) for f in report.failed] + list(report.problems)
        summary = QLabel(
            self.tr("%n files could not be imported. Everything else is in the library.", "", len(failures))
        )
        summary.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels([self.tr("File"), self.tr("Reason"), self.tr("Folder")])
        self.tree.setRootIsDecorated(False)
        self.tree.setWordWrap(True)
        for path, reason in failures:
            item = QTreeWidgetItem([Path(path).name, reason, str(Path(path).parent)])
            item.setToolTip(0, path)
            item.setToolTip(1, reason)
            self.tree.addTopLevelItem(item)
        self.tree.resizeColumnToContents(0)
        self.tree.setColumnWidth(1, 380)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)

    def reasons(self) -> dict[str, str]:
        """File name → reason, as listed (for tests)."""
        return {
            self.tree.topLevelItem(i).text(0): self.tree.topLevelItem(i).text(1)
            for i in range(self.tree.topLevelItemCount())
        }
