"""The Measure tool: press and drag anywhere on the map to read a distance; nothing changes.

The path runs cell centre to cell centre through the waypoints, routed as the
diagonal rule counts it (a staircase under ``rectilinear``), with its length and
the straight-line distance in a label by the mouse. It stays drawn after the
release until the next press or until the tool is put down.
"""

from __future__ import annotations

from collections.abc import Callable

from tacmap.engine.model.state import Cell
from tacmap.engine.space.measure import Reading, measure
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.tools import Tool
from tacmap.ui.qt import (
    QColor,
    QFont,
    QFontMetricsF,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QPainter,
    QPainterPath,
    QPen,
    QPointF,
    QRectF,
    QStyleOptionGraphicsItem,
    Qt,
    QWidget,
)

#: The ruler's line: bright over a dark edge, readable on any map image.
LINE, EDGE = QColor("#ffd43b"), QColor(0, 0, 0, 170)
#: Above tokens, walls and templates; below the floating odds and pings.
Z = 40


def cell_of(at: QPointF) -> Cell:
    """The cell under a scene point."""
    return (int(at.x() // CELL), int(at.y() // CELL))


def centre(cell: Cell) -> QPointF:
    """A cell's centre in scene units."""
    return QPointF((cell[0] + 0.5) * CELL, (cell[1] + 0.5) * CELL)


class Label(QGraphicsItem):
    """The reading in a dark box, the same size on screen at any zoom."""

    def __init__(self, parent: QGraphicsItem) -> None:
        super().__init__(parent)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.font = QFont()
        self.font.setBold(True)
        self.font.setPointSizeF(11)
        self.text = ""
        self._box = QRectF()

    def set_text(self, text: str) -> None:
        """Show ``text`` (the box grows or shrinks with it)."""
        if text == self.text:
            return
        self.prepareGeometryChange()
        self.text = text
        size = QFontMetricsF(self.font).size(0, text)
        # Right of and below the mouse, clear of the cursor.
        self._box = QRectF(14, 10, size.width() + 12, size.height() + 6)

    def boundingRect(self) -> QRectF:
        return self._box.adjusted(-1, -1, 1, 1)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        painter.setPen(QPen(LINE, 1))
        painter.setBrush(QColor(20, 20, 20, 215))
        painter.drawRoundedRect(self._box, 4, 4)
        painter.setFont(self.font)
        painter.setPen(QColor("white"))
        painter.drawText(self._box, Qt.AlignmentFlag.AlignCenter, self.text)


class RulerMark:
    """The ruler drawn on one scene: the path, its waypoints and the label."""

    def __init__(self, scene: QGraphicsScene) -> None:
        self.scene = scene
        self.edge = QGraphicsPathItem()
        pen = QPen(EDGE, 6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
                   Qt.PenJoinStyle.RoundJoin)
        pen.setCosmetic(True)
        self.edge.setPen(pen)
        self.edge.setZValue(Z)
        self.line = QGraphicsPathItem(self.edge)
        pen = QPen(LINE, 3, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
                   Qt.PenJoinStyle.RoundJoin)
        pen.setCosmetic(True)
        self.line.setPen(pen)
        # The start and the waypoints: filled dots with a dark rim.
        self.dots = QGraphicsPathItem(self.edge)
        rim = QPen(EDGE, 1.5)
        rim.setCosmetic(True)
        self.dots.setPen(rim)
        self.dots.setBrush(LINE)
        self.label = Label(self.edge)
        self.edge.setVisible(False)
        scene.addItem(self.edge)

    def show(self, reading: Reading | None, text: str = "") -> None:
        """Draw ``reading`` labelled ``text`` (None: take the ruler away)."""
        if reading is None:
            self.edge.setVisible(False)
            return
        path = QPainterPath(centre(reading.cells[0]))
        for cell in reading.cells[1:]:
            path.lineTo(centre(cell))
        dots = QPainterPath()
        for cell in reading.points[:-1]:
            dots.addEllipse(centre(cell), CELL * 0.12, CELL * 0.12)
        self.edge.setPath(path)
        self.line.setPath(path)
        self.dots.setPath(dots)
        self.label.setPos(centre(reading.points[-1]))
        self.label.set_text(text)
        self.edge.setVisible(True)


class Ruler(Tool):
    """Press and drag to measure; right-click or W during the drag drops a waypoint."""

    name = "measure"

    def __init__(self, rule: Callable[[], str], show: Callable[[Reading | None], None]) -> None:
        self.rule, self.show = rule, show
        self.points: list[Cell] = []
        self.end: Cell | None = None
        self.dragging = False

    def press(self, at: QPointF, button: Qt.MouseButton) -> None:
        self.end = cell_of(at)
        self.points = [self.end]
        self.dragging = True
        self._draw()

    def move(self, at: QPointF) -> None:
        if not self.dragging:
            return
        cell = cell_of(at)
        if cell != self.end:  # a move inside the same cell changes nothing drawn
            self.end = cell
            self._draw()

    def release(self, at: QPointF) -> None:
        self.move(at)
        self.dragging = False

    def waypoint(self) -> bool:
        if not self.dragging or self.end is None:
            return False
        if self.end != self.points[-1]:
            self.points.append(self.end)
        return True

    def finish(self) -> None:
        """Enter or double-click: the ruler stays as it is."""

    def cancel(self) -> None:
        self.points, self.end, self.dragging = [], None, False
        self.show(None)

    def leave(self) -> None:
        self.cancel()

    def _draw(self) -> None:
        assert self.end is not None
        self.show(measure(self.rule(), [*self.points, self.end]))
