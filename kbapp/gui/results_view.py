"""The results list: one rich-text row per passage, painted by a delegate.

Rows are HTML built by ``formatting.row_html`` (escaped document text, markup only for
highlights) and laid out with a ``QTextDocument`` at the list's width, so long CJK or
English snippets wrap instead of being cut. Colours come from the palette, so dark themes
work; the relevance bar uses the palette's highlight colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPalette,
    QResizeEvent,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QApplication,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from kbapp.contract import SearchResult
from kbapp.gui.formatting import relevance, row_html, why_tooltip
from kbapp.gui.qt_compat import emit

ResultRole = Qt.ItemDataRole.UserRole + 1
HtmlRole = Qt.ItemDataRole.UserRole + 2
RelevanceRole = Qt.ItemDataRole.UserRole + 3

_PAD = 8
_BAR_W = 44
_BAR_H = 5

AnyIndex = QModelIndex | QPersistentModelIndex


def _muted(palette: QPalette) -> str:
    return palette.color(QPalette.ColorRole.PlaceholderText).name()


class ResultsModel(QAbstractListModel):
    """The current ``SearchResult``s; row HTML is built for the application palette."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._results: list[SearchResult] = []
        self._relevance: list[float] = []

    def set_results(self, results: Sequence[SearchResult]) -> None:
        self.beginResetModel()
        self._results = list(results)
        self._relevance = relevance(self._results)
        self.endResetModel()

    def results(self) -> list[SearchResult]:
        return list(self._results)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._results)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        result = self._results[index.row()]
        if role == ResultRole:
            return result
        if role == HtmlRole:
            return row_html(result, _muted(QApplication.palette()))
        if role == RelevanceRole:
            return self._relevance[index.row()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return why_tooltip(result)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return f"[{result.citation}] {result.title}: {' '.join(result.text.split())[:300]}"
        return None


class ResultDelegate(QStyledItemDelegate):
    """Paints a row's HTML wrapped to the view's width, with a relevance bar at the top right."""

    def _document(self, index: AnyIndex, palette: QPalette, width: float) -> QTextDocument:
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setHtml(row_html(index.data(ResultRole), _muted(palette)))
        doc.setTextWidth(max(width, 80.0))
        return doc

    def _text_width(self, option: QStyleOptionViewItem) -> float:
        view = option.widget
        width = view.viewport().width() if isinstance(view, QListView) else option.rect.width()
        return float(width - 2 * _PAD - _BAR_W - _PAD)

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        doc = self._document(index, option.palette, self._text_width(option))
        return QSize(int(doc.idealWidth()) + 2 * _PAD, int(doc.size().height()) + 2 * _PAD)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        palette = QPalette(opt.palette)
        if selected:  # muted text would vanish on the selection colour
            palette.setColor(QPalette.ColorRole.PlaceholderText, opt.palette.color(text_role))
        doc = self._document(index, palette, self._text_width(opt))
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(text_role))
        painter.save()
        painter.translate(opt.rect.left() + _PAD, opt.rect.top() + _PAD)
        painter.setClipRect(QRectF(0, 0, opt.rect.width() - _PAD, opt.rect.height() - _PAD))
        doc.documentLayout().draw(painter, context)
        painter.restore()
        self._paint_bar(painter, opt, float(index.data(RelevanceRole)), selected)
        if not selected:  # a hairline between rows
            painter.save()
            line = QColor(opt.palette.color(QPalette.ColorRole.Mid))
            line.setAlpha(90)
            painter.setPen(line)
            painter.drawLine(opt.rect.bottomLeft(), opt.rect.bottomRight())
            painter.restore()

    @staticmethod
    def _paint_bar(painter: QPainter, opt: QStyleOptionViewItem, value: float, selected: bool) -> None:
        track = QRectF(opt.rect.right() - _PAD - _BAR_W, opt.rect.top() + _PAD + 5, _BAR_W, _BAR_H)
        fill = QRectF(track)
        fill.setWidth(max(2.0, _BAR_W * value))
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Highlight
        track_color = QColor(opt.palette.color(QPalette.ColorRole.Mid))
        track_color.setAlpha(110)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(track_color)
        painter.drawRoundedRect(track, 2, 2)
        painter.setBrush(opt.palette.color(role))
        painter.drawRoundedRect(fill, 2, 2)
        painter.restore()


class ResultsView(QListView):
    """↑/↓ move, Enter opens the passage (``opened``), Ctrl+C copies it with its citation."""

    opened = Signal(object)  # SearchResult
    copyRequested = Signal(object)  # SearchResult

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results_model = ResultsModel(self)
        self.setModel(self.results_model)
        self.setItemDelegate(ResultDelegate(self))
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setVerticalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.setUniformItemSizes(False)
        self.setAlternatingRowColors(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.activated.connect(lambda index: emit(self.opened, index.data(ResultRole)))

    def viewportEvent(self, event: QEvent) -> bool:
        """Rows are as tall as their text wrapped to the viewport's width, so a narrower viewport (a
        scroll bar appeared) lays them out again; ``ResizeMode.Adjust`` only reacts to the view's
        own resizes, and rows laid out before the scroll bar overlapped by a line."""
        if isinstance(event, QResizeEvent) and event.size().width() != event.oldSize().width():
            self.scheduleDelayedItemsLayout()
        return super().viewportEvent(event)

    def current_result(self) -> SearchResult | None:
        index = self.currentIndex()
        return index.data(ResultRole) if index.isValid() else None

    def set_results(self, results: Sequence[SearchResult], keep: SearchResult | None = None) -> None:
        """Show ``results``; select the same passage as ``keep`` if it is still there, else the first."""
        self.results_model.set_results(results)
        row = 0
        if keep is not None:
            row = next((i for i, r in enumerate(results) if r.chunk_ids == keep.chunk_ids), 0)
        if results:
            self.setCurrentIndex(self.results_model.index(row))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            result = self.current_result()
            if result is not None:
                emit(self.copyRequested, result)
            return
        super().keyPressEvent(event)
