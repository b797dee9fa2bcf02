"""Map tools that take the clicks instead of the token drag: walls, obstacles, image scale."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import pairwise

import msgspec

from tacmap.engine.model.commands import Command, EditFog, SetMapImage, SetWalls
from tacmap.engine.model.state import Encounter, Wall
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import QColor, QGraphicsPathItem, QPainterPath, QPen, QPointF, Qt

Point = tuple[float, float]
Run = Callable[[Command], bool]


def corner(p: QPointF) -> Point:
    """The grid corner nearest a scene point, in metres."""
    return (float(round(p.x() / CELL)), float(round(p.y() / CELL)))


def segment_distance(p: Point, a: Point, b: Point) -> float:
    """Metres from ``p`` to the segment ``a``–``b``."""
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def nearest_wall(walls: Sequence[Wall], p: Point, within: float = 0.5) -> int | None:
    """Index of the wall nearest ``p`` if it is within ``within`` metres."""
    best, index = within, None
    for i, wall in enumerate(walls):
        points = list(wall.points) + ([wall.points[0]] if wall.closed else [])
        for a, b in pairwise(points):
            d = segment_distance(p, a, b)
            if d <= best:
                best, index = d, i
    return index


class Tool:
    """A map tool: gets the clicks instead of the token drag."""

    name = ""
    #: The map's cursor while the tool is on: the GM sees a tool is active.
    pointer = Qt.CursorShape.CrossCursor

    def press(self, at: QPointF, button: Qt.MouseButton) -> None:
        """Left button pressed at a scene point."""

    def move(self, at: QPointF) -> None:
        """Mouse moved."""

    def release(self, at: QPointF) -> None:
        """Mouse released."""

    def finish(self) -> None:
        """Enter or double-click: complete what is being drawn."""

    def cancel(self) -> None:
        """Esc: drop what is being drawn."""

    def leave(self) -> None:
        """Right-click: keep what is drawn so far (if it is enough), then the tool is put down."""
        self.finish()

    def waypoint(self) -> bool:
        """Right-click or W while the left button is held: a waypoint (False: none taken)."""
        return False


class DrawWall(Tool):
    """Click grid corners to lay a wall (or an obstacle's outline); Enter finishes."""

    def __init__(self, state: Callable[[], Encounter], run: Run, sketch: QGraphicsPathItem,
                 closed: bool = False, kind: str = "wall") -> None:
        self.state, self.run, self.sketch, self.closed = state, run, sketch, closed
        self.kind = kind
        self.name = "obstacle" if closed else kind
        self.points: list[Point] = []
        self.cursor: Point | None = None

    def press(self, at: QPointF, button: Qt.MouseButton) -> None:
        p = corner(at)
        if not self.points or self.points[-1] != p:
            self.points.append(p)
        if self.kind in ("door", "window") and len(self.points) == 2:
            self.finish()  # a door or a window spans one opening: two clicks lay it
            return
        self._draw()

    def move(self, at: QPointF) -> None:
        self.cursor = corner(at)
        self._draw()

    def _draw(self) -> None:
        path = QPainterPath()
        points = [*self.points, *([self.cursor] if self.cursor and self.points else [])]
        if points:
            path.moveTo(points[0][0] * CELL, points[0][1] * CELL)
            for x, y in points[1:]:
                path.lineTo(x * CELL, y * CELL)
            for x, y in self.points:
                path.addEllipse(QPointF(x * CELL, y * CELL), 4, 4)
        self.sketch.setPath(path)

    def finish(self) -> None:
        need = 3 if self.closed else 2
        if len(self.points) >= need:
            walls = self.state().map.walls
            self.run(SetWalls((*walls, Wall(tuple(self.points), closed=self.closed,
                                            kind=self.kind))))
        self.cancel()

    def cancel(self) -> None:
        self.points, self.cursor = [], None
        self.sketch.setPath(QPainterPath())


class EraseWall(Tool):
    """Click a wall to take it away."""

    name = "erase"
    pointer = Qt.CursorShape.PointingHandCursor

    def __init__(self, state: Callable[[], Encounter], run: Run) -> None:
        self.state, self.run = state, run

    def press(self, at: QPointF, button: Qt.MouseButton) -> None:
        walls = self.state().map.walls
        i = nearest_wall(walls, (at.x() / CELL, at.y() / CELL))
        if i is not None:
            self.run(SetWalls(walls[:i] + walls[i + 1:]))


class MoveWall(Tool):
    """Drag a wall to a new place, snapped to whole metres."""

    name = "move"
    pointer = Qt.CursorShape.SizeAllCursor

    def __init__(self, state: Callable[[], Encounter], run: Run) -> None:
        self.state, self.run = state, run
        self.grabbed: int | None = None
        self.start: Point = (0.0, 0.0)

    def press(self, at: QPointF, button: Qt.MouseButton) -> None:
        self.start = corner(at)
        self.grabbed = nearest_wall(self.state().map.walls, (at.x() / CELL, at.y() / CELL))

    def release(self, at: QPointF) -> None:
        if self.grabbed is None:
            return
        end = corner(at)
        dx, dy = end[0] - self.start[0], end[1] - self.start[1]
        walls = self.state().map.walls
        i, self.grabbed = self.grabbed, None
        if dx or dy:
            moved = msgspec.structs.replace(
                walls[i], points=tuple((x + dx, y + dy) for x, y in walls[i].points))
            self.run(SetWalls((*walls[:i], moved, *walls[i + 1:])))


class ScaleImage(Tool):
    """Click two points on the map image, then say how far apart they really are."""

    name = "scale"

    def __init__(self, state: Callable[[], Encounter], run: Run,
                 ask_metres: Callable[[float], float | None]) -> None:
        self.state, self.run, self.ask_metres = state, run, ask_metres
        self.first: QPointF | None = None

    def press(self, at: QPointF, button: Qt.MouseButton) -> None:
        if self.first is None:
            self.first = at
            return
        first, self.first = self.first, None
        shown = math.hypot(at.x() - first.x(), at.y() - first.y()) / CELL
        m = self.state().map
        if shown <= 0 or m.image is None:
            return
        real = self.ask_metres(shown)
        if real:
            # The image's own pixels between the clicks stay the same; only metres change.
            self.run(SetMapImage(m.image, m.image_offset, m.image_scale * real / shown))

    def cancel(self) -> None:
        self.first = None


class FogArea(Tool):
    """Drag a rectangle (or click corners, then Enter) to reveal or hide an area."""

    def __init__(self, run: Run, sketch: QGraphicsPathItem, reveal: bool) -> None:
        self.run, self.sketch, self.reveal = run, sketch, reveal
        self.name = "reveal" if reveal else "hide"
        self.start: Point | None = None
        self.cursor: Point | None = None
        self.points: list[Point] = []

    def press(self, at: QPointF, button: Qt.MouseButton) -> None:
        self.start = self.cursor = corner(at)

    def move(self, at: QPointF) -> None:
        self.cursor = corner(at)
        self._draw()

    def release(self, at: QPointF) -> None:
        if self.start is None:
            return
        (x0, y0), (x1, y1) = self.start, corner(at)
        self.start = None
        if x0 != x1 and y0 != y1:
            self.points = []
            self.run(EditFog(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), self.reveal))
        elif not self.points or self.points[-1] != (x1, y1):
            self.points.append((x1, y1))  # a click: one corner of a polygon
        self._draw()

    def _draw(self) -> None:
        path = QPainterPath()
        if self.start is not None and self.cursor is not None:
            (x0, y0), (x1, y1) = self.start, self.cursor
            path.addRect(min(x0, x1) * CELL, min(y0, y1) * CELL, abs(x1 - x0) * CELL,
                         abs(y1 - y0) * CELL)
        elif self.points:
            points = [*self.points, *([self.cursor] if self.cursor else [])]
            path.moveTo(points[0][0] * CELL, points[0][1] * CELL)
            for x, y in points[1:]:
                path.lineTo(x * CELL, y * CELL)
            path.closeSubpath()
        self.sketch.setPath(path)

    def finish(self) -> None:
        if len(self.points) >= 3:
            self.run(EditFog(tuple(self.points), self.reveal))
        self.cancel()

    def cancel(self) -> None:
        self.points, self.start, self.cursor = [], None, None
        self.sketch.setPath(QPainterPath())


def sketch_item() -> QGraphicsPathItem:
    """The dashed line a wall tool draws while the GM clicks."""
    item = QGraphicsPathItem()
    pen = QPen(QColor("#7a2a00"), 3, Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    item.setPen(pen)
    item.setZValue(25)
    return item
