"""The menu bar and toolbar: each action calls a command that lives with its concern, and is
enabled only when that command can run now."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox, QStyle, QToolBar

from kbapp.contract import ModelState
from kbapp.gui.jobs import EDIT
from kbapp.gui.settings_dialog import SettingsDialog

if TYPE_CHECKING:
    from kbapp.gui.main_window import MainWindow


class WindowActions(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        commands, area = window.commands, window.results_area
        sp = QStyle.StandardPixmap
        self.import_files_action = self._action(
            self.tr("Import &files…"), commands.choose_files, QKeySequence.StandardKey.Open, sp.SP_FileIcon
        )
        self.import_folder_action = self._action(
            self.tr("Import f&older…"), commands.choose_folder, "Ctrl+Shift+O", sp.SP_DirIcon
        )
        self.sample_action = self._action(self.tr("Import the &sample library"), commands.import_sample)
        self.settings_action = self._action(self.tr("&Settings…"), self._open_settings, "Ctrl+,")
        self.quit_action = self._action(self.tr("&Quit"), window.close, QKeySequence.StandardKey.Quit)
        self.copy_action = self._action(self.tr("&Copy passage with citation"), lambda: area.copy_passage())
        self.context_action = self._action(
            self.tr("Copy results as &context"),
            area.copy_context,
            "Ctrl+Shift+C",
            sp.SP_FileDialogDetailedView,
        )
        self.context_action.setToolTip(
            self.tr("Copy the top passages with their sources, ready to paste into an assistant")
        )
        self.find_action = self._action(self.tr("&Find"), self._focus_search, QKeySequence.StandardKey.Find)
        self.embed_action = self._action(
            self.tr("Finish &semantic indexing"), lambda: window.jobs.finish_pending()
        )
        self.verify_action = self._action(self.tr("&Check the library"), commands.verify_library)
        self.cancel_action = self._action(
            self.tr("Cancel import, indexing or OCR"), lambda: window.jobs.cancel()
        )
        self.about_action = self._action(self.tr("&About kbapp"), self._about)
        # Toolbar labels without the menu's accelerator marks ("导入文件(&F)…" would show "(F)").
        self.import_files_action.setIconText(self.tr("Import files"))
        self.import_folder_action.setIconText(self.tr("Import folder"))
        self.context_action.setIconText(self.tr("Copy as context"))
        library_toggle = window.dock.toggleViewAction()
        library_toggle.setText(self.tr("&Library panel"))
        library_toggle.setShortcut(QKeySequence("Ctrl+L"))
        library_toggle.setIconText(self.tr("Library"))
        self._build_menus(library_toggle)
        self._build_toolbar(library_toggle)

    def _action(
        self,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence.StandardKey | str | None = None,
        icon: QStyle.StandardPixmap | None = None,
    ) -> QAction:
        """An action owned by the window, so its shortcut works wherever the focus is in it."""
        action = QAction(text, self._window)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if icon is not None:
            action.setIcon(self._window.style().standardIcon(icon))
        action.triggered.connect(slot)
        return action

    def _build_menus(self, library_toggle: QAction) -> None:
        bar = self._window.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        for action in (self.import_files_action, self.import_folder_action, self.sample_action):
            file_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction(self.settings_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit_menu = bar.addMenu(self.tr("&Edit"))
        for action in (self.find_action, self.copy_action, self.context_action):
            edit_menu.addAction(action)
        library_menu = bar.addMenu(self.tr("&Library"))
        for action in (library_toggle, self.embed_action, self.cancel_action, self.verify_action):
            library_menu.addAction(action)
        help_menu = bar.addMenu(self.tr("&Help"))
        help_menu.addAction(self.about_action)

    def _build_toolbar(self, library_toggle: QAction) -> None:
        toolbar = QToolBar(self.tr("Main toolbar"))
        toolbar.setObjectName("toolbar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for action in (self.import_files_action, self.import_folder_action):
            toolbar.addAction(action)
        toolbar.addSeparator()
        toolbar.addAction(self.context_action)
        toolbar.addAction(library_toggle)
        self._window.addToolBar(toolbar)

    def update_enabled(self) -> None:
        """Offer only what can be done now, wherever it is offered: changing the library needs it
        writable, copying needs results, cancelling needs an import, indexing or OCR under way."""
        window = self._window
        if window.kb is None:
            return
        writable = not window.kb.read_only
        for action in (self.import_files_action, self.import_folder_action, self.sample_action):
            action.setEnabled(writable)
        window.results_area.set_writable(writable)
        window.library.set_writable(writable)
        response = window.results_area.response
        has_results = bool(response and response.results)
        self.copy_action.setEnabled(has_results)
        self.context_action.setEnabled(has_results)
        jobs = window.jobs
        self.cancel_action.setEnabled(jobs.busy and jobs.current_kind != EDIT)
        self.embed_action.setEnabled(not jobs.busy and jobs.model_state != ModelState.UNAVAILABLE)

    def _focus_search(self) -> None:
        self._window.search_bar.setFocus()
        self._window.search_bar.selectAll()

    def _open_settings(self) -> None:
        SettingsDialog(self._window.kb.data_dir, self._window).exec()

    def _about(self) -> None:
        QMessageBox.about(
            self._window,
            self.tr("About kbapp"),
            self.tr("kbapp finds the passage you need in your manuals, offline.\nLibrary: %1").replace(
                "%1", str(self._window.kb.data_dir)
            ),
        )
