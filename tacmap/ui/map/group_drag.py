"""Several tokens selected at once: Shift+click, and dragging them together as one free move.

A group drag is the GM's free move (``MoveGroup``): every token moves by the same
offset, and the whole group is refused if any one would land on a wall, an
obstacle or another token. While dragging, the group's footprints are drawn
where they would land (outlined in red, with the reason in the status bar,
when they may not).
"""

from __future__ import annotations

import math

from tacmap.engine.model.commands import MoveGroup
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import Cell
from tacmap.engine.play.gm import group_problem, taken_cells
from tacmap.engine.play.referee import Referee
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.token_item import CELL, TokenItem
from tacmap.ui.qt import (
    QColor,
    QGraphicsItem,
    QPainter,
    QPen,
    QPixmap,
    QRectF,
    QStyleOptionGraphicsItem,
    Qt,
    QWidget,
)

#: Outline of a group that may land where it is dragged, and of one that may not.
FREE = QColor("#2f6fd0")
REFUSED = QColor("#d0261d")


def selected_ids(scene: MapScene) -> list[str]:
    """The selected tokens, in the encounter's order."""
    chosen = {item.token_id for item in scene.selectedItems() if isinstance(item, TokenItem)}
    return [tid for tid in scene.state.tokens if tid in chosen]


def toggle(scene: MapScene, token_id: str) -> None:
    """Shift+click: add the token to the selection, or take it out."""
    item = scene.items_by_id.get(token_id)
    if item is not None:
        item.setSelected(not item.isSelected())


class GroupGhost(QGraphicsItem):
    """The dragged group's footprints where they would land; red when they may not."""

    def __init__(self) -> None:
        super().__init__()
        #: Each token's footprint (scene units, from where the group stands) and size.
        self.discs: list[tuple[QRectF, int]] = []
        self.box = QRectF()
        self.legal = True
        #: One drawn disc per (size, legal, zoom): a step blits them, it draws no paths.
        self._sprites: dict[tuple[int, bool, int], QPixmap] = {}
        self.setZValue(20)
        self.setVisible(False)
        # Only the discs in the exposed area are drawn: a big group costs what is in view.
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    def set_group(self, cells: list[tuple[Cell, int]]) -> None:
        """The group as it stands: each token's corner cell and size (drawn from there)."""
        self.prepareGeometryChange()
        self.discs = [(QRectF(x * CELL, y * CELL, size * CELL, size * CELL), size)
                      for (x, y), size in cells]
        box = QRectF()
        for rect, _ in self.discs:
            box = box.united(rect)
        self.box = box
        self.setPos(0, 0)

    def show_at(self, offset: Cell | None, legal: bool = True) -> None:
        """Draw the group moved by ``offset`` cells (None hides it)."""
        if offset is None:
            self.setVisible(False)
            return
        if legal != self.legal:
            self.legal = legal
            self.update()
        # Moving one item: the discs are not laid out again, whatever the group's size.
        self.setPos(offset[0] * CELL, offset[1] * CELL)
        self.setVisible(True)

    def boundingRect(self) -> QRectF:
        return self.box

    def sprite(self, size: int, scale: float) -> QPixmap:
        """One footprint drawn at ``scale`` screen pixels per scene unit."""
        key = (size, self.legal, round(scale * 1000))
        pix = self._sprites.get(key)
        if pix is None:
            edge = max(1, math.ceil(size * CELL * scale))
            pix = QPixmap(edge, edge)
            pix.fill(Qt.GlobalColor.transparent)
            colour = FREE if self.legal else REFUSED
            fill = QColor(colour)
            fill.setAlpha(70)
            painter = QPainter(pix)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            disc = QRectF(3 * scale + 2.5, 3 * scale + 2.5, edge - 6 * scale - 5,
                          edge - 6 * scale - 5)
            # A white halo under the ring: a red ring still shows over a red token.
            painter.setPen(QPen(QColor(255, 255, 255, 220), 5))
            painter.setBrush(fill)
            painter.drawEllipse(disc)
            pen = QPen(colour, 3)
            if self.legal:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(disc)
            painter.end()
            self._sprites[key] = pix
        return pix

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        scale = painter.worldTransform().m11()
        exposed = option.exposedRect
        for rect, size in self.discs:
            if rect.intersects(exposed):
                pix = self.sprite(size, scale)
                painter.drawPixmap(rect, pix, QRectF(pix.rect()))


class GroupDrag:
    """Drags the selected tokens together; releases as one ``MoveGroup`` through the referee."""

    def __init__(self, scene: MapScene, referee: Referee) -> None:
        self.scene = scene
        self.referee = referee
        self.ghost = GroupGhost()
        scene.addItem(self.ghost)
        #: The token grabbed (None: no group drag under way).
        self.token: str | None = None
        self.starts: dict[str, Cell] = {}
        self.grab = (0.0, 0.0)
        self.offset: Cell = (0, 0)
        #: Why the group may not land where it is now ("" when it may).
        self.problem = ""
        self._taken: dict[Cell, str] = {}
        self._blocked: tuple[set[Cell], set[tuple[Cell, Cell]]] = (set(), set())

    @property
    def active(self) -> bool:
        """A group drag is under way."""
        return self.token is not None

    @property
    def moved(self) -> bool:
        """The group is dragged off where it stands."""
        return self.offset != (0, 0)

    def begin(self, token_id: str, at: tuple[float, float]) -> bool:
        """Press on ``token_id`` at ``at`` (cells): start a group drag if it is one of several."""
        ids = selected_ids(self.scene)
        if token_id not in ids or len(ids) < 2:
            return False
        state = self.referee.state
        self.token = token_id
        self.starts = {tid: state.tokens[tid].cell for tid in ids}
        self.grab = at
        self.offset = (0, 0)
        self.problem = ""
        # What stays still is worked out once: each step then checks only the group.
        walls = self.referee.ruleset.space.walls(state)
        self._blocked = (walls.blocked_cells, walls.blocked_steps)
        self._taken = taken_cells(state, ids)
        self.ghost.set_group([(state.tokens[tid].cell, state.tokens[tid].size) for tid in ids])
        return True

    def moves(self) -> dict[str, Cell]:
        """Where each token of the group would land now."""
        dx, dy = self.offset
        return {tid: (x + dx, y + dy) for tid, (x, y) in self.starts.items()}

    def move_to(self, at: tuple[float, float]) -> str | None:
        """The mouse is at ``at`` (cells): the status line if the group's place changed."""
        if self.token is None:
            return None
        offset = (round(at[0] - self.grab[0]), round(at[1] - self.grab[1]))
        if offset == self.offset:
            return None
        self.offset = offset
        if offset == (0, 0):
            self.problem = ""
            self.ghost.show_at(None)
            return ""
        self.problem = group_problem(self.referee.state, self.moves(), *self._blocked,
                                     taken=self._taken)
        self.ghost.show_at(offset, not self.problem)
        if self.problem:
            return f"The group cannot move there: {self.problem}"
        return f"GM moves {len(self.starts)} tokens together · release to move, Esc cancels"

    def finish(self) -> str:
        """Release: move the group as one logged command (or say why not). A status line."""
        moves, count = self.moves(), len(self.starts)
        moved = self.moved
        self.cancel()
        if not moved:
            return ""
        try:
            self.referee.execute(MoveGroup(tuple(moves.items())))
        except RuleError as err:
            return f"Not moved: {err}"
        return f"GM moves {count} tokens together"

    def cancel(self) -> None:
        """Drop the drag; nothing moves."""
        self.token = None
        self.offset = (0, 0)
        self.problem = ""
        self.ghost.show_at(None)
