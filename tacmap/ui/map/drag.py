"""Dragging a token: preview on every cell change, execute on release, snap back if refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from tacmap.engine.model.commands import FreeMove, Move
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import Cell
from tacmap.engine.model.units import METRES, Units
from tacmap.engine.play.narrate import declaration, reactions
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.views import Preview
from tacmap.engine.space import grid
from tacmap.ui.map.layers import DragView
from tacmap.ui.map.scene import MapScene


@dataclass
class Drag:
    """One drag under way."""

    token: str
    """Token id."""
    start: Cell
    """Where the token stood."""
    grab: tuple[float, float]
    """Where on the token it was grabbed, in cells from its top-left corner."""
    waypoints: list[Cell] = field(default_factory=list)
    """Waypoints dropped so far."""
    cell: Cell | None = None
    """Cell the token would land on now."""
    preview: Preview | None = None
    """The referee's answer for the current cell."""


def describe_cost(preview: Preview, units: Units = METRES) -> str:
    """``7 m of 10 m`` (or ``7 m`` where the rules set no budget), in the ruleset's unit."""
    if preview.cost is None:
        return ""
    text = units.of(preview.cost)
    if preview.budget is not None:
        text += f" of {units.of(preview.budget)}"
    return text


class DragController:
    """Turns mouse gestures on tokens into previews and commands through the referee."""

    def __init__(self, scene: MapScene, referee: Referee) -> None:
        self.scene = scene
        self.referee = referee
        self.drag: Drag | None = None

    def begin(self, token_id: str, grab: tuple[float, float]) -> None:
        """Start dragging ``token_id``, grabbed ``grab`` cells from its corner."""
        token = self.referee.state.token(token_id)
        self.drag = Drag(token_id, token.cell, grab)
        self.scene.show_reach([], threatened_for=token)

    def move_to(self, scene_cell: tuple[float, float]) -> Preview | None:
        """The mouse is over ``scene_cell`` (fractional cells): preview if the cell changed."""
        drag = self.drag
        if drag is None:
            return None
        cell = (round(scene_cell[0] - drag.grab[0]), round(scene_cell[1] - drag.grab[1]))
        if cell == drag.cell:
            return drag.preview
        drag.cell = cell
        path = (*drag.waypoints, cell)
        if path == (drag.start,):
            drag.preview = None
            self.scene.overlay.show_drag(None)
            self.scene.fade_labels([])
            return None
        drag.preview = self.referee.preview(Move(drag.token, path))
        self.scene.overlay.show_drag(self.view_of(drag))
        self.scene.fade_labels(self.scene.overlay.covered())
        return drag.preview

    def add_waypoint(self) -> None:
        """Pin the current cell as a waypoint."""
        drag = self.drag
        if drag is not None and drag.cell is not None and drag.preview is not None \
                and drag.preview.legal and (not drag.waypoints or drag.waypoints[-1] != drag.cell):
            drag.waypoints.append(drag.cell)
            self.scene.overlay.show_drag(self.view_of(drag))

    def view_of(self, drag: Drag) -> DragView:
        """What the overlay should show for the current preview."""
        state = self.referee.state
        token = state.token(drag.token)
        p = drag.preview
        assert p is not None
        cells = p.path or (drag.start, drag.cell or drag.start)
        costs = [0.0]
        diagonals = 0
        for a, b in pairwise(cells):
            costs.append(costs[-1] + grid.step_cost(state.diagonal, a, b, diagonals))
            diagonals += a[0] != b[0] and a[1] != b[1]
        if p.cost is not None and costs[-1] > 0:
            # Euclidean legs are measured straight, not cell by cell: scale to agree.
            costs = [c * p.cost / costs[-1] for c in costs]
        bands = self.referee.ruleset.move_bands(state, token)
        leaves = []
        sizes = []
        for enemy_id, step in p.leaves:
            enemy = state.tokens[enemy_id]
            leaves.append((cells[step], enemy.cell, enemy.name))
            sizes.append(enemy.size)
        units = self.referee.ruleset.manifest.units
        label = describe_cost(p, units) if p.legal else (p.reason or describe_cost(p, units))
        end = cells[-1]
        # Tokens round the destination (the dragged one where it stands too), for the
        # labels to keep off; the index is the ruleset's, built once per state version.
        index = self.referee.ruleset.space.index(state, self.referee.version)
        pad = 10  # as far as a label may reach
        near = tuple((t.x, t.y, t.size)
                     for t in index.near(end[0] - pad, end[1] - pad, end[0] + token.size + pad,
                                         end[1] + token.size + pad))
        return DragView(tuple(cells), tuple(costs), bands, token.size, label, p.legal,
                        tuple(leaves), tuple(sizes), tuple(drag.waypoints),
                        p.uses if p.legal else "", near, (state.map.width, state.map.height))

    def status_of(self, preview: Preview) -> str:
        """The status-bar line while dragging: cost, why not, what the move uses, warnings."""
        text = describe_cost(preview, self.referee.ruleset.manifest.units)
        if not preview.legal:
            text = f"{text} — {preview.reason}" if text else preview.reason
        elif preview.uses:
            text = f"{text} — {preview.uses}" if text else preview.uses
        if preview.leaves:
            state = self.referee.state
            names = ", then ".join(state.tokens[e].name for e, _ in preview.leaves)
            text += f" — leaves the reach of {names}"
        return text

    def finish(self, override: bool = False) -> str:
        """Release: execute the move (or the GM's free move). Returns a status line."""
        drag = self.drag
        self.cancel()
        if drag is None or drag.cell is None or (drag.cell == drag.start and not drag.waypoints):
            return ""
        name = self.referee.state.token(drag.token).name
        try:
            if override:
                self.referee.execute(FreeMove(drag.token, drag.cell))
                return f"GM moves {name} to ({drag.cell[0]},{drag.cell[1]})"
            move = Move(drag.token, (*drag.waypoints, drag.cell))
            events = self.referee.execute(move)
        except RuleError as err:
            return f"Not moved: {err}"
        p = drag.preview
        units = self.referee.ruleset.manifest.units
        text = f"{name} moves {units.of(p.cost)}" if p is not None and p.cost is not None else ""
        # Six Phases only declares the move here: say so, or the GM looks for a move.
        text = declaration(self.referee.state, move, events) or text
        if p is not None and p.leaves:
            names = ", then ".join(self.referee.state.tokens[e].name for e, _ in p.leaves)
            text += f" — leaves the reach of {names}"
        for reaction in reactions(self.referee.state, move, events):
            text += f" — {reaction.text}"
        return text

    def cancel(self) -> None:
        """Drop the drag; nothing happens."""
        self.drag = None
        self.scene.overlay.show_drag(None)
        self.scene.fade_labels([])
        self.scene.show_reach([])
