"""The 1 m grid: cells, the four diagonal rules of DESIGN §4, routes and path costs.

>>> path_length("rectilinear", [(0, 0), (3, 4)])
7.0
>>> path_length("chebyshev", [(0, 0), (3, 4)])
4.0
>>> path_length("alternating", [(0, 0), (3, 4)])
5.0
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import DIAGONAL_RULES, Cell

SQRT2 = math.sqrt(2.0)


def check_rule(rule: str) -> None:
    """Raise RuleError unless ``rule`` is a known diagonal rule."""
    if rule not in DIAGONAL_RULES:
        raise RuleError(f"unknown diagonal rule {rule!r}; use one of {', '.join(DIAGONAL_RULES)}")


def segment_cost(rule: str, a: Cell, b: Cell, diagonals_before: int = 0) -> float:
    """Metres from ``a`` to ``b`` with no walls in the way.

    ``diagonals_before`` carries the count of diagonal steps already taken, so
    the alternating rule keeps counting 1, 2, 1, 2 across waypoints.
    """
    dx, dy = abs(b[0] - a[0]), abs(b[1] - a[1])
    lo, hi = min(dx, dy), max(dx, dy)
    if rule == "rectilinear":
        return float(dx + dy)
    if rule == "chebyshev":
        return float(hi)
    if rule == "alternating":
        k = diagonals_before
        return float(hi - lo + lo + ((k + lo) // 2 - k // 2))
    if rule == "euclidean":
        return math.hypot(dx, dy)
    check_rule(rule)
    raise AssertionError  # unreachable: check_rule raised


def diagonal_steps(rule: str, a: Cell, b: Cell) -> int:
    """How many diagonal steps the straight route from ``a`` to ``b`` takes."""
    if rule == "rectilinear":
        return 0
    return min(abs(b[0] - a[0]), abs(b[1] - a[1]))


def path_length(rule: str, points: Sequence[Cell]) -> float:
    """Metres along waypoints ``points`` (start first), no walls considered."""
    check_rule(rule)
    total, diagonals = 0.0, 0
    for a, b in pairwise(points):
        total += segment_cost(rule, a, b, diagonals)
        diagonals += diagonal_steps(rule, a, b)
    return total


def line(rule: str, a: Cell, b: Cell) -> list[Cell]:
    """Cells of the straight route from ``a`` to ``b``, both included.

    Rectilinear moves step along one axis at a time (a diagonal step is two
    steps there); the other rules may step diagonally.
    """
    (x0, y0), (x1, y1) = a, b
    dx, dy = x1 - x0, y1 - y0
    sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
    ax, ay = abs(dx), abs(dy)
    cells = [a]
    if rule == "rectilinear":
        ix = iy = 0
        while ix < ax or iy < ay:
            # Step along the axis whose next crossing comes first on the true line.
            if iy >= ay or (ix < ax and (2 * ix + 1) * ay < (2 * iy + 1) * ax):
                ix += 1
            else:
                iy += 1
            cells.append((x0 + sx * ix, y0 + sy * iy))
        return cells
    n = max(ax, ay)
    for i in range(1, n + 1):
        # Integer rounding of the true line, halves away from the start.
        cells.append((x0 + sx * ((2 * ax * i + n) // (2 * n)),
                      y0 + sy * ((2 * ay * i + n) // (2 * n))))
    return cells


def route(rule: str, points: Sequence[Cell]) -> list[Cell]:
    """Cells along the straight routes through waypoints ``points`` (start first)."""
    cells = [points[0]]
    for a, b in pairwise(points):
        cells.extend(line(rule, a, b)[1:])
    return cells


def step_cost(rule: str, a: Cell, b: Cell, diagonals_before: int) -> float:
    """Cost of one step between neighbouring cells."""
    diagonal = a[0] != b[0] and a[1] != b[1]
    if not diagonal:
        return 1.0
    if rule == "rectilinear":
        return 2.0
    if rule == "chebyshev":
        return 1.0
    if rule == "alternating":
        return 2.0 if diagonals_before % 2 else 1.0
    return SQRT2


def cells_cost(rule: str, cells: Sequence[Cell], diagonals_before: int = 0) -> float:
    """Metres walked along a route of neighbouring cells.

    ``diagonals_before`` carries the alternating rule's count across waypoints.
    """
    total, diagonals = 0.0, diagonals_before
    for a, b in pairwise(cells):
        total += step_cost(rule, a, b, diagonals)
        diagonals += a[0] != b[0] and a[1] != b[1]
    return total


def footprint(cell: Cell, size: int) -> list[Cell]:
    """Cells covered by a ``size``×``size`` token whose top-left cell is ``cell``."""
    x, y = cell
    return [(x + i, y + j) for j in range(size) for i in range(size)]


def gap(a: Cell, a_size: int, b: Cell, b_size: int) -> tuple[int, int]:
    """Cell steps between the nearest cells of two footprints, per axis (1 = adjacent)."""
    dx = max(0, b[0] - (a[0] + a_size - 1), a[0] - (b[0] + b_size - 1))
    dy = max(0, b[1] - (a[1] + a_size - 1), a[1] - (b[1] + b_size - 1))
    return dx, dy


def edge_distance(rule: str, a: Cell, a_size: int, b: Cell, b_size: int) -> float:
    """Metres between two footprints, edge to edge: adjacent tokens are 1 m apart.

    Reach r covers every token whose edge distance is at most r.

    >>> edge_distance("rectilinear", (0, 0), 2, (3, 0), 1)
    2.0
    """
    dx, dy = gap(a, a_size, b, b_size)
    return segment_cost(rule, (0, 0), (dx, dy))


NEIGHBOURS_4 = ((1, 0), (-1, 0), (0, 1), (0, -1))
NEIGHBOURS_8 = (*NEIGHBOURS_4, (1, 1), (1, -1), (-1, 1), (-1, -1))

#: ``blocked(a, b)`` says whether the step from cell ``a`` to neighbour ``b`` is barred.
StepTest = Callable[[Cell, Cell], bool]


@dataclass
class DistanceField:
    """Cheapest cost from one start cell to every cell within a budget, walls respected.

    Built once when a drag starts; each mouse move is then a lookup
    (``cost_to``) and a walk back (``path_to``).
    """

    rule: str
    start: Cell
    cost: dict[Cell, float]
    parent: dict[Cell, Cell]
    budget: float = math.inf

    def cost_to(self, cell: Cell) -> float | None:
        """Metres to ``cell``, or None when it cannot be reached within the budget."""
        return self.cost.get(cell)

    def path_to(self, cell: Cell) -> list[Cell] | None:
        """Cells from the start to ``cell`` on a cheapest route, or None."""
        if cell not in self.cost:
            return None
        cells = [cell]
        while cells[-1] != self.start:
            cells.append(self.parent[cells[-1]])
        cells.reverse()
        return cells


def distance_field(
    rule: str,
    start: Cell,
    budget: float,
    bounds: tuple[int, int],
    blocked: StepTest | None = None,
    diagonals_before: int = 0,
) -> DistanceField:
    """Dijkstra from ``start`` out to ``budget`` metres inside ``bounds`` (width, height)."""
    check_rule(rule)
    width, height = bounds
    steps = NEIGHBOURS_4 if rule == "rectilinear" else NEIGHBOURS_8
    alternating = rule == "alternating"
    # Under the alternating rule the cost of the next diagonal depends on how
    # many came before, so the search state is (cell, parity).
    best: dict[tuple[Cell, int], float] = {(start, diagonals_before % 2): 0.0}
    came: dict[tuple[Cell, int], tuple[Cell, int]] = {}
    heap: list[tuple[float, Cell, int]] = [(0.0, start, diagonals_before % 2)]
    eps = 1e-9
    # Each step's price and the parity after it, by the parity before: a field over a
    # big map takes hundreds of thousands of steps (a forecast's walled-off drag).
    moves = {parity: [(ddx, ddy, step_cost(rule, (0, 0), (ddx, ddy), parity),
                       (parity + (ddx != 0 and ddy != 0)) % 2 if alternating else 0)
                      for ddx, ddy in steps] for parity in (0, 1)}
    inf = math.inf
    pop, push, known = heapq.heappop, heapq.heappush, best.get
    while heap:
        d, cell, parity = pop(heap)
        if d > known((cell, parity), inf) + eps:
            continue
        x, y = cell
        for ddx, ddy, step, p in moves[parity]:
            nx, ny = x + ddx, y + ddy
            if not (0 <= nx < width and 0 <= ny < height):
                continue
            nxt = (nx, ny)
            if blocked is not None and blocked(cell, nxt):
                continue
            cost = d + step
            if cost > budget + eps:
                continue
            if cost + eps < known((nxt, p), inf):
                best[(nxt, p)] = cost
                came[(nxt, p)] = (cell, parity)
                push(heap, (cost, nxt, p))
    cost_of: dict[Cell, float] = {}
    parent: dict[Cell, Cell] = {}
    chosen: dict[Cell, tuple[Cell, int]] = {}
    for (cell, p), c in best.items():
        if c < cost_of.get(cell, math.inf):
            cost_of[cell] = c
            chosen[cell] = (cell, p)
    # Walk each chosen state's chain so path_to follows one consistent parity.
    for cell, state in chosen.items():
        prev = came.get(state)
        if prev is not None:
            parent[cell] = prev[0]
    if alternating:
        return _ParityField(rule, start, cost_of, parent, came, chosen, budget)
    return DistanceField(rule, start, cost_of, parent, budget)


class _ParityField(DistanceField):
    """A field whose paths follow the (cell, parity) chain of the alternating rule."""

    def __init__(
        self,
        rule: str,
        start: Cell,
        cost: dict[Cell, float],
        parent: dict[Cell, Cell],
        came: dict[tuple[Cell, int], tuple[Cell, int]],
        chosen: dict[Cell, tuple[Cell, int]],
        budget: float,
    ) -> None:
        super().__init__(rule, start, cost, parent, budget)
        self._came = came
        self._chosen = chosen

    def path_to(self, cell: Cell) -> list[Cell] | None:
        if cell not in self._chosen:
            return None
        state = self._chosen[cell]
        cells = [cell]
        while state in self._came:
            state = self._came[state]
            cells.append(state[0])
        cells.reverse()
        return cells


def parse_cell(text: str) -> Cell:
    """Read ``"3,4"`` as a cell, or raise RuleError with the reason."""
    parts = text.replace(" ", "").split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = int(parts[0]), int(parts[1])
    except ValueError:
        raise RuleError(f"{text!r} is not a cell; write it as X,Y with whole numbers") from None
    if max(abs(x), abs(y)) > 1_000_000:
        raise RuleError(f"cell {text} is too far out (limit ±1,000,000)")
    return (x, y)


def bounding(cells: Iterable[Cell]) -> tuple[int, int, int, int]:
    """(min x, min y, max x, max y) of some cells."""
    xs, ys = zip(*cells, strict=True)
    return min(xs), min(ys), max(xs), max(ys)
