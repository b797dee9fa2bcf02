"""The map's other layers: walls, the zoomed-out token marks, reach zones, the drag path."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import shapely
from shapely.geometry.base import BaseGeometry

from tacmap.engine.model.state import Cell, Wall
from tacmap.ui.map.look import TokenLook
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QGraphicsItem,
    QGraphicsPathItem,
    QPainter,
    QPainterPath,
    QPen,
    QPointF,
    QPolygonF,
    QRectF,
    QStyleOptionGraphicsItem,
    Qt,
    QWidget,
)


def centre(cell: Cell, size: int = 1) -> QPointF:
    """Scene point at the centre of a footprint whose top-left cell is ``cell``."""
    return QPointF((cell[0] + size / 2) * CELL, (cell[1] + size / 2) * CELL)


DOOR = QColor("#8a5a2b")
WINDOW = QColor("#7cc4f0")


class WallsItem(QGraphicsPathItem):
    """All walls in one path item: thick dark lines; obstacles filled.

    A closed door is a thick brown bar; an open one only its two brown ends (a
    gap). A window is a thin light-blue double line.
    """

    def __init__(self, walls: Sequence[Wall]) -> None:
        super().__init__()
        self.setZValue(5)
        # Walls change seldom and an imported map strokes thousands of segments: kept as
        # pixels of the view (redrawn on a zoom or a change), a drag repaints a copy.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.obstacles = QPainterPath()
        self.doors = QPainterPath()
        self.open_doors = QPainterPath()
        self.windows = QPainterPath()
        self._strokes: dict[str, list[QPolygonF]] = {}
        self.set_walls(walls)

    def set_walls(self, walls: Sequence[Wall]) -> None:
        """Redraw for these walls."""
        # The doors' paths are this item's own: setPath below sees only the walls, and a
        # door opened or closed left its old picture in the item's cache.
        self.prepareGeometryChange()
        lines, blocks = QPainterPath(), QPainterPath()
        self.doors, self.open_doors, self.windows = QPainterPath(), QPainterPath(), QPainterPath()
        for wall in walls:
            points = [QPointF(x * CELL, y * CELL) for x, y in wall.points]
            if wall.kind == "door" and wall.open:
                # Only the jambs: a short stub at each end, the gap between them open.
                for a, b in ((points[0], points[1]), (points[-1], points[-2])):
                    d = b - a
                    length = max((d.x() ** 2 + d.y() ** 2) ** 0.5, 1e-9)
                    self.open_doors.moveTo(a)
                    self.open_doors.lineTo(a + d * min(0.2, 6 / length))
                continue
            target = blocks if wall.closed else self.doors if wall.kind == "door" else \
                self.windows if wall.kind == "window" else lines
            target.moveTo(points[0])
            for p in points[1:]:
                target.lineTo(p)
            if wall.closed:
                target.closeSubpath()
        self.obstacles = blocks
        both = QPainterPath(lines)
        both.addPath(blocks)
        self.setPath(both)
        # Stroked one wall at a time: Qt strokes one path of a thousand walls through one
        # point in seconds (their outlines are merged), the same walls one by one at once.
        self._strokes = {name: path.toSubpathPolygons() for name, path in (
            ("walls", both), ("doors", self.doors), ("open", self.open_doors),
            ("windows", self.windows))}
        pen = QPen(QColor("#2b2118"), 5)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.setPen(pen)
        self.update()

    def boundingRect(self) -> QRectF:
        box = super().boundingRect()
        for path in (self.doors, self.open_doors, self.windows):
            if not path.isEmpty():  # an empty path's rect would pull in the map's corner
                box = box.united(path.boundingRect().adjusted(-6, -6, 6, 6))
        return box

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(QColor(60, 48, 36, 170), Qt.BrushStyle.SolidPattern))
        painter.drawPath(self.obstacles)
        painter.setPen(self.pen())
        painter.setBrush(Qt.BrushStyle.NoBrush)
        self._stroke(painter, "walls")
        painter.setPen(QPen(DOOR, 9, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        self._stroke(painter, "doors")
        self._stroke(painter, "open")
        # A window: two thin blue lines with the floor showing between them.
        painter.setPen(QPen(WINDOW, 7, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        self._stroke(painter, "windows")
        painter.setPen(QPen(QColor("#f4f8fb"), 3, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        self._stroke(painter, "windows")

    def _stroke(self, painter: QPainter, name: str) -> None:
        for line in self._strokes[name]:
            painter.drawPolyline(line)


#: Fog on the player view: never seen (near-black) and seen before (dimmed).
PLAYER_FOG = (QColor(10, 10, 14, 252), QColor(0, 0, 0, 140))
#: The same areas on the GM's map, as a light tint.
GM_FOG = (QColor(0, 0, 0, 77), QColor(0, 0, 0, 38))


def painter_path(geom: BaseGeometry) -> QPainterPath:
    """A shapely area (polygons with holes) as a path in scene units."""
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.OddEvenFill)
    for poly in shapely.get_parts(geom):
        if poly.geom_type != "Polygon" or poly.is_empty:
            continue
        for ring in (poly.exterior, *poly.interiors):
            path.addPolygon(QPolygonF([QPointF(x * CELL, y * CELL)
                                       for x, y in ring.coords]))
            path.closeSubpath()
    return path


class FogItem(QGraphicsItem):
    """Fog of war: the never-seen area dark, the explored-but-not-seen area dimmed."""

    def __init__(self, player: bool) -> None:
        super().__init__()
        self.colours = PLAYER_FOG if player else GM_FOG
        self.dark = QPainterPath()
        self.dim = QPainterPath()
        self.box = QRectF()
        self.setZValue(8)  # over the walls, under the tokens
        # Fog changes only when a command does: a drag repaints a cached picture of it.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_fog(self, dark: BaseGeometry, dim: BaseGeometry) -> None:
        """Redraw for these areas (empty geometries: no fog)."""
        self.prepareGeometryChange()
        self.dark, self.dim = painter_path(dark), painter_path(dim)
        self.box = self.dark.boundingRect().united(self.dim.boundingRect())
        self.update()

    def boundingRect(self) -> QRectF:
        return self.box

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.colours[0])
        painter.drawPath(self.dark)
        painter.setBrush(self.colours[1])
        painter.drawPath(self.dim)


class TokenMarks(QGraphicsItem):
    """Every token as a plain square, drawn in one pass per side when zoomed far out."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__()
        self.rect = QRectF(0, 0, width * CELL, height * CELL)
        self.by_colour: dict[str, list[QRectF]] = {}
        self.setZValue(10)

    def set_looks(self, looks: Iterable[TokenLook]) -> None:
        """Redraw for these tokens."""
        groups: dict[str, list[QRectF]] = {}
        for look in looks:
            colour = "#8d8d8d" if look.down else look.colour
            if look.hidden:
                colour = "#73" + colour[1:]  # GM-only: faint here too (#aarrggbb)
            edge = look.size * CELL
            groups.setdefault(colour, []).append(QRectF(look.x * CELL + 4, look.y * CELL + 4,
                                                        edge - 8, edge - 8))
        self.by_colour = groups
        self.update()

    def set_size(self, width: int, height: int) -> None:
        """Follow a new map size."""
        self.prepareGeometryChange()
        self.rect = QRectF(0, 0, width * CELL, height * CELL)

    def boundingRect(self) -> QRectF:
        return self.rect

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        for colour, rects in self.by_colour.items():
            painter.setBrush(QColor(colour))
            painter.drawRects(rects)


class ReachItem(QGraphicsItem):
    """Cells within reach: a tint for the zone, a red hatch for threatened cells."""

    def __init__(self) -> None:
        super().__init__()
        self.zone: list[QRectF] = []
        self.threat: list[QRectF] = []
        self.box = QRectF()
        self.setZValue(3)

    def show_cells(self, zone: Iterable[Cell], threat: Iterable[Cell] = ()) -> None:
        """Tint ``zone`` and hatch ``threat``."""
        self.prepareGeometryChange()
        self.zone = [QRectF(x * CELL, y * CELL, CELL, CELL) for x, y in zone]
        self.threat = [QRectF(x * CELL, y * CELL, CELL, CELL) for x, y in threat]
        box = QRectF()
        for r in self.zone + self.threat:
            box = box.united(r)
        self.box = box
        self.update()

    def boundingRect(self) -> QRectF:
        return self.box

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(255, 210, 60, 60))
        painter.drawRects(self.zone)
        painter.setBrush(QBrush(QColor(220, 40, 40, 110), Qt.BrushStyle.BDiagPattern))
        painter.drawRects(self.threat)


@dataclass(frozen=True)
class DragView:
    """What the drag overlay shows; built from the referee's preview."""

    cells: tuple[Cell, ...]
    """Path cells, start first."""
    step_costs: tuple[float, ...]
    """Cumulative metres at each cell (0 at the start)."""
    bands: tuple[float, ...]
    """Cumulative metres at which the path colour changes."""
    size: int
    """Footprint of the dragged token."""
    label: str
    """Text by the ghost: ``7 m of 10 m``."""
    legal: bool
    """Whether releasing here would be accepted."""
    leaves: tuple[tuple[Cell, Cell, str], ...] = ()
    """(cell where reach is left, enemy's top-left cell, enemy name) per warning."""
    enemy_sizes: tuple[int, ...] = ()
    """Footprint of each enemy in ``leaves``."""
    waypoints: tuple[Cell, ...] = ()
    """Waypoints dropped so far."""
    uses: str = ""
    """What the move spends and what is left (``second move: no standard action after
    this``), a second line under ``label``."""
    tokens: tuple[tuple[int, int, int], ...] = ()
    """(x, y, size) of the tokens near the destination: the labels keep off them."""
    map_size: tuple[int, int] = (0, 0)
    """Map width and height in cells: the labels stay on the map (0: no limit)."""


BAND_COLOURS = ("#2fb84f", "#e3b21c", "#e07b1c")
BEYOND = "#d63a3a"
_LABEL_FONT = QFont("DejaVu Sans", 10)
_LABEL_FONT.setBold(True)
_LINE = 20.0
#: Scene height of a token's name tag, the row under the token it hangs in.
TAG_ROW = 20.0


def warning_texts(view: DragView) -> list[tuple[Cell, str]]:
    """One warning per cell where reach is left, naming every enemy left there in order."""
    out: list[tuple[Cell, list[str]]] = []
    for cell, _, name in view.leaves:
        if out and out[-1][0] == cell:
            out[-1][1].append(name)
        else:
            out.append((cell, [name]))
    texts = []
    for cell, names in out:
        if len(names) == 1:
            texts.append((cell, f"leaves {names[0]}'s reach"))
        else:
            texts.append((cell, f"leaves the reach of {', '.join(names[:-1])} and "
                                f"{names[-1]}"))
    return texts


class DragOverlay(QGraphicsItem):
    """The live path while a token is dragged: coloured by band, cost, ghost, warnings."""

    def __init__(self) -> None:
        super().__init__()
        self.view: DragView | None = None
        self.box = QRectF()
        self.label_box = QRectF()
        """Where the cost label (and what the move uses) is drawn."""
        self.warning_boxes: list[tuple[QPointF, QRectF, str]] = []
        """(marker point, label rect, text) per warning, stacked so none overlaps."""
        self.setZValue(20)

    def show_drag(self, view: DragView | None) -> None:
        """Draw ``view`` (None hides the overlay)."""
        self.prepareGeometryChange()
        self.view = view
        if view is None:
            self.box = QRectF()
            self.label_box = QRectF()
            self.warning_boxes = []
        else:
            self._lay_out(view)
            box = QRectF(self.label_box)
            for _, rect, _ in self.warning_boxes:
                box = box.united(rect)
            for (_, enemy, _), esize in zip(view.leaves, view.enemy_sizes, strict=True):
                box = box.united(QRectF(enemy[0] * CELL, enemy[1] * CELL, esize * CELL,
                                        esize * CELL))
            xs = [c[0] for c in view.cells]
            ys = [c[1] for c in view.cells]
            path = QRectF(min(xs) * CELL, min(ys) * CELL,
                          (max(xs) - min(xs) + view.size) * CELL,
                          (max(ys) - min(ys) + view.size) * CELL)
            # Room for the round caps, the warning markers and the enemy rings.
            self.box = path.united(box).adjusted(-24, -24, 24, 24)
        self.update()

    def _lay_out(self, view: DragView) -> None:
        """Place the cost label, then each warning, where they cover no token, no part
        of the path and no other label; a warning with no such spot goes down the stack."""
        end = view.cells[-1]
        edge = view.size * CELL
        ghost = QRectF(end[0] * CELL, end[1] * CELL, edge, edge)
        tokens = [QRectF(x * CELL, y * CELL, n * CELL, n * CELL) for x, y, n in view.tokens]
        path = [QRectF(x * CELL, y * CELL, edge, edge) for x, y in view.cells]
        lines = _lines(view)
        size = _tag_rect(QPointF(0, 0), lines)
        gap = 6.0
        w, h = size.width(), size.height()
        # Right of the ghost first, then above and below (left-aligned, right-aligned,
        # then a row further off), then left.
        above, below = ghost.top() - h - gap, ghost.bottom() + gap
        spots = [QPointF(ghost.right() + gap, ghost.top()),
                 QPointF(ghost.left(), above), QPointF(ghost.left(), below),
                 QPointF(ghost.right() - w, above), QPointF(ghost.right() - w, below),
                 QPointF(ghost.right() + gap, above), QPointF(ghost.right() + gap, below),
                 QPointF(ghost.left() - w - gap, ghost.top()),
                 QPointF(ghost.left() - w - gap, above), QPointF(ghost.left() - w - gap, below),
                 QPointF(ghost.left(), above - CELL), QPointF(ghost.right() - w, above - CELL),
                 QPointF(ghost.left(), below + CELL), QPointF(ghost.right() - w, below + CELL)]
        area = QRectF(0, 0, view.map_size[0] * CELL, view.map_size[1] * CELL) \
            if view.map_size[0] > 0 else None
        shown = self._shown()
        if shown is not None:
            # On screen first: a label past the window's edge is no label.
            area = shown if area is None else area.intersected(shown)
        if area is not None:
            # Each spot once more, slid inside the map on screen: by the window's edge
            # (a dock beside it) the label then moves in rather than running under it.
            spots += [_inside(p, w, h, area) for p in spots]
        # A token's name tag hangs under it, about two cells wide: covered like a token.
        tags = [QRectF(t.center().x() - CELL, t.bottom(), 2 * CELL, TAG_ROW)
                for t in tokens]
        self.label_box = _best(spots, size, [ghost], [*tokens, *tags], path, area)
        taken = [self.label_box, ghost]
        self.warning_boxes = []
        for cell, text in warning_texts(view):
            at = centre(cell, view.size)
            size = _tag_rect(QPointF(0, 0), [text])
            spots = [at + QPointF(14, 4), at + QPointF(14, -size.height() - 4),
                     at + QPointF(-size.width() - 14, 4),
                     at + QPointF(-size.width() - 14, -size.height() - 4)]
            rect = _best(spots, size, taken, tokens, path, area)
            while any(rect.intersects(r) for r in taken):
                rect.translate(0, rect.height() + 2)
            taken.append(rect)
            self.warning_boxes.append((at, rect, text))

    def _shown(self) -> QRectF | None:
        """The part of the scene the (first) view shows, or None without a view."""
        scene = self.scene()
        views = scene.views() if scene is not None else []
        if not views:
            return None
        port = views[0].viewport()
        return views[0].mapToScene(port.rect()).boundingRect()

    def boundingRect(self) -> QRectF:
        return self.box

    def covered(self) -> list[QRectF]:
        """Scene rects the drag draws on: the path's cells, the ghost and the notes."""
        view = self.view
        if view is None:
            return []
        edge = view.size * CELL
        out = [QRectF(x * CELL, y * CELL, edge, edge) for x, y in view.cells]
        out.append(QRectF(self.label_box))
        out.extend(QRectF(rect) for _, rect, _ in self.warning_boxes)
        return out

    def colour_at(self, metres: float) -> str:
        """Band colour for a cumulative cost."""
        assert self.view is not None
        for limit, colour in zip(self.view.bands, BAND_COLOURS, strict=False):
            if metres <= limit + 1e-9:
                return colour
        return BEYOND if self.view.bands else BAND_COLOURS[0]

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        view = self.view
        if view is None:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        size = view.size
        points = [centre(c, size) for c in view.cells]
        for i in range(1, len(points)):
            pen = QPen(QColor(self.colour_at(view.step_costs[i])), 6)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.drawLine(points[i - 1], points[i])
        painter.setPen(Qt.PenStyle.NoPen)
        for i, p in enumerate(points[1:], start=1):
            painter.setBrush(QColor(self.colour_at(view.step_costs[i])))
            painter.drawEllipse(p, 4, 4)
        for wp in view.waypoints:
            painter.setBrush(QColor("#ffffff"))
            painter.setPen(QPen(QColor("#222222"), 2))
            painter.drawEllipse(centre(wp, size), 7, 7)
        # The ghost where the token would land.
        end = view.cells[-1]
        ghost = QRectF(end[0] * CELL + 3, end[1] * CELL + 3, size * CELL - 6, size * CELL - 6)
        outline = QColor("#ffffff") if view.legal else QColor(BEYOND)
        painter.setPen(QPen(outline, 3, Qt.PenStyle.DashLine))
        painter.setBrush(QColor(255, 255, 255, 60))
        painter.drawEllipse(ghost)
        for (_, enemy, _), esize in zip(view.leaves, view.enemy_sizes, strict=True):
            ring = QRectF(enemy[0] * CELL - 2, enemy[1] * CELL - 2, esize * CELL + 4,
                          esize * CELL + 4)
            painter.setPen(QPen(QColor(BEYOND), 4))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(ring)
        for at, rect, text in self.warning_boxes:
            self._warning(painter, at, rect, text)
        self._tag(painter, self.label_box, _lines(view), view.legal)

    def _warning(self, painter: QPainter, at: QPointF, box: QRectF, text: str) -> None:
        tri = QPolygonF([at + QPointF(0, -14), at + QPointF(12, 8), at + QPointF(-12, 8)])
        painter.setPen(QPen(QColor("#3a0000"), 2))
        painter.setBrush(QColor("#ffd21f"))
        painter.drawPolygon(tri)
        painter.setFont(_LABEL_FONT)
        painter.setPen(QColor("#3a0000"))
        painter.drawText(QRectF(at.x() - 12, at.y() - 10, 24, 18), Qt.AlignmentFlag.AlignCenter,
                         "!")
        if not box.adjusted(-16, -16, 16, 16).contains(at):
            # Moved off its marker: a line ties the label to it.
            painter.setPen(QPen(QColor("#ffd21f"), 2))
            near = QPointF(min(max(at.x(), box.left()), box.right()),
                           min(max(at.y(), box.top()), box.bottom()))
            painter.drawLine(at, near)
        self._tag(painter, box, [text], False)

    def _tag(self, painter: QPainter, box: QRectF, lines: Sequence[str], good: bool) -> None:
        painter.setFont(_LABEL_FONT)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(20, 20, 20, 215))
        painter.drawRoundedRect(box, 5, 5)
        for i, text in enumerate(lines):
            # The cost (or the refusal) in its colour; what the move uses in plain white.
            painter.setPen(QColor("#ffffff") if good or i > 0 else QColor("#ffb3b3"))
            row = QRectF(box.left(), box.top() + 1 + i * _LINE, box.width(), _LINE)
            painter.drawText(row, Qt.AlignmentFlag.AlignCenter, text)


def _lines(view: DragView) -> list[str]:
    """The cost label's lines: the cost (or why not), then what the move uses, one clause
    a line so the label stays narrow."""
    return [view.label, *(part for part in view.uses.split("; ") if part)]


def _inside(p: QPointF, w: float, h: float, area: QRectF) -> QPointF:
    """``p`` moved so that a ``w`` × ``h`` label from it lies inside ``area`` (if it fits)."""
    x = min(max(p.x(), area.left()), max(area.left(), area.right() - w))
    y = min(max(p.y(), area.top()), max(area.top(), area.bottom() - h))
    return QPointF(x, y)


def _best(spots: Sequence[QPointF], size: QRectF, taken: Sequence[QRectF],
          tokens: Sequence[QRectF], path: Sequence[QRectF], area: QRectF | None) -> QRectF:
    """The first spot (a rect of ``size``'s width and height) that covers least: another
    label or the ghost above all; then anything outside ``area`` (the map on screen);
    then a token; then the path."""
    def cost(rect: QRectF) -> float:
        total = 0.0
        if area is not None:
            inside = rect.intersected(area)
            total += 20.0 * (rect.width() * rect.height() - inside.width() * inside.height())
        for weight, rects in ((100.0, taken), (10.0, tokens), (1.0, path)):
            for r in rects:
                common = rect.intersected(r)
                total += weight * common.width() * common.height()
        return total

    rects = [QRectF(p.x(), p.y(), size.width(), size.height()) for p in spots]
    return min(enumerate(rects), key=lambda ir: (cost(ir[1]), ir[0]))[1]


def _tag_rect(at: QPointF, lines: Sequence[str]) -> QRectF:
    """Where a note (``7 m of 10 m``, one line or more) is drawn with its top-left at ``at``."""
    metrics = QFontMetricsF(_LABEL_FONT)
    width = max(metrics.horizontalAdvance(text) for text in lines) + 12
    return QRectF(at.x(), at.y(), width, _LINE * len(lines) + 2)
