"""The dice pool panel: each token's pool, the last roll's faces in order, wins and fails."""

from __future__ import annotations

from tacmap.engine.views import PoolView
from tacmap.ui.qt import (
    QColor,
    QFont,
    QLabel,
    QPainter,
    QPen,
    QPointF,
    QRectF,
    QSize,
    Qt,
    QVBoxLayout,
    QWidget,
)

WIN, FAIL = QColor("#2e9d4f"), QColor("#c8312f")


class DiceRow(QWidget):
    """One pool: name and size on top, then the faces as dice, left to right."""

    def __init__(self, pool: PoolView, selected: bool) -> None:
        super().__init__()
        self.pool = pool
        self.selected = selected
        self.die = 26 if selected else 16
        self.setToolTip(pool.note)
        self.setMinimumHeight(self.sizeHint().height())

    def sizeHint(self) -> QSize:
        return QSize(260, self.die + 26)

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        pool = self.pool
        if self.selected:
            painter.fillRect(QRectF(0, 0, 4, self.height()), QColor("#e0a800"))
        title = QFont(self.font())
        title.setBold(self.selected)
        painter.setFont(title)
        painter.setPen(QColor("#202020"))
        head = f"{pool.name}: pool {pool.size}d{pool.sides}"
        if pool.refill:
            head += f", +{pool.refill} at turn end"
        if pool.note and self.selected:
            head += f" — {pool.note}"
        head = painter.fontMetrics().elidedText(head, Qt.TextElideMode.ElideRight,
                                                self.width() - 16)
        painter.drawText(QRectF(8, 2, self.width() - 8, 18), Qt.AlignmentFlag.AlignLeft
                         | Qt.AlignmentFlag.AlignVCenter, head)
        size = self.die
        x = 8.0
        face_font = QFont(self.font())
        face_font.setBold(True)
        face_font.setPixelSize(int(size * 0.55))
        painter.setFont(face_font)
        for i, face in enumerate(pool.faces):
            win = pool.wins[i] if i < len(pool.wins) else False
            gone = pool.removed[i] if i < len(pool.removed) else False
            box = QRectF(x, 22, size, size)
            colour = WIN if win else FAIL
            painter.setPen(QPen(colour.darker(140), 1.5))
            painter.setBrush(colour.lighter(170) if gone else colour)
            painter.drawRoundedRect(box, 4, 4)
            painter.setPen(QColor("#ffffff") if not gone else colour.darker(160))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, str(face))
            if gone:
                # Struck out: the die left the pool.
                painter.setPen(QPen(QColor("#222222"), 2))
                painter.drawLine(box.topLeft() + QPointF(3, 3), box.bottomRight() - QPointF(3, 3))
            x += size + 4
            if x + size > self.width():
                break
        if not pool.faces:
            painter.setPen(QColor("#777777"))
            painter.drawText(QRectF(8, 22, self.width() - 8, size), Qt.AlignmentFlag.AlignLeft
                             | Qt.AlignmentFlag.AlignVCenter, "not rolled yet")
        painter.end()


class PoolPanel(QWidget):
    """Every pool, the selected token's first and larger."""

    def __init__(self) -> None:
        super().__init__()
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(2, 2, 2, 2)
        self.layout_.setSpacing(2)
        self.empty = QLabel("This ruleset keeps no dice pools.")
        self.layout_.addWidget(self.empty)
        self.layout_.addStretch(1)
        self.rows: list[DiceRow] = []

    def show_pools(self, pools: list[PoolView], selected: str | None) -> None:
        """Redraw for these pools."""
        for row in self.rows:
            # Hidden and detached now: deleteLater alone leaves it drawn until the loop runs.
            self.layout_.removeWidget(row)
            row.hide()
            row.setParent(None)
            row.deleteLater()
        self.rows = []
        self.empty.setVisible(not pools)
        ordered = sorted(pools, key=lambda p: p.token != selected)
        for i, pool in enumerate(ordered):
            row = DiceRow(pool, pool.token == selected)
            self.layout_.insertWidget(i, row)
            self.rows.append(row)
