"""Ghost arrows: what the combatants declared and is not resolved yet, drawn on the map.

A ruleset that declares before it resolves (six_phase, reflex) answers
``Ruleset.declared`` with ``Declared`` view-models; this layer draws each as a
dashed, half-transparent arrow from the token to where it will move (with a
dashed outline of the token there) or to the token it aims at. The arrows go
as soon as the ruleset stops listing them, that is when the declaration
resolves. The player view draws only the declarations made openly at the table,
and none that would point at or from a token the players cannot see.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable

from tacmap.engine.model.state import Encounter
from tacmap.engine.rules.views import Declared
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import (
    QBrush,
    QColor,
    QGraphicsItem,
    QGraphicsPathItem,
    QPainter,
    QPainterPath,
    QPen,
    QPointF,
    QRectF,
    QStyleOptionGraphicsItem,
    Qt,
    QWidget,
)

#: Over the tokens (so an arrow is never hidden under the token it starts from) and under
#: the drag overlay and name tags.
GHOST_Z = 16
MOVE = QColor(40, 100, 220, 170)
AIM = QColor(210, 40, 40, 170)
#: Length and half-width of an arrowhead, in scene pixels.
HEAD, HALF = 16.0, 8.0


class GhostArrow(QGraphicsPathItem):
    """One declaration: a dashed shaft, a solid arrowhead, a dashed outline at a move's end."""

    def __init__(self, declared: Declared, path: QPainterPath, head: QPainterPath,
                 colour: QColor, text: str) -> None:
        super().__init__(path)
        self.declared = declared
        pen = QPen(colour, 3)
        pen.setStyle(Qt.PenStyle.DashLine)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.setPen(pen)
        self.head = head
        self.colour = colour
        self.setToolTip(text)
        self.setZValue(GHOST_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # clicks go to the tokens

    def boundingRect(self) -> QRectF:
        return super().boundingRect().united(self.head.boundingRect())

    def shape(self) -> QPainterPath:
        out = QPainterPath(super().shape())
        out.addPath(self.head)
        return out

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        super().paint(painter, option, widget)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(self.colour))
        painter.drawPath(self.head)


class GhostLayer(QGraphicsItem):
    """The map's ghost arrows; ``set_declared`` replaces them all."""

    def __init__(self) -> None:
        super().__init__()
        self.setZValue(GHOST_Z)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)
        self.arrows: list[GhostArrow] = []
        self._key: object = None

    def boundingRect(self) -> QRectF:
        return QRectF()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        """Nothing of its own: the arrows are its children."""

    def set_declared(self, state: Encounter, declared: Iterable[Declared], *,
                     player: bool = False, unseen: Collection[str] = ()) -> None:
        """Draw ``declared``: on the player view only public ones among tokens it shows."""
        shown = [d for d in declared if not player or self._public(state, d, unseen)]
        key = tuple((d, self._ends(state, d)) for d in shown)
        if key == self._key:
            return
        self._key = key
        scene = self.scene()
        for old in self.arrows:
            if scene is not None:
                scene.removeItem(old)
            else:
                old.hide()
        self.arrows = []
        for d in shown:
            arrow = self._arrow(state, d)
            if arrow is not None:
                arrow.setParentItem(self)
                self.arrows.append(arrow)

    @staticmethod
    def _public(state: Encounter, d: Declared, unseen: Collection[str]) -> bool:
        if not d.public:
            return False
        for tid in (d.actor, d.target):
            token = state.tokens.get(tid) if tid else None
            if tid and (token is None or token.hidden or tid in unseen):
                return False
        return True

    @staticmethod
    def _ends(state: Encounter, d: Declared) -> tuple[object, ...]:
        actor = state.tokens.get(d.actor)
        target = state.tokens.get(d.target) if d.target else None
        return (actor.cell if actor else None, actor.size if actor else None,
                target.cell if target else None, target.size if target else None)

    def _arrow(self, state: Encounter, d: Declared) -> GhostArrow | None:
        actor = state.tokens.get(d.actor)
        if actor is None:
            return None
        half = actor.size * CELL / 2
        start = QPointF(actor.x * CELL + half, actor.y * CELL + half)
        path = QPainterPath()
        if d.to is not None:
            end = QPointF(d.to[0] * CELL + half, d.to[1] * CELL + half)
            stop = 0.0
            # The ghost of the token where the move will leave it.
            box = QRectF(d.to[0] * CELL + 3, d.to[1] * CELL + 3, 2 * half - 6, 2 * half - 6)
            path.addRoundedRect(box, 6, 6)
            colour, verb = MOVE, "declares"
        else:
            target = state.tokens.get(d.target)
            if target is None:
                return None
            t_half = target.size * CELL / 2
            end = QPointF(target.x * CELL + t_half, target.y * CELL + t_half)
            stop = t_half * 0.8  # the head touches the target's edge, not its middle
            colour, verb = AIM, "declares"
        dx, dy = end.x() - start.x(), end.y() - start.y()
        length = math.hypot(dx, dy)
        if length < 1:
            return None
        ux, uy = dx / length, dy / length
        begin = QPointF(start.x() + ux * half * 0.8, start.y() + uy * half * 0.8)
        tip = QPointF(end.x() - ux * stop, end.y() - uy * stop)
        base = QPointF(tip.x() - ux * HEAD, tip.y() - uy * HEAD)
        path.moveTo(begin)
        path.lineTo(base)
        head = QPainterPath()
        head.moveTo(tip)
        head.lineTo(QPointF(base.x() - uy * HALF, base.y() + ux * HALF))
        head.lineTo(QPointF(base.x() + uy * HALF, base.y() - ux * HALF))
        head.closeSubpath()
        return GhostArrow(d, path, head, colour, f"{actor.name} {verb}: {d.label}")
