"""The user's commands on the library (import, remove, reveal, check) with the dialogs that ask
which; the welcome page, library panel, menus and drops all ask through them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox

from kbapp.gui import desktop
from kbapp.gui.operations import run_in_background

if TYPE_CHECKING:
    from kbapp.gui.main_window import MainWindow

SAMPLE_LIBRARY = Path(__file__).resolve().parents[2] / "resources" / "sample_library"


class LibraryCommands(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        welcome, library = window.results_area.welcome, window.library
        welcome.sampleRequested.connect(self.import_sample)
        welcome.importFilesRequested.connect(self.choose_files)
        welcome.importFolderRequested.connect(self.choose_folder)
        library.removeRequested.connect(self.remove_documents)
        library.reimportRequested.connect(self.import_paths)
        library.revealRequested.connect(self.reveal)

    def import_paths(self, paths: Sequence[str]) -> None:
        """Import files and folders, unless no library is open yet or it is read-only."""
        kb = self._window.kb
        if paths and kb is not None and not kb.read_only:
            self._window.jobs.import_paths(list(paths))

    def import_sample(self) -> None:
        self.import_paths([str(SAMPLE_LIBRARY)])

    def choose_files(self) -> None:
        """Ask for files, offering every format the readers take (and anything, for the odd name)."""
        patterns = " ".join(f"*{suffix}" for suffix in sorted(self._window.kb.supported_suffixes))
        documents = self.tr("Documents (%1);;All files (*)").replace("%1", patterns)
        files, _filter = QFileDialog.getOpenFileNames(self._window, self.tr("Import files"), "", documents)
        self.import_paths(files)

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self._window, self.tr("Import a folder (with its subfolders)")
        )
        self.import_paths([folder] if folder else [])

    def remove_documents(self, doc_ids: list[int]) -> None:
        """Remove documents once the user confirms; what shows them is cleared first, since their
        passages are about to go."""
        if not doc_ids:
            return
        window = self._window
        answer = QMessageBox.question(
            window,
            self.tr("Remove documents"),
            self.tr(
                "Remove %n documents from the library? The files themselves are not deleted.",
                "",
                len(doc_ids),
            ),
        )
        if answer == QMessageBox.StandardButton.Yes:
            window.preview.clear()
            window.results_area.results_view.set_results([])
            window.jobs.remove(doc_ids)

    def reveal(self, path: str) -> None:
        """Show the file in its folder; a file moved or deleted since its import is said so."""
        if not desktop.reveal(path):
            self._window.status.showMessage(self.tr("%1 is no longer there.").replace("%1", path), 10000)

    def verify_library(self) -> None:
        """Run the library's full checks on a worker; a clean result is a status message, problems
        a dialog that lists them."""
        kb = self._window.kb
        run_in_background(
            lambda _ctx: kb.verify().problems,
            on_success=self._verified,
            on_failure=lambda err: self._window.feedback.job_error(str(err)),
        )

    def _verified(self, problems: list[str]) -> None:
        if not problems:
            self._window.status.showMessage(self.tr("The library is consistent."), 10000)
        else:
            QMessageBox.warning(self._window, self.tr("Library problems"), "\n".join(problems))
