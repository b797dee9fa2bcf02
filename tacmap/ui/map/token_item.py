"""A token on the map: a disc (or portrait) sized to its footprint, name, HP bar, badges."""

from __future__ import annotations

from tacmap.ui.map.look import TokenLook
from tacmap.ui.plain import tip
from tacmap.ui.qt import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
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

NAME_FONT = QFont("DejaVu Sans", 9)
NAME_FONT.setBold(True)
_BADGE_FONT = QFont("DejaVu Sans", 7)
_BADGE_FONT.setBold(True)

#: A name tag is never wider than this many cells (a longer name is cut short).
LABEL_CELLS = 4
#: Height of a name tag, in scene units.
LABEL_HEIGHT = 17.0
#: How much of a GM-only (hidden) token shows on the GM's map.
HIDDEN_OPACITY = 0.45
#: How much of a name tag shows while a drag passes over it.
FADED_LABEL = 0.15


def label_width(name: str) -> float:
    """Scene units the name tag of ``name`` takes at full length (capped at LABEL_CELLS)."""
    width = _WIDTHS.get(name)
    if width is None:
        width = _WIDTHS[name] = min(_metrics().horizontalAdvance(name) + 10, LABEL_CELLS * CELL)
    return width


_WIDTHS: dict[str, float] = {}


_METRICS: list[QFontMetricsF] = []


def _metrics() -> QFontMetricsF:
    if not _METRICS:
        _METRICS.append(QFontMetricsF(NAME_FONT))
    return _METRICS[0]


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
        #: Where the name tag goes: under the token, or over it when a neighbour's is below.
        self.label_above = False
        #: The tag may be as wide as the full name (else no wider than the token).
        self.label_full = True
        #: A drag passes over the tag: draw it faint.
        self.label_faded = False
        self._apply()

    @property
    def hovered(self) -> bool:
        """The mouse is over the token (its footprint, not its name tag)."""
        return self._hovered

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

    def set_label(self, above: bool, full: bool) -> None:
        """Place the name tag (the scene decides, so tags do not cover each other)."""
        if (above, full) != (self.label_above, self.label_full):
            self.label_above, self.label_full = above, full
            self.update()

    def set_label_faded(self, faded: bool) -> None:
        """Draw the name tag faint (a drag passes over it) or as usual."""
        if faded != self.label_faded:
            self.label_faded = faded
            self.update()

    def _apply(self) -> None:
        edge = self.look.size * CELL
        # Room for the name tag, which may be wider than the token, above or below it.
        half = max(edge, LABEL_CELLS * CELL) / 2 + 3
        self._bounds = QRectF(edge / 2 - half, -LABEL_HEIGHT - 3, 2 * half,
                              edge + 2 * LABEL_HEIGHT + 6)
        self._shape = QPainterPath()
        self._shape.addRect(QRectF(0, 0, edge, edge))
        self.setPos(self.look.x * CELL, self.look.y * CELL)
        self.setToolTip(tip(self.look.tooltip))
        self.setOpacity(HIDDEN_OPACITY if self.look.hidden else 1.0)
        self.setZValue(12 if self.look.active else 9 if self.look.down else 10)

    def shape(self) -> QPainterPath:
        """The token's own footprint: its name tag takes no clicks or hovers."""
        return self._shape

    def label_rect(self) -> QRectF:
        """Where the name tag is drawn (item coordinates), at full length if allowed."""
        edge = self.look.size * CELL
        width = label_width(self.look.name) if self.label_full or self._hovered \
            or self.isSelected() or self.look.active else edge - 2
        top = -LABEL_HEIGHT + 3 if self.label_above else edge - 3
        return QRectF(edge / 2 - width / 2, top, width, LABEL_HEIGHT)

    def outline_pen(self) -> QPen:
        """The disc's outline: dashed on a GM-only token, so the GM sees what players do not."""
        if self.look.hidden:
            pen = QPen(QColor("#111111"), 3, Qt.PenStyle.DashLine)
            pen.setDashPattern([2.5, 1.5])
            return pen
        colour = QColor("#8d8d8d") if self.look.down else QColor(self.look.colour)
        return QPen(colour.darker(160), 2)

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
        painter.setPen(self.outline_pen())
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
        font = QFont(NAME_FONT)
        font.setPixelSize(max(8, int(disc.height() * 0.38)))
        painter.setFont(font)
        painter.setPen(QColor(255, 255, 255, 235))
        painter.drawText(disc.adjusted(0, -disc.height() * 0.08, 0, 0),
                         Qt.AlignmentFlag.AlignCenter, letters)

    def _label(self, painter: QPainter, edge: float) -> None:
        painter.setFont(NAME_FONT)
        metrics = painter.fontMetrics()
        # The full name, unless the scene found no room for it beside the neighbours'
        # tags; the token being looked at (hovered, selected, acting) always has it.
        room = self.label_rect()
        text = metrics.elidedText(self.look.name, Qt.TextElideMode.ElideRight,
                                  int(room.width() - 8))
        width = min(room.width(), metrics.horizontalAdvance(text) + 10)
        tag = QRectF(edge / 2 - width / 2, room.top(), width, room.height())
        painter.save()
        if self.label_faded:
            painter.setOpacity(painter.opacity() * FADED_LABEL)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(25, 25, 25, 200))
        painter.drawRoundedRect(tag, 6, 6)
        painter.setPen(QColor("#ffffff"))
        painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

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
        # The cross over a token out of the fight already says "dead".
        shown = [c for c in self.look.conditions if c != "dead" or not self.look.down][:3]
        painter.setFont(_BADGE_FONT)
        for i, condition in enumerate(shown):
            r = QRectF(edge - 16 - i * 14, 0, 14, 14)
            painter.setPen(QPen(QColor("#222222"), 1))
            painter.setBrush(QBrush(QColor("#f5f0dc")))
            painter.drawEllipse(r)
            painter.setPen(QColor("#222222"))
            painter.drawText(r, Qt.AlignmentFlag.AlignCenter, condition[:1].upper())

