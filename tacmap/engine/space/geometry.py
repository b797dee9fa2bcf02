"""Walls, obstacles, reach and sight, with shapely and its STRtree.

A cell (x, y) is the square [x, x+1]×[y, y+1] in metres; its centre is
(x + 0.5, y + 0.5). A step between neighbouring cells is blocked when the
segment between their centres touches a wall or crosses an obstacle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import shapely
from shapely import STRtree

from tacmap.engine.model.state import Cell, Encounter, OutOfFight, Token, Wall, marked_dead
from tacmap.engine.space import grid


def _shape(wall: Wall) -> shapely.Geometry:
    if wall.closed:
        return shapely.Polygon(wall.points)
    return shapely.LineString(wall.points)


def wall_problem(wall: Wall, width: float, height: float) -> str | None:
    """Why ``wall`` cannot stand on a ``width``×``height`` m map, or None.

    Points must lie on the map: rasterising looks at every cell of a wall's
    bounding box, so a point a million metres away would stall the app.
    """
    for x, y in wall.points:
        if not (0 <= x <= width and 0 <= y <= height):
            return f"the point ({x:g}, {y:g}) is off the {width:g}×{height:g} m map"
    if wall.closed and wall.kind != "wall":
        return f"a {wall.kind} is a line, not a closed obstacle"
    if wall.open and wall.kind != "door":
        return "only a door can stand open"
    shape = _shape(wall)
    if wall.closed and (not shapely.is_valid(shape) or shape.area <= 0):
        return "an obstacle must not cross itself and must cover some ground"
    if not wall.closed and shape.length <= 0:
        return "a wall must have some length"
    return None


#: The four step directions checked from each cell: E, S, SE, SW.
_STEPS = np.array([(1, 0), (0, 1), (1, 1), (-1, 1)], dtype=np.int64)
#: A cell and its eight neighbours.
_AROUND = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=np.int64)


def _cells_along(lines: Sequence[Sequence[tuple[float, float]]]) -> np.ndarray:
    """Cells within a cell of each polyline (with repeats): the only ones whose steps it
    can bar.

    Walking a line costs its length, where the bounding box of a long perimeter
    wall would cost its area: each segment is sampled every half cell, and each
    sample's cell and its eight neighbours are kept.
    """
    p0 = np.concatenate([np.asarray(p[:-1], dtype=float) for p in lines])
    p1 = np.concatenate([np.asarray(p[1:], dtype=float) for p in lines])
    n = np.maximum(1, np.ceil(2 * np.abs(p1 - p0).max(axis=1))).astype(np.int64)
    seg = np.repeat(np.arange(len(n)), n + 1)
    i = np.arange(int((n + 1).sum())) - np.repeat(np.cumsum(n + 1) - (n + 1), n + 1)
    a, d = p0[seg], (p1 - p0)[seg]
    xy = np.floor(a + d * i[:, None] / n[seg][:, None]).astype(np.int64)
    out: np.ndarray = (xy[:, None, :] + _AROUND[None, :, :]).reshape(-1, 2)
    return out


def _unique_cells(cells: np.ndarray) -> np.ndarray:
    """The distinct rows of an (n, 2) array of cells (one key a cell: a 1-D sort is fast)."""
    cells = cells.astype(np.int64)
    low = cells.min(axis=0)
    span = int(cells[:, 1].max() - low[1]) + 1
    keys = np.unique((cells[:, 0] - low[0]) * span + (cells[:, 1] - low[1]))
    return np.stack([keys // span + low[0], keys % span + low[1]], axis=1)


#: Cell pairs whose sight a ``Walls`` keeps (a huge map's fog asks many once: bounded);
#: four times as many steps of a big token.
SIGHT_KEPT = 65536


class Walls:
    """The map's walls and obstacles, indexed once; answers steps and sight.

    Moves and sight see different subsets: an open door bars neither, a window
    bars moves only, a low fence (``blocks_sight`` False) moves only.
    """

    def __init__(self, walls: Sequence[Wall]) -> None:
        self.all = tuple(walls)
        #: What bars moves (everything but open doors), and its shapes and index.
        self.walls = tuple(w for w in self.all if w.blocks_moves)
        self.shapes = [_shape(w) for w in self.walls]
        self.tree = STRtree(self.shapes)
        #: What stops sight, and its shapes and index.
        self.sight_walls = tuple(w for w in self.all if w.stops_sight)
        self.sight_shapes = [_shape(w) for w in self.sight_walls]
        self.sight_tree = STRtree(self.sight_shapes)
        self._blocked_steps: set[tuple[Cell, Cell]] | None = None
        self._blocked_cells: set[Cell] | None = None
        # Sight between two cells, as asked: a fight asks the same pairs turn after turn.
        self._sight: dict[tuple[Cell, Cell], bool] = {}
        self._big_steps: dict[int, dict[tuple[Cell, Cell], bool]] = {}

    def _rasterise(self) -> None:
        """Find every blocked step and cell once, in bulk, so searches are set look-ups.

        Vectorised with numpy: an imported map's thousands of wall segments are
        rasterised in milliseconds, so the first drag on it does not stall.
        """
        steps: set[tuple[Cell, Cell]] = set()
        cells: set[Cell] = set()
        if self.shapes:
            boxes: list[np.ndarray] = []
            lines: list[Sequence[tuple[float, float]]] = []
            for wall, shape in zip(self.walls, self.shapes, strict=True):
                if wall.closed:
                    x0, y0, x1, y1 = shape.bounds
                    xs = np.arange(int(np.floor(x0)) - 1, int(np.ceil(x1)) + 1)
                    ys = np.arange(int(np.floor(y0)) - 1, int(np.ceil(y1)) + 1)
                    boxes.append(np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2))
                else:
                    lines.append(wall.points)
            if lines:
                boxes.append(_cells_along(lines))
            cand = _unique_cells(np.concatenate(boxes))
            # Each undirected step once: E, S, SE, SW.
            ends = (cand[:, None, :] + _STEPS[None, :, :]).reshape(-1, 2)
            starts = np.repeat(cand, len(_STEPS), axis=0)
            coords = np.stack([starts, ends], axis=1) + 0.5
            hit_steps, _ = self.tree.query(shapely.linestrings(coords), predicate="intersects")
            hit = np.unique(hit_steps)
            a_cells = list(map(tuple, starts[hit].tolist()))
            b_cells = list(map(tuple, ends[hit].tolist()))
            steps.update(zip(a_cells, b_cells, strict=True))
            steps.update(zip(b_cells, a_cells, strict=True))
            hit_cells, walls = self.tree.query(shapely.points(cand + 0.5), predicate="within")
            for i, w in zip(hit_cells.tolist(), walls.tolist(), strict=True):
                if self.walls[w].closed:
                    cells.add((int(cand[i, 0]), int(cand[i, 1])))
        self._blocked_steps, self._blocked_cells = steps, cells

    @property
    def blocked_steps(self) -> set[tuple[Cell, Cell]]:
        """Steps between neighbouring cells that a wall or obstacle bars."""
        if self._blocked_steps is None:
            self._rasterise()
        assert self._blocked_steps is not None
        return self._blocked_steps

    @property
    def blocked_cells(self) -> set[Cell]:
        """Cells whose centre lies inside an obstacle."""
        if self._blocked_cells is None:
            self._rasterise()
        assert self._blocked_cells is not None
        return self._blocked_cells

    def step_test(self, size: int = 1) -> grid.StepTest:
        """``blocked(a, b)`` for a token of footprint ``size``, for distance fields."""
        steps, cells = self.blocked_steps, self.blocked_cells
        if size == 1:
            return lambda a, b: (a, b) in steps or b in cells
        offsets = [(i, j) for j in range(size) for i in range(size)]
        # Neighbouring cells inside one footprint: a wall between them cuts the token.
        inner = [((i, j), (i + di, j + dj)) for i, j in offsets for di, dj in ((1, 0), (0, 1))
                 if i + di < size and j + dj < size]

        def test(a: Cell, b: Cell) -> bool:
            for i, j in offsets:
                fa, fb = (a[0] + i, a[1] + j), (b[0] + i, b[1] + j)
                if (fa, fb) in steps or fb in cells:
                    return True
            for (i, j), (k, m) in inner:
                if ((b[0] + i, b[1] + j), (b[0] + k, b[1] + m)) in steps:
                    return True
            return False

        # A big token's step is many look-ups, and a search widening round a wall asks
        # the same steps again: the walls never change, so each answer is kept.
        known = self._big_steps.setdefault(size, {})

        def blocked(a: Cell, b: Cell) -> bool:
            key = (a, b)
            found = known.get(key)
            if found is None:
                if len(known) >= SIGHT_KEPT * 4:
                    known.clear()
                found = known[key] = test(a, b)
            return found

        return blocked

    def route_blocked(self, cells: Sequence[Cell], size: int = 1) -> int | None:
        """Index of the first step of a route that a wall bars, or None."""
        test = self.step_test(size)
        for i, (a, b) in enumerate(pairwise(cells)):
            if test(a, b):
                return i + 1
        return None

    def sight_blocked(self, a: Cell, b: Cell) -> bool:
        """Whether a wall that blocks sight lies between the centres of two cells."""
        if not self.sight_shapes:
            return False
        key = (a, b)
        known = self._sight.get(key)
        if known is None:
            if len(self._sight) >= SIGHT_KEPT:
                self._sight.clear()
            seg = shapely.LineString([(a[0] + 0.5, a[1] + 0.5), (b[0] + 0.5, b[1] + 0.5)])
            known = self._sight[key] = len(self.sight_tree.query(seg, predicate="intersects")) > 0
        return known

    def sight_blocked_from(self, a: Cell, others: Sequence[Cell]) -> list[bool]:
        """``sight_blocked(a, b)`` for every ``b`` of ``others``, in one bulk query."""
        if not self.sight_shapes or not len(others):
            return [False] * len(others)
        ax, ay = a[0] + 0.5, a[1] + 0.5
        coords = np.array([[[ax, ay], [b[0] + 0.5, b[1] + 0.5]] for b in others])
        lines, _ = self.sight_tree.query(shapely.linestrings(coords), predicate="intersects")
        out = np.zeros(len(others), dtype=bool)
        out[lines] = True
        return [bool(v) for v in out]


def line_of_sight(walls: Walls, a: Token, b: Token) -> bool:
    """True when some cell of ``a`` sees some cell of ``b`` (corner cells are enough)."""
    corners_a = _corners(a)
    corners_b = _corners(b)
    return any(not walls.sight_blocked(p, q) for p in corners_a for q in corners_b)


def _corners(t: Token) -> list[Cell]:
    s = t.size - 1
    return list(dict.fromkeys([(t.x, t.y), (t.x + s, t.y), (t.x, t.y + s), (t.x + s, t.y + s)]))


@dataclass(frozen=True)
class Threat:
    """An enemy whose reach a token is in, and how far that reach goes."""

    enemy: str
    """Enemy token id."""
    reach: float
    """Its reach in metres."""


class TokenIndex:
    """An STRtree over token footprints, built once per drag or per executed command."""

    def __init__(self, tokens: Iterable[Token]) -> None:
        self.tokens = list(tokens)
        if self.tokens:
            xy = np.array([(t.x, t.y, t.size) for t in self.tokens], dtype=float)
            boxes = shapely.box(xy[:, 0], xy[:, 1], xy[:, 0] + xy[:, 2], xy[:, 1] + xy[:, 2])
        else:
            boxes = np.array([], dtype=object)
        self.tree = STRtree(boxes)

    def near(self, x0: float, y0: float, x1: float, y1: float) -> list[Token]:
        """Tokens whose footprint meets the box [x0, x1]×[y0, y1], in token order."""
        hits = self.tree.query(shapely.box(x0, y0, x1, y1))
        return [self.tokens[i] for i in sorted(hits.tolist())]


def reach_crossing(
    rule: str, cells: Sequence[Cell], mover: Token, enemy: Token, reach: float
) -> tuple[int | None, int | None]:
    """(step the route is first within ``enemy``'s reach, first step out after it).

    The first is 0 when the route starts inside; either is None when it never
    happens. Previews, move resolution and reactions all read a route through
    this one function, so a warning on the map and a reaction that fires agree.
    """
    entered: int | None = None
    n, (ex, ey), es = mover.size, enemy.cell, enemy.size
    for i, (cx, cy) in enumerate(cells):
        # grid.gap inlined: this runs for every cell of every drag near an enemy.
        dx = max(0, ex - (cx + n - 1), cx - (ex + es - 1))
        dy = max(0, ey - (cy + n - 1), cy - (ey + es - 1))
        # No rule makes a distance shorter than its longer axis: most cells stop here.
        inside = dx <= reach and dy <= reach \
            and grid.segment_cost(rule, (0, 0), (dx, dy)) <= reach
        if entered is None:
            if inside:
                entered = i
        elif not inside:
            return entered, i
    return entered, None


def reach_left(
    rule: str,
    cells: Sequence[Cell],
    mover: Token,
    enemies: Iterable[tuple[Token, float]],
) -> list[tuple[str, int]]:
    """Enemies whose reach the route leaves, in the order it leaves them.

    A route "leaves" an enemy's reach at its first step from inside that reach
    to outside it, whether it started inside or came in on the way (passing
    by an enemy leaves its reach as surely as running from it); the index is
    that step's cell. Each enemy is named once, at the first step out.
    """
    left: list[tuple[int, int, str]] = []
    for order, (enemy, reach) in enumerate(enemies):
        if enemy.id == mover.id:
            continue
        _, out = reach_crossing(rule, cells, mover, enemy, reach)
        if out is not None:
            left.append((out, order, enemy.id))
    left.sort()
    return [(enemy_id, step) for step, _, enemy_id in left]


def enemies_near(
    state: Encounter, index: TokenIndex, mover: Token, cells: Sequence[Cell], max_reach: float,
    out: OutOfFight = marked_dead,
) -> list[Token]:
    """Enemies of ``mover`` still in the fight (not ``out``) close enough to the route to
    matter, via the index."""
    x0, y0, x1, y1 = grid.bounding(cells)
    pad = max_reach + 1
    return [
        t for t in index.near(x0 - pad, y0 - pad, x1 + mover.size + pad, y1 + mover.size + pad)
        if t.side != mover.side and t.id != mover.id and not out(t)
    ]
