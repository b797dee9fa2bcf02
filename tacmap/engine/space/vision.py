"""What the players' side sees: visibility polygons from token centres, and fog of war.

Each token sees from the centre of its footprint. Its visibility polygon is
cast against the walls that stop sight (``Walls.sight_walls``: walls, closed
doors and obstacles; never windows, open doors or low fences), clipped to the
map and, when it has one, to a circle of its sight range. The party sees the
union of the polygons of its shown tokens still in the fight (the ruleset's
``out_of_fight``).

Fog of war (``Encounter.fog``): shown now = (party sight + revealed) − hidden,
and ``explored`` grows by what is shown now through an ``Explored`` event the
referee adds to the command's own log entry (``explored_event``), so undoing a
move un-explores what it showed and replaying a log explores the same.

Areas are saved as rings of points snapped to 0.01 m (``to_area``); a file's
areas are checked by ``area_problem``.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import msgspec
import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry.base import BaseGeometry

from tacmap.engine.model.events import Explored
from tacmap.engine.model.records import Float
from tacmap.engine.model.state import (
    Area,
    Encounter,
    Fog,
    OutOfFight,
    Ring,
    Token,
    Wall,
    canonical_area,
    marked_dead,
    party_side,
)
from tacmap.engine.model.units import units_of
from tacmap.engine.space.geometry import Walls

#: Radians either side of a wall's end that a ray passes, to see past the corner.
EPS = 1e-5
#: Half the edge of the first box a viewer's walls are looked for in, in metres.
FIRST_BOX = 16.0
#: Explored grows only by more than this many square metres (not by snapping slivers).
MIN_GROWTH = 0.25
#: Grid that saved areas are snapped to, in metres.
SNAP = 0.01
#: Most corner points one fog area may hold in a file.
MAX_POINTS = 200_000
#: Most corner points of one polygon the GM reveals or hides by hand.
MAX_EDIT_POINTS = 1000
#: Smallest area the GM may reveal or hide by hand, in square metres.
MIN_EDIT_AREA = 0.25
#: Viewer polygons kept per set of walls before the cache starts afresh.
CACHE_SIZE = 4096

Viewer = tuple[int, int, int, float | None]
"""(column, row, footprint, sight range in metres or None): one token's eyes."""

EMPTY: BaseGeometry = shapely.Polygon()


class Sight:
    """Visibility polygons for one set of walls on one map size, cached per viewer."""

    def __init__(self, walls: Walls, width: int, height: int) -> None:
        self.size = (width, height)
        # Split where walls cross or meet mid-span, so every corner of the visible
        # area is the end of some segment a ray can be cast at.
        coords = noded(walls.sight_walls)
        if coords is None:
            # Past the limits only a state nothing checked gets here: rays still stop on
            # every wall, crossings are just not corners of their own.
            coords = wall_segments(walls.sight_walls)
        self.segments = coords
        self._lo = np.minimum(coords[:, :2], coords[:, 2:])
        self._hi = np.maximum(coords[:, :2], coords[:, 2:])
        self._cache: dict[Viewer, BaseGeometry] = {}
        #: The last party asked about, and the union of all but one of its viewers
        #: (the one that moved last): a drag re-unites two polygons, not eight.
        self._last: tuple[Viewer, ...] = ()
        self._rest: tuple[tuple[Viewer, ...], BaseGeometry] | None = None
        #: The last answer, by the eyes it was for.
        self._answer: tuple[tuple[Viewer, ...], BaseGeometry] | None = None

    def union(self, eyes: tuple[Viewer, ...]) -> BaseGeometry:
        """What the viewers see together."""
        if self._answer is not None and self._answer[0] == eyes:
            return self._answer[1]  # the referee, the GM map and the player view all ask
        polys = [self.of(v) for v in eyes]
        if not polys:
            return EMPTY
        if len(polys) == 1:
            return polys[0]
        last, self._last = self._last, eyes
        moved = [i for i, v in enumerate(eyes) if len(last) != len(eyes) or last[i] != v]
        if len(moved) == 1:
            i = moved[0]
            rest = eyes[:i] + eyes[i + 1:]
            if self._rest is None or self._rest[0] != rest:
                self._rest = (rest, shapely.union_all(polys[:i] + polys[i + 1:]))
            seen = self._rest[1].union(polys[i])
        else:
            seen = shapely.union_all(polys)
        self._answer = (eyes, seen)
        return seen

    def of(self, viewer: Viewer) -> BaseGeometry:
        """The area one viewer sees (cached: a one-cell move recomputes one viewer)."""
        found = self._cache.get(viewer)
        if found is None:
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()
            found = self._cache[viewer] = self._compute(viewer)
        return found

    def _compute(self, viewer: Viewer) -> BaseGeometry:
        x, y, size, reach = viewer
        px, py = x + size / 2, y + size / 2
        w, h = self.size
        # Cast in a box round the viewer; where what it sees reaches a side of the box
        # that is not the map's edge, cast again in a box twice as big, but only in
        # those directions and against the walls that lie in them.
        r = FIRST_BOX if reach is None else min(FIRST_BOX, reach)
        done_a: list[np.ndarray] = []
        done_p: list[np.ndarray] = []
        arcs: np.ndarray | None = None  # open directions: (start, length) rows; None: all
        while True:
            if reach is not None:
                r = min(r, reach)
            box = (max(0.0, px - r), max(0.0, py - r), min(float(w), px + r),
                   min(float(h), py + r))
            last = (reach is not None and r >= reach) or box == (0.0, 0.0, float(w), float(h))
            angles, points, out = self._cast(px, py, box, arcs, last)
            done_a.append(angles[~out])
            done_p.append(points[~out])
            if not out.any():
                break
            every = np.concatenate([*done_a, angles[out]])
            escaped = np.concatenate([np.zeros(len(every) - int(out.sum()), dtype=bool),
                                      np.ones(int(out.sum()), dtype=bool)])
            arcs = _open_arcs(every, escaped)
            r *= 2
        angles = np.concatenate(done_a)
        points = _lean(np.concatenate(done_p)[np.argsort(angles, kind="stable")])
        poly = shapely.Polygon(points) if len(points) >= 3 else EMPTY
        if not poly.is_valid:
            poly = _polygonal(shapely.make_valid(poly))
        if reach is not None:
            poly = poly.intersection(shapely.Point(px, py).buffer(reach, quad_segs=16))
        return poly

    def _cast(self, px: float, py: float, box: tuple[float, float, float, float],
              arcs: np.ndarray | None, last: bool
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rays from the viewer inside ``box`` (in the ``arcs`` directions, if given).

        Returns each ray's angle, where it stops, and whether it stopped on a side
        of the box that is not the map's edge (it must be cast again further).
        """
        x0, y0, x1, y1 = box
        w, h = self.size
        segs = self.segments
        if len(segs):
            near = (self._hi[:, 0] >= x0) & (self._lo[:, 0] <= x1) & \
                (self._hi[:, 1] >= y0) & (self._lo[:, 1] <= y1)
            segs = segs[near]
            if arcs is not None and len(segs):
                segs = segs[_overlaps(segs, px, py, arcs)]
            inside = (np.minimum(segs[:, 0], segs[:, 2]) >= x0) & \
                (np.maximum(segs[:, 0], segs[:, 2]) <= x1) & \
                (np.minimum(segs[:, 1], segs[:, 3]) >= y0) & \
                (np.maximum(segs[:, 1], segs[:, 3]) <= y1)
            if not inside.all():
                segs = np.vstack([segs[inside], _clip(segs[~inside], box)])
        edges = np.array([[x0, y0, x1, y0], [x1, y0, x1, y1], [x1, y1, x0, y1],
                          [x0, y1, x0, y0]])
        side_open = np.array([y0 > 0, x1 < w, y1 < h, x0 > 0]) & (not last)
        walls = len(segs)
        segs = np.vstack([segs, edges]) if walls else edges
        ends = np.vstack([segs[:, :2], segs[:, 2:]])
        dx, dy = ends[:, 0] - px, ends[:, 1] - py
        base = np.arctan2(dy[np.hypot(dx, dy) > 1e-9], dx[np.hypot(dx, dy) > 1e-9])
        angles = _distinct_sorted(np.concatenate([base - EPS, base, base + EPS]))
        angles = (angles + np.pi) % (2 * np.pi) - np.pi
        if arcs is not None:
            angles = angles[_inside(angles, arcs)]
        d = np.stack([np.cos(angles), np.sin(angles)], axis=1)
        which, t = _hits(d, angles, segs, walls, px, py)
        points = np.stack([px + t * d[:, 0], py + t * d[:, 1]], axis=1)
        out = (which >= walls) & side_open[np.clip(which - walls, 0, 3)]
        return angles, points, out


#: Most cells of one rays × segments table in ``Sight._cast`` (about 16 MB a float array).
_TABLE = 2_000_000


#: Rays cast together against the walls in their narrow wedge of directions, and walls
#: a wedge's rays are tried against at a time, nearest first.
_WEDGE = 256
#: Metres a ray may end short of a wall's nearest point (a hit a hair past a wall's end).
_SLACK = 1e-4


def _hits(d: np.ndarray, angles: np.ndarray, segs: np.ndarray, walls: int, px: float,
          py: float) -> tuple[np.ndarray, np.ndarray]:
    """The first of ``segs`` each ray meets, and how far: what ``_table`` answers.

    The rays go a wedge at a time against only the walls that wedge can meet (the box's
    sides, the rows past ``walls``, always), nearest walls first: a ray that stopped
    before the nearest wall left is done. Walls that cross a map, or lie side by side,
    then cost rays × the walls near them, not rays × every wall.
    """
    if walls <= _WEDGE or len(d) <= _WEDGE:
        return _table(d, segs, px, py)
    which, t = np.zeros(len(d), dtype=np.int64), np.zeros(len(d))
    order = np.argsort(angles, kind="stable")
    gap = _distance(segs, px, py)
    # A wall through the viewer, or ending a hair from it, has no sure wedge: always in.
    always = gap[:walls] <= 1e-6
    sides = np.arange(walls, len(segs))
    for start in range(0, len(order), _WEDGE):
        rays = order[start:start + _WEDGE]
        lo, hi = angles[rays[0]], angles[rays[-1]]
        near = always | _overlaps(segs[:walls], px, py, np.array([[lo, hi - lo]]))
        rows = np.concatenate([np.flatnonzero(near), sides])
        rows = rows[np.argsort(gap[rows], kind="stable")]
        best = np.full(len(rays), np.inf)
        first = np.full(len(rays), len(segs), dtype=np.int64)
        left = np.arange(len(rays))
        for b in range(0, len(rows), _WEDGE):
            # Sorted by index within a batch: equal distances go to the lowest row, as
            # one table over every segment would have it.
            batch = np.sort(rows[b:b + _WEDGE])
            w, h = _first_hits(d[rays[left]], segs[batch], px, py, keep_misses=True)
            w = batch[w]
            better = (h < best[left]) | ((h == best[left]) & (w < first[left]))
            best[left[better]], first[left[better]] = h[better], w[better]
            if b + _WEDGE >= len(rows):
                break
            left = left[best[left] >= gap[rows[b + _WEDGE]] - _SLACK]
            if not len(left):
                break
        hit = np.isfinite(best)
        which[rays], t[rays] = np.where(hit, first, 0), np.where(hit, best, 0.0)
    return which, t


def _table(d: np.ndarray, segs: np.ndarray, px: float, py: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """``_first_hits`` over a rays × segments table built a slice of rays at a time, so a
    box crowded with walls costs time, not gigabytes."""
    step = max(1, _TABLE // len(segs))
    found = [_first_hits(d[i:i + step], segs, px, py) for i in range(0, len(d), step)]
    which = np.concatenate([w for w, _ in found]) if found else np.zeros(0, dtype=np.int64)
    t = np.concatenate([h for _, h in found]) if found else np.zeros(0)
    return which, t


def _distance(segs: np.ndarray, px: float, py: float) -> np.ndarray:
    """How far each segment passes from (px, py)."""
    a, e = segs[:, :2], segs[:, 2:] - segs[:, :2]
    w = np.array([px, py]) - a
    k = np.clip((w * e).sum(axis=1) / np.maximum((e * e).sum(axis=1), 1e-300), 0, 1)
    gap = w - k[:, None] * e
    return np.hypot(gap[:, 0], gap[:, 1])  # type: ignore[no-any-return]


def _first_hits(d: np.ndarray, segs: np.ndarray, px: float, py: float,
                keep_misses: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """For rays from (px, py) in directions ``d``: the segment each meets first, and how far
    (0, or infinity with ``keep_misses``, for a ray that meets none)."""
    a, e = segs[:, :2], segs[:, 2:] - segs[:, :2]
    wx, wy = a[:, 0] - px, a[:, 1] - py
    denom = d[:, :1] * e[:, 1] - d[:, 1:] * e[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (wx * e[:, 1] - wy * e[:, 0]) / denom
        u = (wx * d[:, 1:] - wy * d[:, :1]) / denom
    hit = (np.abs(denom) > 1e-12) & (t > 1e-9) & (u >= -1e-9) & (u <= 1 + 1e-9)
    t = np.where(hit, t, np.inf)
    which = t.argmin(axis=1)
    t = t[np.arange(len(t)), which]
    return which, t if keep_misses else np.where(np.isfinite(t), t, 0.0)


def _distinct_sorted(values: np.ndarray) -> np.ndarray:
    """``np.unique`` of a 1-D array of finite numbers, without the masked-array check
    whose first call imports numpy.ma (some 20 ms; the demo's fog is cast before the
    window's first paint)."""
    out = np.sort(values)
    return out[np.concatenate(([True], out[1:] != out[:-1]))] if out.size else out


def _inside(angles: np.ndarray, arcs: np.ndarray) -> np.ndarray:
    """Which ``angles`` lie strictly inside one of the ``arcs`` (start, length)."""
    off = (angles[:, None] - arcs[None, :, 0]) % (2 * np.pi)
    return ((off > 0) & (off < arcs[None, :, 1])).any(axis=1)  # type: ignore[no-any-return]


def _overlaps(segs: np.ndarray, px: float, py: float, arcs: np.ndarray) -> np.ndarray:
    """Which segments, seen from (px, py), cover some direction of the ``arcs``."""
    a = np.arctan2(segs[:, 1] - py, segs[:, 0] - px)
    b = np.arctan2(segs[:, 3] - py, segs[:, 2] - px)
    d = (b - a + np.pi) % (2 * np.pi) - np.pi
    start = np.where(d >= 0, a, b)[:, None]
    length = np.abs(d)[:, None]
    lo, span = arcs[None, :, 0], arcs[None, :, 1]
    hit = ((lo - start) % (2 * np.pi) <= length + EPS) | \
        ((start - lo) % (2 * np.pi) <= span + EPS)
    return hit.any(axis=1)  # type: ignore[no-any-return]


def _open_arcs(angles: np.ndarray, escaped: np.ndarray) -> np.ndarray:
    """The arcs between settled rays that hold rays which escaped: (start, length) rows."""
    order = np.argsort(angles, kind="stable")
    angles, escaped = angles[order], escaped[order]
    settled = np.flatnonzero(~escaped)
    if len(settled) == 0:
        return np.array([[-np.pi, 2 * np.pi]])
    if len(settled) == 1:
        return np.array([[angles[settled[0]], 2 * np.pi]])
    following = np.roll(settled, -1)
    gap = (following - settled) % len(angles)
    wide = gap > 1
    start = angles[settled[wide]]
    length = (angles[following[wide]] - start) % (2 * np.pi)
    return np.stack([start, length], axis=1)


def _lean(points: np.ndarray) -> np.ndarray:
    """A ring without the points that lie on the line through their neighbours."""
    if len(points) < 4:
        return points
    step = np.hypot(*(points - np.roll(points, 1, axis=0)).T)
    if (step <= 1e-12).any() and (step > 1e-12).sum() >= 3:
        points = points[step > 1e-12]
    prev, nxt = np.roll(points, 1, axis=0), np.roll(points, -1, axis=0)
    cross = (points[:, 0] - prev[:, 0]) * (nxt[:, 1] - prev[:, 1]) - \
        (points[:, 1] - prev[:, 1]) * (nxt[:, 0] - prev[:, 0])
    # The sine of the turn at each point: tiny steps round a corner are turns too.
    span = np.hypot(points[:, 0] - prev[:, 0], points[:, 1] - prev[:, 1]) * \
        np.hypot(nxt[:, 0] - prev[:, 0], nxt[:, 1] - prev[:, 1])
    keep = np.abs(cross) > 1e-9 * np.maximum(span, 1e-300)
    return points[keep] if keep.sum() >= 3 else points


def _segments(lines: list[list[tuple[float, float]]]) -> np.ndarray:
    """The straight pieces of polylines as rows (x1, y1, x2, y2), zero-length ones dropped."""
    rows = [np.hstack([a[:-1], a[1:]]) for a in (np.asarray(line, dtype=float) for line in lines)
            if len(a) >= 2]
    segs = np.vstack(rows) if rows else np.zeros((0, 4))
    return segs[np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1]) > 1e-9]


#: Digits a segment's direction and its line's offset are compared to (collinear test).
_LINE_DIGITS = (9, 6)


def _distinct(segs: np.ndarray) -> np.ndarray:
    """``segs`` with each set of collinear, overlapping segments merged into one.

    Sight is blocked by the points the walls cover, so merging overlaps changes
    nothing a viewer sees; segments that only touch end to end stay apart.
    """
    if len(segs) < 2:
        return segs
    a, b = segs[:, :2], segs[:, 2:]
    # Each segment runs along +x (or +y when vertical): then a copy drawn backwards
    # is the same row, and its start has the smaller position along its line.
    flip = (b[:, 0] < a[:, 0]) | ((b[:, 0] == a[:, 0]) & (b[:, 1] < a[:, 1]))
    a, b = np.where(flip[:, None], b, a), np.where(flip[:, None], a, b)
    d = b - a
    u = d / np.hypot(d[:, 0], d[:, 1])[:, None]
    offset = u[:, 0] * a[:, 1] - u[:, 1] * a[:, 0]
    t1, t2 = (u * a).sum(axis=1), (u * b).sum(axis=1)
    key = np.column_stack([np.round(u, _LINE_DIGITS[0]), np.round(offset, _LINE_DIGITS[1])])
    _, line = np.unique(key, axis=0, return_inverse=True)
    line = line.ravel()
    order = np.lexsort((t1, line))
    line, t1, t2, a, b = line[order], t1[order], t2[order], a[order], b[order]
    # Along one line (sorted by start), a segment starts a new run unless it begins
    # before the furthest end reached so far; lines are kept apart by a stride far
    # beyond any map (positions along a line are within ±30,000 m).
    stride = 1e5
    reach = np.maximum.accumulate(t2 + line * stride) - line * stride
    new = np.ones(len(line), dtype=bool)
    new[1:] = (line[1:] != line[:-1]) | (t1[1:] >= reach[:-1])
    run = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    if len(starts) == len(segs):
        return segs
    # A run spans from its first start to the end of the segment that reaches furthest.
    last = np.lexsort((t2, run))
    ends = last[np.r_[np.flatnonzero(np.diff(run[last])), len(last) - 1]]
    return np.hstack([a[starts], b[ends]])


#: Most pairs of wall segments that come within ``NEAR`` metres of each other (their
#: boxes do): past it the walls are refused (``walls_problem``) before noding's work grows
#: with their square. Walls packed that densely, crossing or side by side, also make
#: rays graze hundreds of walls each.
MAX_NEAR_PAIRS = 2_000_000
#: Metres within which two wall segments are counted as near each other.
NEAR = 2.0
#: Most pieces the walls may make once split where they cross: the sight index (every
#: piece's ends are rays cast from each viewer) stays within seconds and memory.
MAX_PIECES = 20_000
#: Pairs of segments looked at in one go while noding (a few tens of MB of arrays).
_PAIR_CHUNK = 500_000
#: Metres within which a crossing is a wall's own end, not a new corner.
_TOUCH = 1e-9


def wall_segments(walls: Sequence[Wall]) -> np.ndarray:
    """The straight pieces of ``walls`` (an obstacle's outline closed), copies and
    collinear overlaps merged: rows (x1, y1, x2, y2)."""
    lines = [[*w.points, w.points[0]] if w.closed and w.points[0] != w.points[-1]
             else list(w.points) for w in walls]
    return _distinct(_segments(lines))


class _Noding(NamedTuple):
    segments: np.ndarray | None
    """The noded segments, or None past a limit."""
    problem: str | None
    """Why the walls are refused, or None."""


_NODED: list[tuple[Sequence[Wall], _Noding]] = []


def walls_problem(walls: Sequence[Wall]) -> str | None:
    """Why these walls cannot all stand on one map, or None: too many meet or cross."""
    return _node(walls).problem


def noded(walls: Sequence[Wall]) -> np.ndarray | None:
    """``walls`` as segments split wherever they cross or meet mid-span (noded once per
    set of walls), or None when ``walls_problem`` refuses them."""
    return _node(walls).segments


def _node(walls: Sequence[Wall]) -> _Noding:
    # The file check, the referee and then the map's sight all ask about the same walls.
    for known, found in _NODED:
        if known is walls or (len(known) == len(walls) and known == walls):
            return found
    found = _split(wall_segments(walls))
    _NODED[:] = [(walls, found), *_NODED[:1]]
    return found


def _split(segs: np.ndarray) -> _Noding:
    """Segments split at every point where another crosses or touches them mid-span.

    In numpy, rather than GEOS's ``node``: a thousand walls through one point made it
    iterate to gigabytes and then fail; here each pair of segments that meet adds one
    point to each, and points that coincide along a segment split it once. The pairs
    looked at and the pieces made are bounded, so hostile walls are refused, not drawn.
    """
    n = len(segs)
    if n > MAX_PIECES:
        return _Noding(None, _too_many_pieces())
    if n < 2:
        return _Noding(segs, None)
    lo, hi = np.minimum(segs[:, :2], segs[:, 2:]), np.maximum(segs[:, :2], segs[:, 2:])
    tree = STRtree(shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]))
    pad = np.array([-NEAR, -NEAR, NEAR, NEAR])
    boxes = shapely.box(*(np.hstack([lo, hi]) + pad).T)
    chunk = max(1, _PAIR_CHUNK // n)
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    near = 0
    where: list[np.ndarray] = []  # rows (segment, position along it 0..1, x, y)
    for start in range(0, n, chunk):
        i, j = tree.query(boxes[start:start + chunk])
        i = i + start
        keep = i < j
        i, j = i[keep], j[keep]
        near += len(i)
        if near > MAX_NEAR_PAIRS:
            return _Noding(None, "the walls lie too densely, across or alongside each other, "
                                 f"to work out sight (more than {MAX_NEAR_PAIRS:,} pairs of "
                                 f"wall pieces within {NEAR:g} m of each other)")
        # Kept distinct as they come: a thousand walls through one point meet a million
        # times at one point of each.
        where = [_once(np.vstack([*where, *_meetings(segs, i, j)]), length)]
        if n + len(where[0]) > MAX_PIECES:
            return _Noding(None, _too_many_pieces())
    rows = where[0] if where else np.zeros((0, 4))
    ends = np.column_stack([np.arange(n), np.zeros(n), segs[:, :2]])
    tails = np.column_stack([np.arange(n), np.ones(n), segs[:, 2:]])
    points = np.vstack([ends, rows, tails])
    points = points[np.lexsort((points[:, 1], points[:, 0]))]
    same = points[1:, 0] == points[:-1, 0]  # consecutive points of one segment: a piece
    out = np.hstack([points[:-1, 2:][same], points[1:, 2:][same]])
    return _Noding(out[np.hypot(out[:, 2] - out[:, 0], out[:, 3] - out[:, 1]) > _TOUCH], None)


def _once(rows: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Rows (segment, position, x, y) sorted along each segment, points a hair apart
    along one segment kept once."""
    rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))]
    gap = np.diff(rows[:, 1]) * length[rows[1:, 0].astype(np.int64)]
    fresh = np.ones(len(rows), dtype=bool)
    fresh[1:] = (rows[1:, 0] != rows[:-1, 0]) | (gap > _TOUCH)
    return rows[fresh]


def _too_many_pieces() -> str:
    return (f"the walls make more than {MAX_PIECES:,} straight pieces once split where they "
            "cross, too many to work out sight")


def _meetings(segs: np.ndarray, i: np.ndarray, j: np.ndarray) -> list[np.ndarray]:
    """Where segments ``i`` and ``j`` meet strictly inside one of them: rows (segment,
    position along it, x, y), one for each segment the point splits."""
    p, r = segs[i, :2], segs[i, 2:] - segs[i, :2]
    q, s = segs[j, :2], segs[j, 2:] - segs[j, :2]
    rl, sl = np.hypot(r[:, 0], r[:, 1]), np.hypot(s[:, 0], s[:, 1])
    qp = q - p
    rxs = r[:, 0] * s[:, 1] - r[:, 1] * s[:, 0]
    out: list[np.ndarray] = []
    crossing = np.abs(rxs) > 1e-12 * rl * sl
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (qp[:, 0] * s[:, 1] - qp[:, 1] * s[:, 0]) / rxs
        u = (qp[:, 0] * r[:, 1] - qp[:, 1] * r[:, 0]) / rxs
    meet = crossing & (t * rl >= -_TOUCH) & ((1 - t) * rl >= -_TOUCH) & \
        (u * sl >= -_TOUCH) & ((1 - u) * sl >= -_TOUCH)
    at = p + np.clip(t, 0, 1)[:, None] * r  # the one point both segments are split at
    for seg, pos, full in ((i, t, rl), (j, u, sl)):
        inner = meet & (pos * full > _TOUCH) & ((1 - pos) * full > _TOUCH)
        out.append(np.column_stack([seg[inner], pos[inner], at[inner]]))
    # Collinear pairs (their overlaps are merged already) split where one's end lies
    # inside the other.
    line = ~crossing & (np.abs(qp[:, 0] * r[:, 1] - qp[:, 1] * r[:, 0]) <= _TOUCH * rl)
    for seg, a, d, full, other in ((i, p, r, rl, (q, q + s)), (j, q, s, sl, (p, p + r))):
        for end in other:
            pos = ((end - a) * d).sum(axis=1) / full**2
            inner = line & (pos * full > _TOUCH) & ((1 - pos) * full > _TOUCH)
            out.append(np.column_stack([seg[inner], pos[inner], end[inner]]))
    return out


def _clip(segs: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """Segments cut to ``box`` (Liang–Barsky), those outside it dropped."""
    x0, y0, x1, y1 = box
    ax, ay, bx, by = segs[:, 0], segs[:, 1], segs[:, 2], segs[:, 3]
    dx, dy = bx - ax, by - ay
    lo, hi = np.zeros(len(segs)), np.ones(len(segs))
    keep = np.ones(len(segs), dtype=bool)
    for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
        parallel = np.abs(p) < 1e-12
        keep &= ~(parallel & (q < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = q / p
        lo = np.where(~parallel & (p < 0), np.maximum(lo, r), lo)
        hi = np.where(~parallel & (p > 0), np.minimum(hi, r), hi)
    keep &= lo <= hi
    lo, hi = lo[keep], hi[keep]
    ax, ay, dx, dy = ax[keep], ay[keep], dx[keep], dy[keep]
    return np.stack([ax + lo * dx, ay + lo * dy, ax + hi * dx, ay + hi * dy], axis=1)


def _polygonal(geom: BaseGeometry) -> BaseGeometry:
    parts = [g for g in shapely.get_parts(geom) if g.geom_type in ("Polygon", "MultiPolygon")]
    return shapely.union_all(parts) if parts else EMPTY


_SIGHTS: weakref.WeakKeyDictionary[Walls, Sight] = weakref.WeakKeyDictionary()


def sight_of(walls: Walls, width: int, height: int) -> Sight:
    """The cached ``Sight`` for these walls on a map of this size."""
    found = _SIGHTS.get(walls)
    if found is None or found.size != (width, height):
        found = _SIGHTS[walls] = Sight(walls, width, height)
    return found


# --- the party's eyes ---------------------------------------------------------------


def sight_range(state: Encounter, token: Token) -> float | None:
    """How far ``token`` sees, in cells: its ``sight`` stat, else the encounter's default.

    Both are in the ruleset's unit (``sight = 60`` is 12 cells on 5-foot squares).
    """
    cell = units_of(state.ruleset).cell_size
    value = token.stats.get("sight")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value) / cell
    return None if state.fog.sight is None else state.fog.sight / cell


def viewers(state: Encounter, out: OutOfFight = marked_dead) -> tuple[Viewer, ...]:
    """The eyes of the players' side: its tokens still in the fight (not ``out``, the
    ruleset's ``out_of_fight``) and not hidden from the table."""
    party = party_side(state)
    return tuple((t.x, t.y, t.size, sight_range(state, t)) for t in state.tokens.values()
                 if t.side == party and not t.hidden and not out(t))


def party_sight(state: Encounter, walls: Walls, out: OutOfFight = marked_dead
                ) -> BaseGeometry:
    """The union of what the players' side's tokens see now."""
    sight = sight_of(walls, state.map.width, state.map.height)
    return sight.union(tuple(dict.fromkeys(viewers(state, out))))


def shown_now(state: Encounter, walls: Walls, out: OutOfFight = marked_dead) -> BaseGeometry:
    """What the table is shown now: (party sight + revealed) − hidden."""
    fog = state.fog
    shown = party_sight(state, walls, out)
    if fog.revealed:
        shown = shown.union(area_shape(fog.revealed))
    if fog.hidden:
        shown = shown.difference(area_shape(fog.hidden))
    return shown


def unseen_tokens(state: Encounter, shown: BaseGeometry) -> frozenset[str]:
    """Tokens of other sides that nothing shown now touches: the table cannot see them."""
    party = party_side(state)
    shapely.prepare(shown)
    out = set()
    for t in state.tokens.values():
        if t.side == party:
            continue
        # A hair inside the footprint: a token is not seen by the edge of a wall alone.
        box = shapely.box(t.x + 0.05, t.y + 0.05, t.x + t.size - 0.05, t.y + t.size - 0.05)
        if not shown.intersects(box):
            out.add(t.id)
    return frozenset(out)


def explored_event(state: Encounter, walls: Walls, out: OutOfFight = marked_dead
                   ) -> Explored | None:
    """An ``Explored`` event when what is shown now adds to ``explored``, else None.

    The referee calls this after every command while fog is on; it answers None
    at once when nothing that moves the party's eyes changed since last time.
    """
    fog = state.fog
    if not fog.enabled:
        return None
    key = (viewers(state, out), state.map.width, state.map.height)
    memo = _LAST.get(walls)
    if memo is not None and memo[0] == key and memo[1] is fog:
        return None
    _LAST[walls] = (key, fog)
    shown = shown_now(state, walls, out)
    if shown.is_empty:
        return None
    old = area_shape(fog.explored)
    grown = shown.difference(old) if not old.is_empty else shown
    if grown.area <= MIN_GROWTH:
        return None
    new = to_area(old.union(shown) if not old.is_empty else shown)
    if new == fog.explored:
        return None
    return Explored(fog.explored, new)


_LAST: weakref.WeakKeyDictionary[Walls, tuple[object, Fog]] = weakref.WeakKeyDictionary()


# --- areas as saved -------------------------------------------------------------------


_SHAPES: dict[int, tuple[Area, BaseGeometry]] = {}


def area_shape(area: Area) -> BaseGeometry:
    """A saved area as a shapely geometry (cached on the area's identity)."""
    found = _SHAPES.get(id(area))
    if found is not None and found[0] is area:
        return found[1]
    if len(_SHAPES) > 64:
        _SHAPES.clear()
    polys = [shapely.Polygon(rings[0], rings[1:]) for rings in area if rings]
    geom: BaseGeometry = EMPTY if not polys else \
        polys[0] if len(polys) == 1 else shapely.MultiPolygon(polys)
    _SHAPES[id(area)] = (area, geom)
    return geom


def to_area(geom: BaseGeometry) -> Area:
    """A geometry as a saved area: simplified, snapped to 0.01 m, polygons only."""
    if geom.is_empty:
        return ()
    # Snapping can leave points on a straight edge (a ray's end 1 mm off the map's
    # side): simplify again, by nothing, so the same area is saved the same way.
    tolerance = SNAP / 2
    raw = geom
    geom = shapely.simplify(shapely.set_precision(shapely.simplify(raw, tolerance), SNAP), 0)
    while shapely.get_num_coordinates(geom) > MAX_POINTS:
        # Whatever is saved must load (``area_problem``): coarser, never refused.
        tolerance *= 2
        geom = shapely.simplify(shapely.set_precision(shapely.simplify(raw, tolerance), SNAP),
                                0)
    out = []
    for part in shapely.get_parts(geom):
        if part.geom_type == "MultiPolygon":
            polys = list(shapely.get_parts(part))
        elif part.geom_type == "Polygon":
            polys = [part]
        else:
            continue
        for poly in polys:
            if poly.is_empty or poly.area <= 0:
                continue
            shell = shapely.orient_polygons(poly) if hasattr(shapely, "orient_polygons") \
                else poly
            out.append((_ring(shell.exterior.coords),
                        *(_ring(h.coords) for h in shell.interiors)))
    # A union or difference starts its rings wherever its history left them: saved in one
    # form, the same area is the same state and the same bytes.
    return canonical_area(tuple(out))


def _ring(coords: Iterable[tuple[float, float]]) -> Ring:
    points = [(round(x, 2) + 0.0, round(y, 2) + 0.0) for x, y in coords]
    return tuple(points[:-1])


def area_problem(area: Area, width: int, height: int, limit: int = MAX_POINTS) -> str | None:
    """Why ``area`` cannot be a fog area on a ``width``×``height`` m map, or None."""
    count = 0
    for rings in area:
        if not rings:
            return "a polygon needs an outer ring"
        for ring in rings:
            if len(ring) < 3:
                return "a ring needs at least three points"
            count += len(ring)
            if count > limit:
                return f"it has more than {limit:,} points"
            for x, y in ring:
                if not (0 <= x <= width and 0 <= y <= height):
                    return f"the point ({x:g}, {y:g}) is off the {width}×{height} m map"
    geom = area_shape(area)
    if not geom.is_empty and not geom.is_valid:
        return f"its polygons cross themselves or each other ({shapely.is_valid_reason(geom)})"
    return None


def edit_polygon(points: tuple[tuple[Float, Float], ...], width: int, height: int
                 ) -> BaseGeometry:
    """The polygon a GM's reveal or hide asks for, or ValueError with the reason."""
    if len(points) < 3:
        raise ValueError("an area needs at least three corners")
    if len(points) > MAX_EDIT_POINTS:
        raise ValueError(f"an area of {len(points)} corners has too many "
                         f"(at most {MAX_EDIT_POINTS})")
    for x, y in points:
        if not (math.isfinite(x) and math.isfinite(y) and 0 <= x <= width and 0 <= y <= height):
            raise ValueError(f"the corner ({x:g}, {y:g}) is off the {width}×{height} m map")
    poly = shapely.Polygon(points)
    if not poly.is_valid:
        raise ValueError("the area's edges cross each other")
    if poly.area < MIN_EDIT_AREA:
        raise ValueError(f"an area of {poly.area:.2g} m² is too small (at least "
                         f"{MIN_EDIT_AREA:g} m²)")
    return poly


def with_fog(fog: Fog, **changes: object) -> Fog:
    """``fog`` with some fields changed."""
    return msgspec.structs.replace(fog, **changes)
