"""A token on the map: a disc (or portrait) sized to its footprint, name, HP bar, badges."""

from __future__ import annotations

from tacmap.ui.map.look import TokenLook
from tacmap.ui.qt import (
    QBrush,
    QColor,
    QFont,
    QGraphicsItem,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QRectF,
    QStyleOptionGraphicsItem,
    Qt,
    QWidget,
)

CELL = 48.0
"""Scene units per metre (one grid cell)."""

_NAME_FONT = QFont("DejaVu Sans", 9)
_NAME_FONT.setBold(True)
_BADGE_FONT = QFont("DejaVu Sans", 7)
_BADGE_FONT.setBold(True)


class TokenItem(QGraphicsItem):
    """One token; repainted only when its look changes."""

    def __init__(self, look: TokenLook, pixmap: QPixmap | None = None) -> None:
        super().__init__()
        self.look = look
        self.pixmap = pixmap
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setAcceptHoverEvents(True)
        # Draw once into a pixmap per zoom level: panning and dragging other
        # things over it then cost a blit, not a repaint.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(10)
        self._hovered = False
        self._apply()

    @property
    def token_id(self) -> str:
        """Id of the token drawn."""
        return self.look.id

    def set_look(self, look: TokenLook) -> None:
        """Show a changed token (moved, hurt, its turn …)."""
        if look == self.look:
            return
        if look.size != self.look.size:
            self.prepareGeometryChange()
        self.look = look
        self._apply()
        self.update()

    def _apply(self) -> None:
        edge = self.look.size * CELL
        # Room for the name tag, which may be wider than the token and hangs below it.
        self._bounds = QRectF(-edge - 3, -3, 3 * edge + 6, edge + 20)
        self.setPos(self.look.x * CELL, self.look.y * CELL)
        self.setToolTip(self.look.tooltip)
        self.setZValue(12 if self.look.active else 9 if self.look.down else 10)

    def hoverEnterEvent(self, event: object) -> None:
        self._hovered = True
        self.setZValue(15)
        self.update()

    def hoverLeaveEvent(self, event: object) -> None:
        self._hovered = False
        self._apply()
        self.update()

    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: object) -> object:
        if change == QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
            if value:
                self.setZValue(14)  # its full name tag goes over its neighbours
            else:
                self._apply()
        return super().itemChange(change, value)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        look = self.look
        edge = look.size * CELL
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        colour = QColor(look.colour)
        if look.down:
            colour = QColor("#8d8d8d")
        disc = QRectF(3, 3, edge - 6, edge - 6)
        if lod * CELL < 14:
            # Too small for detail: a plain disc reads best.
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawEllipse(disc)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if look.active:
            painter.setPen(QPen(QColor("#ffcc00"), 4))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(QRectF(0, 0, edge, edge))
        if self.isSelected():
            painter.setPen(QPen(QColor("#ffffff"), 2, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(-1, -1, edge + 2, edge + 2))
        painter.setPen(QPen(colour.darker(160), 2))
        painter.setBrush(colour)
        painter.drawEllipse(disc)
        if self.pixmap is not None and not self.pixmap.isNull():
            painter.save()
            clip = QRectF(disc.adjusted(2, 2, -2, -2))
            path = QPainterPath()
            path.addEllipse(clip)
            painter.setClipPath(path)
            painter.drawPixmap(clip.toRect(), self.pixmap)
            painter.restore()
        elif lod * CELL >= 20:
            self._initials(painter, disc)
        if lod * CELL >= 20:
            self._hp_bar(painter, edge)
            self._badges(painter, edge)
            self._label(painter, edge)
        if look.down:
            painter.setPen(QPen(QColor("#3a3a3a"), 3))
            inset = disc.adjusted(8, 8, -8, -8)
            painter.drawLine(inset.topLeft(), inset.bottomRight())
            painter.drawLine(inset.topRight(), inset.bottomLeft())

    def _initials(self, painter: QPainter, disc: QRectF) -> None:
        words = [w for w in self.look.name.replace("-", " ").split() if w[:1].isalnum()]
        letters = "".join(w[0] for w in words[:2]).upper() or "?"
        font = QFont(_NAME_FONT)
        font.setPixelSize(max(8, int(disc.height() * 0.38)))
        painter.setFont(font)
        painter.setPen(QColor(255, 255, 255, 235))
        painter.drawText(disc.adjusted(0, -disc.height() * 0.08, 0, 0),
                         Qt.AlignmentFlag.AlignCenter, letters)

    def _label(self, painter: QPainter, edge: float) -> None:
        painter.setFont(_NAME_FONT)
        metrics = painter.fontMetrics()
        # Full names only where they cannot cover a neighbour's: on the token being
        # looked at (hovered, selected or acting); elsewhere no wider than the token.
        full = self._hovered or self.isSelected() or self.look.active
        room = 3 * edge - 8 if full else edge - 6
        text = metrics.elidedText(self.look.name, Qt.TextElideMode.ElideRight, int(room))
        width = metrics.horizontalAdvance(text) + 10
        tag = QRectF(edge / 2 - width / 2, edge - 3, width, 17)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(25, 25, 25, 200))
        painter.drawRoundedRect(tag, 6, 6)
        painter.setPen(QColor("#ffffff"))
        painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, text)

    def _hp_bar(self, painter: QPainter, edge: float) -> None:
        look = self.look
        if look.max_hp <= 0:
            return
        frac = max(0.0, min(1.0, look.hp / look.max_hp))
        bar = QRectF(edge * 0.2, edge - 13, edge * 0.6, 5)
        painter.setPen(QPen(QColor("#1b1b1b"), 1))
        painter.setBrush(QColor("#3b3b3b"))
        painter.drawRect(bar)
        fill = QColor("#3cc15a") if frac > 0.5 else QColor("#e0b020") if frac > 0.25 \
            else QColor("#e04040")
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRect(QRectF(bar.x(), bar.y(), bar.width() * frac, bar.height()))

    def _badges(self, painter: QPainter, edge: float) -> None:
        shown = [c for c in self.look.conditions if c != "dead"][:3]
        painter.setFont(_BADGE_FONT)
        for i, condition in enumerate(shown):
            r = QRectF(edge - 16 - i * 14, 0, 14, 14)
            painter.setPen(QPen(QColor("#222222"), 1))
            painter.setBrush(QBrush(QColor("#f5f0dc")))
            painter.drawEllipse(r)
            painter.setPen(QColor("#222222"))
            painter.drawText(r, Qt.AlignmentFlag.AlignCenter, condition[:1].upper())

