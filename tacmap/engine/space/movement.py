"""Planning a move: route, cost, walls, and whose reach it leaves.

``Ruleset.plan`` calls ``plan_move`` for every preview and every executed
move; its ``Space`` keeps the rasterised walls, the token index and the
distance fields of the current state version, so while a token is dragged
each mouse move is a few look-ups. ``DragPlanner`` does the same for code
that holds a state without a referee.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from tacmap.engine.model.state import Cell, Encounter, OutOfFight, Token, marked_dead
from tacmap.engine.space import grid
from tacmap.engine.space.geometry import TokenIndex, Walls, enemies_near, reach_left

#: ``reach_of(token)`` gives a token's melee reach in metres (the ruleset decides).
ReachOf = Callable[[Token], float]

#: Top-left cells a mover may not stand on (its footprint would overlap a token it may
#: not pass), with the id of that token.
Barred = dict[Cell, str]

#: Distance fields by (leg start, size and diagonal parity, mover's side): the side is
#: in the key because whose squares bar the way depends on it.
Fields = dict[tuple[Cell, int, str], grid.DistanceField]


@dataclass(frozen=True)
class MovePlan:
    """A move worked out without changing anything."""

    cells: tuple[Cell, ...]
    """Cells walked, start first."""
    cost: float
    """Metres under the encounter's diagonal rule."""
    blocked: str = ""
    """Why the move cannot be made at all (a wall, off the map), else empty."""
    leaves: tuple[tuple[str, int], ...] = ()
    """(enemy id, step) for each enemy reach the move leaves, in order."""
    threats: tuple[str, ...] = ()
    """Enemies whose reach the destination is in."""
    occupants: tuple[str, ...] = ()
    """Other tokens (any side, alive or not) whose footprint overlaps the destination's."""


class Space:
    """The state's walls and token index, rebuilt only when they change."""

    def __init__(self) -> None:
        self._walls: Walls | None = None
        self._walls_key: object = None
        self._index: TokenIndex | None = None
        self._index_key: tuple[Encounter, object] | None = None
        self._fields: Fields = {}
        self._fields_key: tuple[Encounter, object] | None = None
        self._barred: dict[tuple[str, int], Barred] = {}
        self._barred_key: tuple[Encounter, object] | None = None
        self._reach = 1.0
        self._reach_key: tuple[Encounter, object] | None = None

    def walls(self, state: Encounter) -> Walls:
        """Indexed walls for ``state`` (cached on the walls tuple)."""
        key = state.map.walls
        if self._walls is None or self._walls_key is not key:
            self._walls, self._walls_key = Walls(key), key
        return self._walls

    def index(self, state: Encounter, version: object) -> TokenIndex:
        """Token index for ``state`` at ``version`` (the referee's change counter).

        With no version (a ruleset judging mid-command) the index is built afresh:
        tokens may have moved since any cached one.
        """
        if version is None:
            return TokenIndex(state.tokens.values())
        key = (state, version)
        if self._index is None or self._index_key is None or self._index_key[0] is not state \
                or self._index_key[1] != version:
            self._index, self._index_key = TokenIndex(state.tokens.values()), key
        return self._index


    def max_reach(self, state: Encounter, version: object, reach_of: ReachOf) -> float:
        """Longest reach on the map, computed once per ``version``."""
        key = (state, version)
        if version is None or self._reach_key is None or self._reach_key[0] is not state \
                or self._reach_key[1] != version:
            self._reach = max((reach_of(t) for t in state.tokens.values()), default=1.0)
            self._reach_key = key if version is not None else None
        return self._reach

    def barred(self, state: Encounter, version: object, mover: Token,
               blocks: Callable[[Token], bool]) -> Barred:
        """Cells ``mover`` may not stand on or pass through, once per ``version`` and side.

        ``blocks(other)`` says whether ``other`` bars the way; it may depend on the
        mover's side only (the cache is kept by side and footprint).
        """
        key = (state, version)
        if version is None or self._barred_key is None or self._barred_key[0] is not state \
                or self._barred_key[1] != version:
            self._barred = {}
            self._barred_key = key if version is not None else None
        found = self._barred.get((mover.side, mover.size))
        if found is None:
            found = barred_cells(state, mover, blocks)
            if version is not None:
                self._barred[(mover.side, mover.size)] = found
        return found

    def fields(self, state: Encounter, version: object) -> Fields | None:
        """Distance fields found so far at ``version``, by leg start, size and side.

        While a token is dragged round a wall, every mouse move reuses the
        field of its leg instead of searching again.
        """
        if version is None:
            return None
        key = (state, version)
        if self._fields_key is None or self._fields_key[0] is not state \
                or self._fields_key[1] != version:
            self._fields, self._fields_key = {}, key
        return self._fields


def barred_cells(state: Encounter, mover: Token, blocks: Callable[[Token], bool]) -> Barred:
    """Top-left cells where ``mover``'s footprint would overlap a token that ``blocks``."""
    out: Barred = {}
    n = mover.size
    for other in state.tokens.values():
        if other.id == mover.id or not blocks(other):
            continue
        for x in range(other.x - n + 1, other.x + other.size):
            for y in range(other.y - n + 1, other.y + other.size):
                out.setdefault((x, y), other.id)
    return out


def _in_bounds(state: Encounter, cell: Cell, size: int) -> bool:
    return cell[0] >= 0 and cell[1] >= 0 and cell[0] + size <= state.map.width \
        and cell[1] + size <= state.map.height


def plan_route(
    state: Encounter, walls: Walls, token: Token, waypoints: Sequence[Cell],
    fields: Fields | None = None, barred: Barred | None = None, diagonals_before: int = 0,
) -> tuple[list[Cell], float, str]:
    """Cells and cost through ``waypoints`` (not including the start), or why not.

    ``diagonals_before`` counts the diagonal steps the turn has already taken (the
    alternating rule keeps counting 1, 2, 1, 2 across the moves of one turn).

    Each leg goes straight when no wall and no ``barred`` cell (an enemy's
    square) is in the way (the cheapest route under every rule) and otherwise
    takes the cheapest way round, found by a distance field (cached in
    ``fields`` by leg start when given). A waypoint on a barred cell is refused.
    """
    barred = barred or {}
    rule = state.diagonal
    cells: list[Cell] = [token.cell]
    cost = 0.0
    diagonals = diagonals_before
    for target in waypoints:
        if not _in_bounds(state, target, token.size):
            return cells, cost, f"({target[0]},{target[1]}) is off the map"
        if any(c in walls.blocked_cells for c in grid.footprint(target, token.size)):
            return cells, cost, f"({target[0]},{target[1]}) is inside an obstacle"
        if target in barred:
            return cells, cost, f"({target[0]},{target[1]}) is taken by " \
                f"{state.tokens[barred[target]].name}"
        start = cells[-1]
        leg = grid.line(rule, start, target)
        through = next((c for c in leg[1:] if c in barred), None)
        if through is None and walls.route_blocked(leg, token.size) is None:
            cost += grid.segment_cost(rule, start, target, diagonals)
        else:
            found = None
            if through is not None:
                # Round the enemies close by first: a small search, where the whole
                # field to the target would cost a search of the whole neighbourhood.
                near = _round_enemies(state, walls, token, leg, barred, diagonals)
                if near is not None and walls.route_blocked(near, token.size) is None:
                    found = near
            if found is None:
                found = _detour(state, walls, token, start, target, diagonals, fields, barred)
            if found is None:
                if through is not None:
                    who = state.tokens[barred[through]].name
                    return cells, cost, (f"{token.name} cannot pass through {who}'s square "
                                         f"at ({through[0]},{through[1]}) and there is no "
                                         f"way round to ({target[0]},{target[1]})")
                return cells, cost, f"no way round the walls to ({target[0]},{target[1]})"
            leg = found
            cost += grid.cells_cost(rule, leg, diagonals)
        diagonals += sum(1 for a, b in pairwise(leg) if a[0] != b[0] and a[1] != b[1])
        cells.extend(leg[1:])
    return cells, cost, ""


def _round_enemies(
    state: Encounter, walls: Walls, token: Token, leg: Sequence[Cell], barred: Barred,
    diagonals: int,
) -> list[Cell] | None:
    """``leg`` with each run of barred cells replaced by the cheapest way round inside a
    small box about it, or None when there is none that close."""
    size = token.size
    test = _step_test(walls, size, barred)
    out = [leg[0]]
    i = 1
    while i < len(leg):
        if leg[i] not in barred:
            out.append(leg[i])
            i += 1
            continue
        j = i
        while j < len(leg) - 1 and leg[j] in barred:
            j += 1
        way = _local_way(state, out[-1], leg[j], size, test, diagonals)
        if way is None:
            return None
        out.extend(way[1:])
        i = j + 1
    return out


def _local_way(state: Encounter, a: Cell, b: Cell, size: int, test: grid.StepTest,
               diagonals: int) -> list[Cell] | None:
    """Cheapest cells from ``a`` to ``b`` inside their box widened by the token's size
    and two cells (Dijkstra over a few dozen cells), or None."""
    rule = state.diagonal
    pad = size + 2
    x0, x1 = max(0, min(a[0], b[0]) - pad), min(state.map.width - size, max(a[0], b[0]) + pad)
    y0, y1 = max(0, min(a[1], b[1]) - pad), min(state.map.height - size, max(a[1], b[1]) + pad)
    steps = grid.NEIGHBOURS_4 if rule == "rectilinear" else grid.NEIGHBOURS_8
    best: dict[Cell, float] = {a: 0.0}
    came: dict[Cell, Cell] = {}
    heap: list[tuple[float, Cell]] = [(0.0, a)]
    while heap:
        d, cell = heapq.heappop(heap)
        if cell == b:
            path = [b]
            while path[-1] != a:
                path.append(came[path[-1]])
            path.reverse()
            return path
        if d > best[cell]:
            continue
        for dx, dy in steps:
            nxt = (cell[0] + dx, cell[1] + dy)
            if not (x0 <= nxt[0] <= x1 and y0 <= nxt[1] <= y1) or test(cell, nxt):
                continue
            # The alternating rule's parity is taken as at the leg's start: it only picks
            # between ways round; the leg is priced step by step afterwards.
            cost = d + grid.step_cost(rule, cell, nxt, diagonals)
            if cost < best.get(nxt, math.inf):
                best[nxt] = cost
                came[nxt] = cell
                heapq.heappush(heap, (cost, nxt))
    return None


#: Distance fields by what they depend on (walls, grid rule, bounds, start, footprint,
#: diagonal parity, barred squares), across versions and encounters.
_FIELDS: dict[tuple[object, ...], grid.DistanceField] = {}


def _detour(
    state: Encounter, walls: Walls, token: Token, start: Cell, target: Cell, diagonals: int,
    fields: Fields | None, barred: Barred,
) -> list[Cell] | None:
    """Cheapest cells from ``start`` to ``target`` round the walls and the barred
    squares, or None if walled off.

    The search is bounded (a few times the straight distance) and widened only
    when the target lies beyond it, so a drag near a wall stays cheap.
    """
    rule = state.diagonal
    size = token.size
    key = (start, size * 2 + diagonals % 2, token.side)  # alternating: parity matters
    field = fields.get(key) if fields is not None else None
    bounds = (state.map.width - size + 1, state.map.height - size + 1)
    # The same walls, start and barred squares give the same field, whatever the version:
    # a rule checking a move mid-command (no version) or the next turn finds it here.
    content = (walls, rule, bounds, start, size, diagonals % 2, frozenset(barred.items()))
    if field is None:
        field = _FIELDS.get(content)
    straight = grid.segment_cost(rule, start, target)
    budget = 3 * straight + 20
    # However far round the walls a path may wind, a search wider than this is a
    # drag onto a walled-off cell: say so rather than flood a huge map.
    limit = min(2.0 * bounds[0] * bounds[1] + 2, 6 * straight + 240)
    while True:
        if field is None or (field.cost_to(target) is None and field.budget < budget):
            field = grid.distance_field(rule, start, budget, bounds,
                                        _step_test(walls, size, barred), diagonals)
            if fields is not None:
                fields[key] = field
            if len(_FIELDS) >= 512:
                _FIELDS.clear()
            _FIELDS[content] = field
        found = field.path_to(target)
        if found is not None or budget >= limit:
            return found
        budget = min(limit, max(budget, field.budget) * 2)


def _step_test(walls: Walls, size: int, barred: Barred) -> grid.StepTest:
    wall_test = walls.step_test(size)
    if not barred:
        return wall_test
    return lambda a, b: b in barred or wall_test(a, b)


def plan_move(
    state: Encounter, space: Space, version: object, token: Token,
    waypoints: Sequence[Cell], reach_of: ReachOf, max_reach: float,
    fields: Fields | None = None,
    reach_rule: str | None = None,
    blocks: Callable[[Token], bool] | None = None,
    out: OutOfFight = marked_dead,
    diagonals_before: int = 0,
) -> MovePlan:
    """Route, cost, reach left and threats for moving ``token`` through ``waypoints``.

    Reach is measured by ``reach_rule`` (default: the map's diagonal rule, which
    also prices the route). The route goes round every token ``blocks`` says
    bars the way (default: an enemy still in the fight), and may not stop on one.
    Only enemies not ``out`` of the fight (the ruleset's ``out_of_fight``) threaten.
    The cost counts on from ``diagonals_before`` diagonals already taken this turn.
    """
    walls = space.walls(state)
    barred = space.barred(state, version, token, blocks or (lambda t: bars(token, t, out)))
    cells, cost, blocked = plan_route(state, walls, token, waypoints, fields, barred,
                                      diagonals_before)
    if blocked:
        return MovePlan(tuple(cells), cost, blocked)
    index = space.index(state, version)
    near = enemies_near(state, index, token, cells, max_reach, out)
    rule = reach_rule or state.diagonal
    leaves = reach_left(rule, cells, token, [(e, reach_of(e)) for e in near])
    end = cells[-1]
    threats = tuple(
        e.id for e in near
        if grid.edge_distance(rule, end, token.size, e.cell, e.size) <= reach_of(e)
    )
    # Boxes touching only along an edge do not overlap: shrink the query a little.
    occupants = tuple(
        t.id for t in index.near(end[0] + 0.1, end[1] + 0.1, end[0] + token.size - 0.1,
                                 end[1] + token.size - 0.1)
        if t.id != token.id
    )
    return MovePlan(tuple(cells), cost, "", tuple(leaves), threats, occupants)


def bars(mover: Token, other: Token, out: OutOfFight = marked_dead) -> bool:
    """The default: the square of an enemy still in the fight bars the way; allies and
    the fallen (``out`` of the fight) do not."""
    return other.side != mover.side and not out(other)


class DragPlanner:
    """Everything a drag needs, built once at mouse-down; ``plan(cell)`` per mouse move."""

    def __init__(self, state: Encounter, token: Token, reach_of: ReachOf, max_reach: float,
                 version: object = None, out: OutOfFight = marked_dead) -> None:
        self.state = state
        self.out = out
        self.token = token
        self.reach_of = reach_of
        self.max_reach = max_reach
        self.space = Space()
        self.space.walls(state).blocked_steps  # noqa: B018  (rasterise now, not mid-drag)
        # The state does not change during a drag: one key keeps the token index.
        self.version = version if version is not None else object()
        self.space.index(state, version)
        self.fields: Fields = {}
        self.waypoints: list[Cell] = []

    def plan(self, cell: Cell) -> MovePlan:
        """The move to ``cell`` through any waypoints dropped so far."""
        return plan_move(self.state, self.space, self.version, self.token,
                         [*self.waypoints, cell], self.reach_of, self.max_reach, self.fields,
                         out=self.out)
