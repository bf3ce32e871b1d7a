"""The status bar: library size, semantic search state and what is waiting to be indexed."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from kbapp.contract import ModelState


class StatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pending_label = QLabel()
        self.model_label = QLabel()
        self.library_label = QLabel()
        for label in (self.pending_label, self.model_label, self.library_label):
            label.setContentsMargins(10, 0, 10, 0)
            self.addPermanentWidget(label)
        self.pending_label.hide()
        self.set_model_state(ModelState.LOADING, "")

    def set_library(self, documents: int, passages: int) -> None:
        documents_text = self.tr("%n documents", "", documents)
        passages_text = self.tr("%n passages", "", passages)
        self.library_label.setText(f"{documents_text} · {passages_text}")

    def set_model_state(self, state: str, problem: str) -> None:
        if state == ModelState.LOADING:
            self.model_label.setText(self.tr("Loading the semantic model… keyword search works meanwhile"))
            self.model_label.setToolTip("")
        elif state == ModelState.READY:
            self.model_label.setText(self.tr("Semantic search ready"))
            self.model_label.setToolTip("")
        else:
            self.model_label.setText(self.tr("Keyword search only"))
            self.model_label.setToolTip(self.tr("No semantic model: %1").replace("%1", problem))

    def set_pending(self, pending: int, state: str) -> None:
        """Passages not yet semantically indexed (they are keyword-searchable already)."""
        show = pending > 0 and state != ModelState.UNAVAILABLE
        self.pending_label.setVisible(show)
        if show:
            self.pending_label.setText(self.tr("%n passages waiting for semantic indexing…", "", pending))
