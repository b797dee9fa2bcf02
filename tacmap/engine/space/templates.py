"""Area templates: the cells a circle, cone, line or square covers, and the tokens in it.

A template (``tacmap.engine.model.state.Template``) is measured from the centre of
its origin cell under the encounter's diagonal rule, as moves are:

- circle: cells whose distance from the origin is at most the radius;
- cone: cells other than the origin within the length, whose centre lies within
  half the angle of the direction to ``toward``;
- line: cells other than the origin within the length, whose centre lies within
  half the width of the ray from the origin's centre toward ``toward``;
- square: ``size``×``size`` cells with the origin in one corner, growing toward
  ``toward`` (right and down without one).

A cell whose centre a sight-blocking wall cuts off from the origin's centre is
out (a wall that blocks sight blocks the effect); so are cells off the map.

>>> from tacmap.engine.model.state import Encounter, Template
>>> sorted(cells(Template("circle", (5, 5), 1), Encounter("x", diagonal="rectilinear")))
[(4, 5), (5, 4), (5, 5), (5, 6), (6, 5)]
"""

from __future__ import annotations

import math

import shapely

from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import TemplatePlaced, TemplateRemoved
from tacmap.engine.model.state import SHAPES, Cell, Encounter, Placed, Template
from tacmap.engine.space import grid
from tacmap.engine.space.geometry import Walls

#: Largest size (radius, length, side) and width of a template, in cells.
MAX_SIZE = 100
#: Most templates an encounter keeps on the map at once.
MAX_PLACED = 1000
#: Slack for centres that lie exactly on an edge of a cone or a line (they count in).
EPS = 1e-9


def template_problem(t: Template, width: int, height: int) -> str | None:
    """Why ``t`` cannot stand on a ``width``×``height`` map, in one sentence, or None."""
    if t.shape not in SHAPES:
        return f"there is no template shape {t.shape!r} (there are {', '.join(SHAPES)})"
    if not 1 <= t.size <= MAX_SIZE:
        return f"a template's size must be 1 to {MAX_SIZE} cells, not {t.size}"
    if not 1 <= t.width <= MAX_SIZE:
        return f"a line's width must be 1 to {MAX_SIZE} cells, not {t.width}"
    if not 1 <= t.angle <= 360:
        return f"a cone's angle must be 1° to 360°, not {t.angle:g}°"
    x, y = t.origin
    if not (0 <= x < width and 0 <= y < height):
        return f"the template's origin ({x},{y}) is off the {width}×{height} map"
    if t.shape in ("cone", "line") and (t.toward is None or t.toward == t.origin):
        return f"a {t.shape} needs a direction: a cell other than its origin to point at"
    if t.toward is not None and max(abs(t.toward[0]), abs(t.toward[1])) > 1_000_000:
        return "the template points at a cell too far out (limit ±1,000,000)"
    return None


def cells(t: Template, state: Encounter, walls: Walls | None = None) -> set[Cell]:
    """The cells ``t`` covers on ``state``'s map (``walls``: the map's, if already indexed)."""
    problem = template_problem(t, state.map.width, state.map.height)
    if problem:
        raise ValueError(problem)
    out = _shape_cells(t, state.diagonal)
    out = {(x, y) for x, y in out if 0 <= x < state.map.width and 0 <= y < state.map.height}
    if state.map.walls:
        out = _in_sight(t.origin, out, walls if walls is not None else Walls(state.map.walls))
    return out


def tokens_inside(t: Template, state: Encounter, walls: Walls | None = None,
                  covered: set[Cell] | None = None) -> list[str]:
    """Ids of the tokens with any footprint cell in ``t``, in the encounter's token order.

    ``covered``: the template's cells, when already found.
    """
    area = covered if covered is not None else cells(t, state, walls)
    if not area:
        return []
    x0, y0, x1, y1 = grid.bounding(area)
    return [tok.id for tok in state.tokens.values()
            if tok.x <= x1 and tok.y <= y1 and tok.x + tok.size > x0 and tok.y + tok.size > y0
            and any(c in area for c in grid.footprint(tok.cell, tok.size))]


def placement(state: Encounter, t: Template, label: str, id: str = "",
              walls: Walls | None = None) -> TemplatePlaced:
    """The event that leaves ``t`` on the map as ``label``, or RuleError with the reason.

    An empty ``id`` takes the next free ``t1``, ``t2`` …
    """
    problem = template_problem(t, state.map.width, state.map.height)
    if problem:
        raise RuleError(problem)
    label = label.strip()
    if not label:
        raise RuleError("a template on the map needs a label")
    if len(label) > 200:
        raise RuleError(f"a label of {len(label)} characters is too long (at most 200)")
    taken = {p.id for p in state.templates}
    if len(taken) >= MAX_PLACED:
        raise RuleError(f"the map already holds {MAX_PLACED} templates: remove some first")
    if id and id in taken:
        raise RuleError(f"there is already a template {id!r}")
    if id and len(id) > 64:
        raise RuleError("a template id must be 1 to 64 characters")
    if not id:
        n = len(state.templates) + 1
        while f"t{n}" in taken:
            n += 1
        id = f"t{n}"
    return TemplatePlaced(Placed(id, label, t), tuple(tokens_inside(t, state, walls)))


def removal(state: Encounter, id: str) -> TemplateRemoved:
    """The event that takes template ``id`` off the map, or RuleError naming it."""
    for i, p in enumerate(state.templates):
        if p.id == id:
            return TemplateRemoved(p, i)
    raise RuleError(f"there is no template {id!r} on the map")


def placed_problem(state: Encounter) -> str | None:
    """Why the templates on ``state``'s map could not have been placed, or None."""
    if len(state.templates) > MAX_PLACED:
        return f"{len(state.templates)} templates are more than the {MAX_PLACED} a map holds"
    seen: set[str] = set()
    for i, p in enumerate(state.templates):
        where = f"templates[{i}]"
        if not p.id or len(p.id) > 64:
            return f"{where}: a template id must be 1 to 64 characters"
        if p.id in seen:
            return f"{where}: template id {p.id!r} is used twice"
        seen.add(p.id)
        problem = template_problem(p.template, state.map.width, state.map.height)
        if problem:
            return f"{where}: {problem}"
    return None


def _shape_cells(t: Template, rule: str) -> set[Cell]:
    ox, oy = t.origin
    n = t.size
    if t.shape == "square":
        tx, ty = t.toward if t.toward is not None else (ox + 1, oy + 1)
        sx = -1 if tx < ox else 1
        sy = -1 if ty < oy else 1
        return {(ox + sx * i, oy + sy * j) for i in range(n) for j in range(n)}
    near = [(ox + dx, oy + dy) for dx in range(-n, n + 1) for dy in range(-n, n + 1)
            if grid.segment_cost(rule, (0, 0), (dx, dy)) <= n + EPS]
    if t.shape == "circle":
        return set(near)
    assert t.toward is not None
    vx, vy = t.toward[0] - ox, t.toward[1] - oy
    norm = math.hypot(vx, vy)
    ux, uy = vx / norm, vy / norm
    out: set[Cell] = set()
    if t.shape == "cone":
        cos_half = math.cos(math.radians(t.angle) / 2)
        for x, y in near:
            dx, dy = x - ox, y - oy
            if (dx, dy) != (0, 0) and (dx * ux + dy * uy) >= cos_half * math.hypot(dx, dy) - EPS:
                out.add((x, y))
        return out
    half = t.width / 2
    for x, y in near:
        dx, dy = x - ox, y - oy
        along = dx * ux + dy * uy
        across = abs(dx * uy - dy * ux)
        if along > EPS and across <= half + EPS:
            out.add((x, y))
    return out


def _in_sight(origin: Cell, area: set[Cell], walls: Walls) -> set[Cell]:
    """The cells of ``area`` whose centre no sight-blocking wall cuts off from ``origin``'s."""
    if not area:
        return area
    x0, y0, x1, y1 = grid.bounding(area)
    box = shapely.box(min(x0, origin[0]), min(y0, origin[1]),
                      max(x1, origin[0]) + 1, max(y1, origin[1]) + 1)
    if not len(walls.sight_tree.query(box, predicate="intersects")):
        return area  # no wall near: nothing to test one by one
    ordered = [c for c in area if c != origin]
    hidden = walls.sight_blocked_from(origin, ordered)
    return {c for c, h in zip(ordered, hidden, strict=True) if not h} | (area & {origin})


def describe(t: Template, unit: str = "") -> str:
    """A template in a few words (``"cone, length 6, 90°"``; ``unit`` follows the size)."""
    what = {"circle": "radius", "cone": "length", "line": "length", "square": "side"}.get(
        t.shape, "size")
    extra = f", {t.angle:g}°" if t.shape == "cone" else \
        f", {t.width} wide" if t.shape == "line" else ""
    return f"{t.shape}, {what} {t.size}{' ' + unit if unit else ''}{extra}"
