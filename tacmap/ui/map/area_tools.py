"""Placing area templates with the mouse: a free template (Build ▸ Area Template) and the
area of an action (a Fireball), both drawn live with the tokens inside named by the cursor.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import Cell, Encounter, Template
from tacmap.engine.rules.views import AreaSpec
from tacmap.engine.space import grid
from tacmap.engine.space.templates import cells, describe, tokens_inside
from tacmap.ui.map.hint import CursorHint
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.tools import Tool
from tacmap.ui.qt import QGraphicsView, QPointF, Qt

#: The drag gives the size of a free template, up to this many cells.
MAX_DRAG = 60


def cell_at(p: QPointF) -> Cell:
    """The cell under a scene point."""
    return (math.floor(p.x() / CELL), math.floor(p.y() / CELL))


def free_template(shape: str, origin: Cell, at: QPointF, rule: str, angle: float = 90.0,
                  width: int = 1) -> Template:
    """The template a drag from ``origin`` to scene point ``at`` draws, snapped to cells.

    A circle, cone or line reaches the cell under the mouse as the encounter's
    diagonal ``rule`` measures it (whole cells, at least one): under
    ``rectilinear`` three cells diagonally is a radius of 6. A cone (``angle``
    degrees wide) or a line (``width`` cells wide) points at that cell; a
    square's side spans the drag from its corner cell.
    """
    here = cell_at(at)
    reach = grid.segment_cost(rule, origin, here)
    length = max(1, min(MAX_DRAG, math.ceil(reach - 1e-9)))
    if shape == "square":
        side = max(abs(here[0] - origin[0]), abs(here[1] - origin[1])) + 1
        return Template("square", origin, min(side, MAX_DRAG), here)
    if shape in ("cone", "line"):
        toward = here if here != origin else (origin[0] + 1, origin[1])
        return Template(shape, origin, length, toward, width=width, angle=angle)
    return Template("circle", origin, length)


class TemplatePreview:
    """Draws a template being placed: its cells, rings round the tokens inside, their names."""

    def __init__(self, scene: MapScene, view: QGraphicsView) -> None:
        self.scene = scene
        self.view = view
        self.hint = CursorHint(view.viewport())
        #: Ids of the tokens inside the template shown now.
        self.inside: list[str] = []

    def show(self, state: Encounter, template: Template, at: QPointF, title: str,
             problem: str = "") -> None:
        """Draw ``template``; name the tokens inside next to the mouse at scene point ``at``."""
        walls = self.scene.ruleset.space.walls(state)
        try:
            area = cells(template, state, walls)
        except ValueError as err:
            self.clear()
            problem = str(err)
            area = set()
        self.scene.sketch_area.show_template(template if area else None, area)
        self.inside = tokens_inside(template, state, walls, area) if area else []
        tokens = [state.tokens[t] for t in self.inside]
        self.scene.inside_rings.show_tokens(tokens)
        names = ", ".join(t.name for t in tokens) or "nobody"
        text = f"{title}: {names}"
        if problem:
            text += f"\n✗ {problem}"
        p = self.view.mapFromScene(at)
        self.hint.show_at(text, p.x(), p.y())

    def clear(self) -> None:
        """Hide everything."""
        self.scene.sketch_area.show_template(None, set())
        self.scene.inside_rings.show_tokens([])
        self.hint.hide()
        self.inside = []


#: What the Area Template tool draws: shape, a cone's angle, a line's width in cells.
Style = tuple[str, float, int]


class DrawTemplate(Tool):
    """Press at the origin, drag to size and aim, release: keep it on the map or discard it."""

    name = "template"

    def __init__(self, state: Callable[[], Encounter], shape: Callable[[], Style],
                 preview: TemplatePreview,
                 released: Callable[[Template, list[str], QPointF], None]) -> None:
        self.state, self.shape, self.preview, self.released = state, shape, preview, released
        self.origin: Cell | None = None
        self.template: Template | None = None

    def press(self, at: QPointF, button: Qt.MouseButton) -> None:
        if button != Qt.MouseButton.LeftButton:
            return
        self.origin = cell_at(at)
        self.move(at)

    def move(self, at: QPointF) -> None:
        if self.origin is None:
            return
        shape, angle, width = self.shape()
        self.template = free_template(shape, self.origin, at, self.state().diagonal, angle,
                                      width)
        self.preview.show(self.state(), self.template, at, describe(self.template).capitalize())

    def release(self, at: QPointF) -> None:
        if self.origin is None:
            return
        self.move(at)
        template, inside = self.template, list(self.preview.inside)
        self.origin = None
        if template is not None:
            self.released(template, inside, at)

    def cancel(self) -> None:
        self.origin, self.template = None, None
        self.preview.clear()


class AimArea(Tool):
    """An armed action's fixed template follows the mouse; a click confirms, Esc cancels."""

    name = "aim"

    def __init__(self, state: Callable[[], Encounter], actor: str, spec: AreaSpec, title: str,
                 preview: TemplatePreview, check: Callable[[Template], str],
                 confirm: Callable[[Template], None], done: Callable[[], None]) -> None:
        self.state, self.actor, self.spec, self.title = state, actor, spec, title
        self.preview, self.check, self.confirm, self.done = preview, check, confirm, done
        self.template: Template | None = None

    def place(self, at: QPointF) -> Template:
        """Where the template stands with the mouse at ``at``.

        A circle or square is centred (cornered) on the cell under the mouse; a
        cone or line starts at the actor's cell and points at it.
        """
        here = cell_at(at)
        if self.spec.shape in ("cone", "line"):
            token = self.state().tokens.get(self.actor)
            origin = token.cell if token is not None else here
            toward = here if here != origin else (origin[0] + 1, origin[1])
            return self.spec.at(origin, toward)
        return self.spec.at(here)

    def move(self, at: QPointF) -> None:
        self.template = self.place(at)
        try:
            problem = self.check(self.template)
        except RuleError as err:
            problem = str(err)
        self.preview.show(self.state(), self.template, at, self.title, problem)

    def press(self, at: QPointF, button: Qt.MouseButton) -> None:
        if button != Qt.MouseButton.LeftButton:
            self.cancel()
            return
        template = self.place(at)
        self.preview.clear()
        self.done()
        self.confirm(template)

    def cancel(self) -> None:
        self.preview.clear()
        self.done()

    def leave(self) -> None:
        self.cancel()  # right-click: the armed area is not placed
