"""Area templates on the map: the ones left on it, and the one being placed.

Cells come from ``tacmap.engine.space.templates`` (the diagonal rule and the walls
decide them); this module only draws them: a translucent fill with a cosmetic
outline and the label, and, while placing, a ring round every token inside.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from tacmap.engine.model.state import Cell, Encounter, Placed, Template, Token
from tacmap.engine.play.players import PlayerFilter
from tacmap.engine.space.geometry import Walls
from tacmap.engine.space.templates import cells
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import (
    QBrush,
    QColor,
    QFont,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QPainterPath,
    QPen,
    QPointF,
    QRectF,
    Qt,
)

#: Fill and outline of a template left on the map, and of one being placed.
LASTING = (QColor(214, 96, 20, 70), QColor("#b34a0c"))
SKETCH = (QColor(40, 110, 220, 70), QColor("#1f5fbf"))
#: Height of a template's label on the player view while fog is on: under the fog (8).
UNDER_FOG = 7
#: The ring drawn round a token inside the template being placed.
INSIDE = QColor("#1f5fbf")


def cells_path(area: Iterable[Cell]) -> QPainterPath:
    """One outline round a set of cells (holes and separate parts kept)."""
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.WindingFill)
    for x, y in area:
        path.addRect(QRectF(x * CELL, y * CELL, CELL, CELL))
    return path.simplified()


class TemplateItem(QGraphicsPathItem):
    """One template's cells, filled and outlined under the tokens; its label over the top edge.

    The label is its own item, above the tokens and their name tags, so no token
    hides it: ``attach`` and ``detach`` add and remove both.
    """

    def __init__(self, colours: tuple[QColor, QColor] = LASTING, z: float = 4) -> None:
        super().__init__()
        fill, line = colours
        self.setBrush(QBrush(fill))
        pen = QPen(line, 2)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setZValue(z)
        self.label = QGraphicsSimpleTextItem()
        self.label.setZValue(24)
        font = QFont("DejaVu Sans", 12)
        font.setBold(True)
        self.label.setFont(font)
        self.label.setBrush(line.darker(130))
        self.label.setPen(QPen(QColor(255, 255, 255, 235), 0.8))
        #: The cells the template drawn now covers.
        self.cells: set[Cell] = set()

    def show_template(self, template: Template | None, area: set[Cell], label: str = "") -> None:
        """Draw ``template`` covering ``area`` (None hides the item)."""
        self.cells = area
        if template is None:
            self.setPath(QPainterPath())
            self.label.setText("")
            return
        path = cells_path(area)
        self.setPath(path)
        self.label.setText(label)
        box = path.boundingRect()
        size = self.label.boundingRect()
        self.label.setPos(QPointF(box.center().x() - size.width() / 2,
                                  box.top() - size.height() - 2))

    def attach(self, scene: QGraphicsScene) -> None:
        """Put the area and its label on ``scene``."""
        scene.addItem(self)
        scene.addItem(self.label)

    def detach(self) -> None:
        """Take the area and its label off their scene."""
        scene = self.scene()
        if scene is not None:
            scene.removeItem(self.label)
            scene.removeItem(self)


class InsideRings(QGraphicsPathItem):
    """Rings round the tokens inside the template being placed."""

    def __init__(self) -> None:
        super().__init__()
        pen = QPen(INSIDE, 4)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setZValue(22)

    def show_tokens(self, tokens: Sequence[Token]) -> None:
        """Ring these tokens (none: nothing)."""
        path = QPainterPath()
        for t in tokens:
            edge = t.size * CELL
            path.addEllipse(QRectF(t.x * CELL - 3, t.y * CELL - 3, edge + 6, edge + 6))
        self.setPath(path)


class LastingLayer:
    """The templates left on the map, one item each, kept in step with ``state.templates``."""

    def __init__(self, scene: QGraphicsScene, walls: Callable[[Encounter], Walls]) -> None:
        self.scene = scene
        self._walls = walls
        self.items: dict[str, TemplateItem] = {}
        self._key: tuple[object, object, str, bool] | None = None

    def sync(self, state: Encounter, under_fog: bool = False,
             players: PlayerFilter | None = None) -> None:
        """Redraw if the templates, the walls or the diagonal rule changed.

        ``under_fog``: the labels go under the fog too (the player view), so the
        name of a template nobody at the table has seen stays dark. ``players``:
        the labels go through the player filter (the player view).
        """
        key = (state.templates, state.map.walls, state.diagonal, under_fog)
        old = self._key
        # Events put new tuples in place: identity says whether anything changed.
        if old is not None and old[0] is key[0] and old[1] is key[1] and old[2:] == key[2:]:
            return
        self._key = key
        for item in self.items.values():
            item.detach()
        self.items = {}
        if not state.templates:
            return
        walls = self._walls(state)
        for placed in state.templates:
            item = TemplateItem()
            if under_fog:
                item.label.setZValue(UNDER_FOG)
            label = placed.label if players is None else players.line(placed.label) or ""
            item.show_template(placed.template, cells(placed.template, state, walls), label)
            item.attach(self.scene)
            self.items[placed.id] = item

    def at(self, state: Encounter, cell: Cell) -> Placed | None:
        """The topmost template covering ``cell`` (None: none)."""
        for placed in reversed(state.templates):
            item = self.items.get(placed.id)
            if item is not None and cell in item.cells:
                return placed
        return None
