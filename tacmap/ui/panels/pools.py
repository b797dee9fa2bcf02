"""The dice pool panel: each token's pool, the last roll's faces in order, wins and fails."""

from __future__ import annotations

from tacmap.engine.rules.views import PoolView
from tacmap.ui.qt import (
    QColor,
    QFont,
    QLabel,
    QPainter,
    QPaintEvent,
    QPen,
    QPointF,
    QRectF,
    Qt,
    QWidget,
)

WIN, FAIL = QColor("#2e9d4f"), QColor("#c8312f")
#: The ring around a die that a later advantage or disadvantage turned (win ↔ fail).
FLIP = QColor("#e0a800")


SMALL, LARGE = 16, 26
HEAD = 22


STATUS = 16


def row_height(selected: bool, status: int = 0) -> int:
    """Pixels one pool takes: its heading line, its dice and ``status`` lines of status."""
    return HEAD + (LARGE if selected else SMALL) + 8 + STATUS * status


class PoolPanel(QWidget):
    """Every pool in one painted widget, the selected token's first and larger.

    One widget drawing only the rows in view keeps a 2,000-token encounter as
    quick to refresh as a small one.
    """

    def __init__(self) -> None:
        super().__init__()
        self.pools: list[PoolView] = []
        self.selected: str | None = None
        self.empty = QLabel("No dice pools to show (yet).", self)
        self.empty.move(6, 4)
        self.setMinimumWidth(240)

    def show_pools(self, pools: list[PoolView], selected: str | None) -> None:
        """Redraw for these pools."""
        self.pools = sorted(pools, key=lambda p: p.token != selected)
        self.selected = selected if any(p.token == selected for p in pools) else None
        self.empty.setVisible(not pools)
        height = sum(row_height(p.token == self.selected, len(p.status)) for p in self.pools)
        self.setMinimumHeight(max(30, height))
        self.update()

    def rows(self) -> list[tuple[PoolView, QRectF]]:
        """Each pool with the rectangle it is drawn in."""
        out, y = [], 0
        for pool in self.pools:
            h = row_height(pool.token == self.selected, len(pool.status))
            out.append((pool, QRectF(0, y, self.width(), h)))
            y += h
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        exposed = QRectF(event.rect())
        for pool, box in self.rows():
            if box.intersects(exposed):
                self._row(painter, pool, box, pool.token == self.selected)
        painter.end()

    def _row(self, painter: QPainter, pool: PoolView, box: QRectF, selected: bool) -> None:
        top = box.top()
        if selected:
            painter.fillRect(QRectF(0, top, 4, box.height() - 4), QColor("#e0a800"))
        title = QFont(self.font())
        title.setBold(selected)
        painter.setFont(title)
        painter.setPen(QColor("#202020"))
        head = f"{pool.name}: pool {pool.size}d{pool.sides}"
        if pool.refill:
            head += f", +{pool.refill} at turn end"
        if pool.note and selected:
            head += f" — {pool.note}"
        head = painter.fontMetrics().elidedText(head, Qt.TextElideMode.ElideRight,
                                                int(box.width()) - 16)
        painter.drawText(QRectF(8, top + 2, box.width() - 8, 18),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, head)
        size = LARGE if selected else SMALL
        face_font = QFont(self.font())
        face_font.setBold(True)
        face_font.setPixelSize(int(size * 0.55))
        painter.setFont(face_font)
        x = 8.0
        for i, face in enumerate(pool.faces):
            if x + size > box.width():
                break
            win = pool.wins[i] if i < len(pool.wins) else False
            gone = pool.removed[i] if i < len(pool.removed) else False
            turned = pool.flipped[i] if i < len(pool.flipped) else False
            die = QRectF(x, top + HEAD, size, size)
            colour = WIN if win else FAIL
            painter.setPen(QPen(colour.darker(140), 1.5))
            painter.setBrush(colour.lighter(170) if gone else colour)
            painter.drawRoundedRect(die, 4, 4)
            painter.setPen(QColor("#ffffff") if not gone else colour.darker(160))
            painter.drawText(die, Qt.AlignmentFlag.AlignCenter, str(face))
            if turned:
                # Flipped by a later advantage or disadvantage: a gold ring.
                painter.setPen(QPen(FLIP, 2.5))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(die.adjusted(-2, -2, 2, 2), 5, 5)
            if gone:
                # Struck out: the die left the pool.
                painter.setPen(QPen(QColor("#222222"), 2))
                painter.drawLine(die.topLeft() + QPointF(3, 3), die.bottomRight() - QPointF(3, 3))
            x += size + 4
        painter.setFont(self.font())
        painter.setPen(QColor("#6b2a1a"))
        for n, line in enumerate(pool.status):
            y = top + HEAD + size + 4 + STATUS * n
            text = painter.fontMetrics().elidedText(line, Qt.TextElideMode.ElideRight,
                                                    int(box.width()) - 16)
            painter.drawText(QRectF(8, y, box.width() - 8, STATUS),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        if not pool.faces:
            painter.setFont(self.font())
            painter.setPen(QColor("#777777"))
            painter.drawText(QRectF(8, top + HEAD, box.width() - 8, size),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             "not rolled yet")
