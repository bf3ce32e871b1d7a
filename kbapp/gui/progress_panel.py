"""The strip that shows a running import, indexing or OCR: count, current file or page, ETA, Cancel."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

from kbapp.gui.jobs import IMPORT, OCR, JobProgress
from kbapp.gui.qt_compat import emit


class Eta:
    """Seconds left, from the average rate so far (None until there is a rate to speak of)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._start = self._clock()
        self._done0: int | None = None

    def seconds_left(self, done: int, total: int) -> float | None:
        if self._done0 is None:
            self._done0 = done
        elapsed = self._clock() - self._start
        finished = done - self._done0
        if finished <= 0 or elapsed < 1.0 or total <= done:
            return None
        return elapsed / finished * (total - done)


class ProgressPanel(QFrame):
    cancelRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.headline = QLabel()
        self.detail = QLabel()
        self.detail.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(10)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self._cancel)
        layout = QGridLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.headline, 0, 0)
        layout.addWidget(self.cancel_button, 0, 1, 2, 1)
        layout.addWidget(self.detail, 1, 0)
        layout.addWidget(self.bar, 2, 0, 1, 2)
        layout.setColumnStretch(0, 1)
        self._eta: Eta | None = None
        self._kind: str | None = None
        self.hide()

    def begin(self, kind: str) -> None:
        self._kind = kind
        self._eta = Eta()
        self.bar.setRange(0, 0)  # busy until the first count arrives
        if kind == IMPORT:
            self.headline.setText(self.tr("Importing…"))
        elif kind == OCR:
            self.headline.setText(self.tr("Preparing to read scanned pages…"))
        else:
            self.headline.setText(self.tr("Preparing semantic indexing…"))
        self.detail.setText("")
        self.cancel_button.setEnabled(True)
        self.show()

    def update_progress(self, progress: JobProgress) -> None:
        if progress.kind != self._kind or self._eta is None:
            self.begin(progress.kind)
        assert self._eta is not None
        if progress.total:
            self.bar.setRange(0, progress.total)
            self.bar.setValue(progress.done)
        left = self._eta.seconds_left(progress.done, progress.total)
        if progress.kind == IMPORT:
            self.headline.setText(
                self.tr("Importing file %1 of %2")
                .replace("%1", str(min(progress.done + 1, progress.total)))
                .replace("%2", str(progress.total))
            )
            detail = Path(progress.current).name if progress.current else ""
        elif progress.kind == OCR:
            self.headline.setText(
                self.tr("Reading scanned pages (OCR): %1 of %2 done")
                .replace("%1", str(progress.done))
                .replace("%2", str(progress.total))
            )
            detail = (
                self.tr("%1, page %2").replace("%1", progress.current).replace("%2", str(progress.page))
                if progress.page
                else ""
            )
        else:
            self.headline.setText(
                self.tr("Semantic indexing: %1 of %2 passages")
                .replace("%1", str(progress.done))
                .replace("%2", str(progress.total))
            )
            detail = self.tr("Keyword search already covers every imported document.")
        if left is not None:
            detail = f"{detail} — {self.format_eta(left)}" if detail else self.format_eta(left)
        self.detail.setText(detail)

    def format_eta(self, seconds: float) -> str:
        if seconds < 10:
            return self.tr("a few seconds left")
        if seconds < 90:
            return self.tr("about %1 s left").replace("%1", str(int(round(seconds, -1))))
        return self.tr("about %1 min left").replace("%1", str(round(seconds / 60)))

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.headline.setText(self.tr("Cancelling…"))
        emit(self.cancelRequested)

    def finish(self) -> None:
        self._kind = None
        self._eta = None
        self.hide()
