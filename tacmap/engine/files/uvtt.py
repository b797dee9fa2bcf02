"""Universal VTT maps (``.dd2vtt``, ``.uvtt``, ``.df2vtt``): the image, the grid, walls and doors.

Dungeondraft, DungeonFog, Arkenforge and Dungeon Alchemist export one JSON
file (format 0.2, 0.3, or 1.0 in the same shape) whose positions are all in
grid cells:

- ``resolution.map_origin`` is the file's cell that becomes the map's corner
  (0, 0); ``resolution.map_size`` the map's size in cells (rounded up);
  ``resolution.pixels_per_grid`` the image's scale;
- ``line_of_sight`` and ``objects_line_of_sight`` are polylines that become
  walls (sight and movement blocked);
- ``portals`` are doors: ``bounds`` gives the two ends, ``closed`` whether it
  starts closed; a ``freestanding`` one is a door in open space (the same door
  here);
- ``image`` is the map image, base64 PNG or WebP, told by its first bytes and
  measured from its header under the map image's pixel limit;
- ``lights`` and ``environment`` are kept as read in ``Encounter.map_extras``
  and not drawn.

Walls are cut into segments, clipped to the map, cut where a door lies along
them, deduplicated (either direction) and joined back into polylines where
exactly two meet, with a note for what was clipped or cut. A bad file raises one
``InputError`` sentence naming the field and the problem, before anything is
written. The file is split into its top-level fields without decoding them, and
each list is counted before it is decoded, so a file over the limits is refused
at about the memory of its bytes. No Qt here: the window and the command line
share it.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import math
import os
import struct
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import msgspec

from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import MAX_WALL_POINTS, MAX_WALLS, Encounter, MapSpec, Wall
from tacmap.engine.model.words import plural
from tacmap.engine.rules.dice import fresh_seed
from tacmap.engine.rules.ruleset import Registry, Ruleset

#: File name endings the map makers use.
SUFFIXES = (".dd2vtt", ".uvtt", ".df2vtt")
#: Format versions read (1.0 files keep the 0.3 shape).
FORMATS = (0.2, 0.3, 1.0)
#: Largest file read, in bytes (a 64-megapixel PNG in base64 fits).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Largest map image in pixels: the same limit as any map image (``tacmap.ui.images``).
MAP_PIXELS = 64_000_000
#: Wall points read from one file before joining (a hundred per wall at the limit).
MAX_POINTS = 100 * MAX_WALLS
#: Positions are snapped to this fraction of a cell, so that ends that meet are one point.
SNAP = 1000
#: How far off a wall's line (in cells) a door may lie and still cut that wall: map makers
#: put both on the same grid, so this only absorbs their rounding.
DOOR_TOLERANCE = 0.01
#: The dialog filter for these files.
FILTER = "Universal VTT maps (*.dd2vtt *.uvtt *.df2vtt);;All files (*)"

Point = tuple[float, float]
Segment = tuple[Point, Point]


class _Point(msgspec.Struct, gc=False):
    """A file's point as decoded on the fast path (a third of a dict's memory)."""

    x: float
    """Cells right of the file's origin."""
    y: float
    """Cells down from the file's origin."""


class _Portal(msgspec.Struct, gc=False):
    """A file's portal as decoded on the fast path; its other fields are skipped unread."""

    bounds: list[_Point]
    """The door's two ends."""
    closed: bool = True
    """Whether it starts closed."""


@dataclass
class Imported:
    """What a Universal VTT file holds, in tacmap's terms (cells from the map's corner)."""

    width: int
    """Map width in cells."""
    height: int
    """Map height in cells."""
    walls: tuple[Wall, ...]
    """Walls, then doors, clipped to the map."""
    scale: float
    """Metres (cells) per image pixel: 1 / pixels_per_grid."""
    image: bytes | None = None
    """The image file's bytes (PNG or WebP), None when the file has none."""
    image_type: str = ""
    """``"png"`` or ``"webp"`` (the file name's ending)."""
    image_size: tuple[int, int] = (0, 0)
    """The image's pixels, from its header."""
    extras: dict[str, Any] = field(default_factory=dict)
    """What is kept but not drawn: format, lights, environment."""
    notes: list[str] = field(default_factory=list)
    """What the GM should know (walls clipped, an image larger than the map)."""

    @property
    def doors(self) -> int:
        """How many doors."""
        return sum(1 for w in self.walls if w.kind == "door")

    def summary(self) -> str:
        """One line: size, walls, doors, image."""
        image = f", a {self.image_size[0]}×{self.image_size[1]} {self.image_type.upper()} image" \
            if self.image is not None else ", no image"
        return (f"{self.width}×{self.height} cells, "
                f"{plural(len(self.walls) - self.doors, 'wall')}, "
                f"{plural(self.doors, 'door')}{image}")


def read_file(path: str | Path) -> Imported:
    """Read a Universal VTT file; one InputError sentence naming the file if it is bad."""
    path = Path(path)
    raw = storage.read_bytes(path, MAX_FILE_BYTES, "a Universal VTT map")
    try:
        return read(raw)
    except InputError as err:
        raise InputError(f"{path}: {err}") from None


def read(raw: bytes) -> Imported:
    """Read a Universal VTT file's bytes."""
    if raw.startswith(records.BOM):
        raw = raw[len(records.BOM):]
    if not raw or raw.isspace():
        raise InputError("the file is empty, not a Universal VTT map")
    try:
        # Each field stays a view of ``raw`` until it has been counted (the nesting is
        # checked here, for the whole file).
        parts = msgspec.json.decode(raw, type=dict[str, msgspec.Raw])
    except msgspec.ValidationError:
        raise InputError("not a Universal VTT map: the JSON is not an object") from None
    except msgspec.DecodeError:
        raise InputError("not JSON, so not a Universal VTT map (.dd2vtt, .uvtt, .df2vtt)") \
            from None
    except RecursionError:
        raise InputError("the JSON is nested too deeply") from None
    fmt = _any(parts, "format", 0.3)
    if isinstance(fmt, bool) or not isinstance(fmt, int | float) or \
            not any(abs(fmt - f) < 1e-9 for f in FORMATS):
        raise InputError(f"format: {fmt!r} is not a Universal VTT version tacmap reads "
                         f"(0.2, 0.3 or 1.0)")
    origin, size, ppg = _resolution(_any(parts, "resolution", None))
    width, height = math.ceil(size[0] - 1e-6), math.ceil(size[1] - 1e-6)
    notes: list[str] = []
    segments: list[tuple[Segment, int]] = []
    clipped_lines: set[int] = set()
    for n, (where, line) in enumerate(_lines(parts)):
        points = _points(line, where, origin)
        if len(points) < 2:
            raise InputError(f"{where}: a wall needs at least two points, this one "
                             f"has {len(points)}")
        for a, b in pairwise(points):
            cut = _clip(a, b, width, height)
            if cut != (a, b):
                clipped_lines.add(n)
            if cut is not None:
                segments.append((cut, n))
    clipped = len(clipped_lines)
    doors: dict[Segment, tuple[Segment, bool]] = {}
    for i, portal in enumerate(_portals(parts)):
        a, b, closed = _portal(portal, f"portals[{i}]", origin)
        cut = _clip(a, b, width, height)
        if cut != (a, b):
            clipped += 1
        if cut is not None:
            doors.setdefault(_key(*cut), (cut, closed))
    kept, at_doors = cut_at_doors(segments, list(doors))
    walls = [Wall(line) for line in join(kept)]
    walls.extend(Wall(cut, kind="door", open=not closed) for cut, closed in doors.values())
    if clipped:
        notes.append(f"{clipped} wall{' was' if clipped == 1 else 's were'} partly or wholly "
                     f"outside the {width}×{height} map and clipped to its edge")
    if at_doors:
        notes.append(f"{at_doors} wall{' ran' if at_doors == 1 else 's ran'} across a door "
                     f"and {'was' if at_doors == 1 else 'were'} cut at it")
    if len(walls) > MAX_WALLS:
        raise InputError(f"line_of_sight: {len(walls):,} walls and doors after joining, more "
                         f"than the {MAX_WALLS:,} a map may hold")
    out = Imported(width, height, tuple(walls), 1.0 / ppg, notes=notes)
    _image(_text(parts, "image"), out, size, ppg)
    out.extras = {"source": "uvtt", "format": fmt,
                  "lights": records.freeze(_any(parts, "lights", []), "lights"),
                  "environment": records.freeze(_any(parts, "environment", {}),
                                                "environment")}
    return out


def _count(part: msgspec.Raw, chars: bytes) -> int:
    """How many of ``chars`` the field's text holds, read in pieces (no copy of it whole)."""
    view = memoryview(part)
    step = 1 << 16
    total = 0
    for start in range(0, len(view), step):
        piece = bytes(view[start:start + step])
        total += sum(piece.count(c) for c in chars)
    return total


def _any(parts: dict[str, msgspec.Raw], key: str, default: Any) -> Any:
    """A field decoded as plain JSON, after its items are counted against the limit of any
    free-form value."""
    part = parts.get(key)
    if part is None:
        return default
    # Every item of a list or table is followed by a comma or closes one, so these bound
    # the items from above (a comma or bracket inside text only counts one too many).
    if _count(part, b"[{,") > records.MAX_ITEMS:
        raise InputError(f"{key}: the value is too big (more than {records.MAX_ITEMS:,} "
                         "items, nested lists and tables counted together)")
    return msgspec.json.decode(part)


def _text(parts: dict[str, msgspec.Raw], key: str) -> object:
    """A field that must be text (or null), decoded only if it is: anything else is
    returned undecoded, for the caller's sentence naming the field."""
    part = parts.get(key)
    if part is None:
        return None
    try:
        return msgspec.json.decode(part, type=str | None)
    except msgspec.ValidationError:
        return part


def _lines(parts: dict[str, msgspec.Raw]) -> Iterable[tuple[str, object]]:
    """Each wall polyline as drawn, with where it is in the file; the points are counted
    (each is one JSON object) before any is decoded."""
    keys = ("line_of_sight", "objects_line_of_sight")
    if sum(_count(parts[k], b"{") for k in keys if k in parts) > MAX_POINTS:
        raise InputError(f"line_of_sight: more than {MAX_POINTS:,} wall points, more than "
                         f"the {MAX_WALLS:,} walls a map may hold")
    for key in keys:
        for i, line in enumerate(_decoded(parts, key, list[list[_Point]])):
            yield f"{key}[{i}]", line


def _portals(parts: dict[str, msgspec.Raw]) -> list[Any]:
    """The portals, counted (a door and each of its points is one JSON object) before
    decoding."""
    if "portals" in parts and _count(parts["portals"], b"{") > MAX_POINTS:
        raise InputError(f"portals: more than {MAX_POINTS:,} doors and points, more than "
                         f"the {MAX_WALLS:,} walls and doors a map may hold")
    return _decoded(parts, "portals", list[_Portal])


def _decoded(parts: dict[str, msgspec.Raw], key: str, kind: Any) -> list[Any]:
    """A counted list: as small structs when every entry fits ``kind``, else as plain JSON,
    whose entries are then checked one by one for the sentence naming the bad one."""
    part = parts.get(key)
    if part is None:
        return []
    try:
        value: Any = msgspec.json.decode(part, type=kind)
    except msgspec.ValidationError:
        value = msgspec.json.decode(part)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{key}: must be a list")
    return value


def _resolution(value: object) -> tuple[Point, Point, float]:
    if not isinstance(value, dict):
        raise InputError("resolution: missing; a Universal VTT map gives its grid there "
                         "(map_origin, map_size, pixels_per_grid)")
    size = _xy(value.get("map_size"), "resolution.map_size")
    if not (0 < size[0] <= 10_000 and 0 < size[1] <= 10_000):
        raise InputError(f"resolution.map_size: {size[0]:g}×{size[1]:g} cells; a map is 1 to "
                         "10,000 cells a side")
    origin = _xy(value.get("map_origin", {"x": 0, "y": 0}), "resolution.map_origin")
    ppg = value.get("pixels_per_grid")
    if ppg is None:
        raise InputError("resolution.pixels_per_grid: missing; the grid's size in pixels, "
                         "1 to 10,000")
    if isinstance(ppg, bool) or not isinstance(ppg, int | float) or not 1 <= ppg <= 10_000:
        raise InputError(f"resolution.pixels_per_grid: {ppg!r} is not a number of pixels "
                         "from 1 to 10,000")
    return origin, size, float(ppg)


def _xy(value: object, where: str) -> Point:
    if isinstance(value, _Point):
        x, y = value.x, value.y
    elif not isinstance(value, dict) or "x" not in value or "y" not in value:
        raise InputError(f"{where}: missing or not a point {{\"x\": …, \"y\": …}}")
    else:
        x, y = value["x"], value["y"]
    for v in (x, y):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) \
                or abs(v) > 1_000_000:
            raise InputError(f"{where}: {v!r} is not a number of cells")
    return float(x), float(y)


def _points(line: object, where: str, origin: Point) -> list[Point]:
    if not isinstance(line, list):
        raise InputError(f"{where}: a wall must be a list of points")
    out: list[Point] = []
    for j, p in enumerate(line):
        x, y = _xy(p, f"{where}[{j}]")
        q = (round((x - origin[0]) * SNAP) / SNAP, round((y - origin[1]) * SNAP) / SNAP)
        if not out or out[-1] != q:  # a repeated point adds no wall
            out.append(q)
    return out


def _portal(value: object, where: str, origin: Point) -> tuple[Point, Point, bool]:
    if isinstance(value, _Portal):
        bounds: object = value.bounds
        closed = value.closed
    elif isinstance(value, dict):
        bounds, closed = value.get("bounds"), bool(value.get("closed", True))
    else:
        raise InputError(f"{where}: a portal must be an object")
    if not isinstance(bounds, list) or len(bounds) != 2:
        raise InputError(f"{where}.bounds: a door needs its two ends")
    ends = _points(bounds, f"{where}.bounds", origin)
    if len(ends) < 2:
        raise InputError(f"{where}.bounds: a door needs two different ends, this one's "
                         "are the same point")
    return ends[0], ends[1], closed


def _key(a: Point, b: Point) -> Segment:
    """The same segment whichever way it was drawn."""
    return (a, b) if a <= b else (b, a)


def _clip(a: Point, b: Point, width: float, height: float) -> Segment | None:
    """The part of segment ab on the map (Liang–Barsky), or None when none of it is."""
    (x0, y0), (x1, y1) = a, b
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0), (dx, width - x0), (-dy, y0), (dy, height - y0)):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    if t0 == 0.0 and t1 == 1.0:
        return a, b
    out = (_snap(x0 + t0 * dx, y0 + t0 * dy), _snap(x0 + t1 * dx, y0 + t1 * dy))
    return None if out[0] == out[1] else out


def _snap(x: float, y: float) -> Point:
    return round(x * SNAP) / SNAP, round(y * SNAP) / SNAP


def cut_at_doors(segments: Sequence[tuple[Segment, int]],
                 doors: Sequence[Segment]) -> tuple[list[Segment], int]:
    """The wall segments with every span a door lies along taken out, and how many of the
    walls as drawn (numbered by the second item) were cut.

    Map makers often cut a shared wall at its door in one room's outline only: the
    other room's wall would stay over the door and keep it shut when opened. A door
    cuts a segment when both its ends lie within ``DOOR_TOLERANCE`` of the segment's
    line and it covers more than that of the segment; the pieces left end on the
    door's own ends, so wall and door still meet.
    """
    if not doors:
        return [segment for segment, _ in segments], 0
    size = 4.0  # cells a side of the buckets doors are looked up in
    near: dict[tuple[int, int], list[int]] = defaultdict(list)
    wide: list[int] = []  # doors over too many buckets: checked against every segment

    def buckets(a: Point, b: Point) -> list[tuple[int, int]] | None:
        (ax, ay), (bx, by) = a, b
        i0 = math.floor(((ax if ax < bx else bx) - DOOR_TOLERANCE) / size)
        i1 = math.floor(((bx if ax < bx else ax) + DOOR_TOLERANCE) / size)
        j0 = math.floor(((ay if ay < by else by) - DOOR_TOLERANCE) / size)
        j1 = math.floor(((by if ay < by else ay) + DOOR_TOLERANCE) / size)
        if (i1 - i0 + 1) * (j1 - j0 + 1) > 64:
            return None
        return [(i, j) for i in range(i0, i1 + 1) for j in range(j0, j1 + 1)]

    for n, door in enumerate(doors):
        cells = buckets(*door)
        if cells is None:
            wide.append(n)
        for cell in cells or ():
            near[cell].append(n)
    out: list[Segment] = []
    cut: set[int] = set()
    for segment, line in segments:
        cells = buckets(*segment)
        if cells is None:
            found: Iterable[int] = range(len(doors))
        else:
            found = {n for c in cells if c in near for n in near[c]}
            if not found and not wide:
                out.append(segment)
                continue
            found = sorted(found.union(wide))
        pieces = [segment]
        for n in found:
            pieces = [p for piece in pieces for p in _without(piece, doors[n])]
            if not pieces:
                break
        if pieces != [segment]:
            cut.add(line)
        out.extend(pieces)
    return out, len(cut)


def _without(segment: Segment, door: Segment) -> list[Segment]:
    """``segment`` less the span ``door`` lies along (itself whole when the door is not
    along it)."""
    a, b = segment
    length = math.dist(a, b)
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    ends = []
    for p in door:
        if abs((p[0] - a[0]) * uy - (p[1] - a[1]) * ux) > DOOR_TOLERANCE:
            return [segment]
        ends.append(((p[0] - a[0]) * ux + (p[1] - a[1]) * uy, p))
    (t0, p0), (t1, p1) = sorted(ends)
    if min(t1, length) - max(t0, 0.0) <= DOOR_TOLERANCE:
        return [segment]  # beside the door's span, or touching it at one end
    pieces = []
    if t0 > DOOR_TOLERANCE:
        pieces.append((a, p0))
    if t1 < length - DOOR_TOLERANCE:
        pieces.append((p1, b))
    return pieces


def join(segments: Iterable[Segment]) -> list[tuple[Point, ...]]:
    """Segments deduplicated and joined into polylines where exactly two meet.

    A point where three or more walls meet ends each of them, so every wall
    stays a simple polyline; a loop comes back closed on its first point. No
    polyline has more than ``MAX_WALL_POINTS`` points.
    """
    unique = list(dict.fromkeys(_key(a, b) for a, b in segments if a != b))
    ends: dict[Point, list[int]] = defaultdict(list)
    for n, (a, b) in enumerate(unique):
        ends[a].append(n)
        ends[b].append(n)
    used = [False] * len(unique)
    lines: list[tuple[Point, ...]] = []

    def walk(start: Point, n: int) -> list[Point]:
        line = [start]
        here = start
        while True:
            used[n] = True
            a, b = unique[n]
            here = b if a == here else a
            line.append(here)
            nxt = [m for m in ends[here] if not used[m]]
            if len(ends[here]) != 2 or not nxt or len(line) >= MAX_WALL_POINTS:
                return line
            n = nxt[0]

    # Start at the ends and junctions first, so that open polylines are walked whole.
    for point, touching in ends.items():
        if len(touching) != 2:
            for n in touching:
                if not used[n]:
                    lines.append(tuple(walk(point, n)))
    for n in range(len(unique)):  # what is left is loops
        if not used[n]:
            lines.append(tuple(walk(unique[n][0], n)))
    return lines


def _image(value: object, out: Imported, size: Point, ppg: float) -> None:
    if value is None or value == "":
        return
    if not isinstance(value, str):
        raise InputError("image: must be base64 text of a PNG or WebP image")
    text = value.partition(",")[2] if value.startswith("data:") else value
    if any(c in text for c in " \t\r\n"):  # copied only when it is broken into lines
        text = "".join(text.split())
    # The header is in the first 48 bytes: an image over the limit is refused before the
    # whole of it is decoded.
    head = _base64(text[:64])
    kind = image_type(head)
    if kind is None:
        raise InputError(f"image: the map image is {_what(head)}; a Universal VTT image must "
                         "be PNG or WebP")
    dims = image_size(head, kind)
    if dims is None:
        raise InputError(f"image: the {kind.upper()} image's header is broken")
    w, h = dims
    if w * h > MAP_PIXELS:
        raise InputError(f"image: the map image is {w}×{h} pixels, over the "
                         f"{MAP_PIXELS / 1_000_000:g} megapixel limit of a map image")
    want = (round(size[0] * ppg), round(size[1] * ppg))
    if abs(w - want[0]) > ppg or abs(h - want[1]) > ppg:
        out.notes.append(f"the image is {w}×{h} pixels where {size[0]:g}×{size[1]:g} cells "
                         f"of {ppg:g} pixels make {want[0]}×{want[1]}: it is laid at "
                         f"{ppg:g} pixels a cell from the map's corner")
    out.image, out.image_type, out.image_size = _base64(text), kind, dims


def _base64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise InputError("image: not base64 text, so the map image cannot be read") from None


def image_type(data: bytes) -> str | None:
    """``"png"`` or ``"webp"`` from the first bytes, else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def _what(data: bytes) -> str:
    for magic, name in ((b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
                        (b"BM", "a BMP image"), (b"<svg", "an SVG drawing"),
                        (b"<?xml", "an SVG drawing")):
        if data.startswith(magic):
            return name
    return "empty" if not data else "not an image tacmap knows"


def image_size(data: bytes, kind: str) -> tuple[int, int] | None:
    """Width and height from a PNG's or WebP's header, without decoding it."""
    try:
        if kind == "png":
            if data[12:16] != b"IHDR":
                return None
            w, h = struct.unpack(">II", data[16:24])
        elif data[12:16] == b"VP8 ":
            w, h = (v & 0x3FFF for v in struct.unpack("<HH", data[26:30]))
        elif data[12:16] == b"VP8L":
            bits = int.from_bytes(data[21:25], "little")
            w, h = (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        elif data[12:16] == b"VP8X":
            w = int.from_bytes(data[24:27], "little") + 1
            h = int.from_bytes(data[27:30], "little") + 1
        else:
            return None
    except struct.error:
        return None
    return (int(w), int(h)) if w > 0 and h > 0 else None


def encounter(imported: Imported, ruleset: Ruleset, name: str, seed: int,
              image: str | None) -> Encounter:
    """A new encounter on the imported map: its walls and doors, the image (named ``image``
    in the image folder) laid from the map's corner at the file's scale, fog on."""
    state = ruleset.new_map(name, seed, imported.width, imported.height)
    state.map = MapSpec(imported.width, imported.height, image=image,
                        image_offset=(0.0, 0.0), image_scale=imported.scale,
                        walls=imported.walls)
    state.map_extras = dict(imported.extras)
    storage.check_state(state, "the imported map")
    return state


def prepare(ruleset: Ruleset, state: Encounter) -> None:
    """Index the imported walls now (blocked steps and cells), so that the import pays for
    it and the first drag on the new map does not."""
    walls = ruleset.space.walls(state)
    walls.blocked_steps  # noqa: B018 - built on first use, cached on the walls


def image_name(stem: str, imported: Imported) -> str:
    """The file name the map image is written under in the image folder."""
    safe = "".join(c for c in stem if c.isalnum() or c in " -_.()") .strip(" .") or "map"
    return f"{safe}.{imported.image_type}"


def walls_for(imported: Imported, width: int, height: int) -> tuple[tuple[Wall, ...], list[str]]:
    """The file's walls and doors for an existing ``width``×``height`` map, clipped to it."""
    if (width, height) == (imported.width, imported.height):
        return imported.walls, []
    out: list[Wall] = []
    clipped = 0
    for wall in imported.walls:
        parts = _clip_line(wall.points, width, height)
        if len(parts) != 1 or parts[0] != wall.points:
            clipped += 1
        out.extend(Wall(p, kind=wall.kind, open=wall.open) for p in parts)
    notes = [f"{clipped} wall{' was' if clipped == 1 else 's were'} clipped to this "
             f"{width}×{height} map"] if clipped else []
    if len(out) > MAX_WALLS:
        raise InputError(f"line_of_sight: {len(out):,} walls after clipping, more than the "
                         f"{MAX_WALLS:,} a map may hold")
    return tuple(out), notes


def _clip_line(points: Sequence[Point], width: int, height: int) -> list[tuple[Point, ...]]:
    parts: list[list[Point]] = []
    for a, b in pairwise(points):
        cut = _clip(a, b, width, height)
        if cut is None:
            continue
        if parts and parts[-1][-1] == cut[0] and cut[0] == a:
            parts[-1].append(cut[1])
        else:
            parts.append([cut[0], cut[1]])
    return [tuple(p) for p in parts]


def write(imported: Imported, ruleset: Ruleset, out: Path, name: str, seed: int,
          force: bool = False) -> Encounter:
    """``tacmap import``: the encounter file ``out`` and its image in ``out``'s image folder.

    Everything is checked before the first byte is written. The image never
    replaces a file already in the image folder, nor writes through a link: a name
    taken by other bytes gives the image a fresh one (``storage.place``). When the
    encounter then fails to save, only what this import made is removed again.
    """
    if out.exists() and not force:
        raise InputError(f"{out} already exists; pick another name or add --force")
    image = image_name(out.stem, imported) if imported.image is not None else None
    state = encounter(imported, ruleset, name, seed, image)
    folder = out.parent / "images"
    made_folder, made = not os.path.lexists(folder), None
    try:
        storage.check_target(out)  # a pipe or a folder: refused before the image is written
        if image is not None and imported.image is not None:
            placed, new = storage.place(folder, image, imported.image)
            state.map.image = placed
            made = folder / placed if new and placed else None
        storage.save(out, state, [])
    except OSError as err:
        if made is not None:
            made.unlink(missing_ok=True)
        if made_folder:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise InputError(f"{out}: cannot write ({err.strerror or err})") from None
    return state



def import_file(registry: Registry, source: str, out: str, ruleset_id: str, name: str = "",
                seed: int | None = None, force: bool = False) -> list[str]:
    """``tacmap import FILE OUT.tacmap --ruleset ID``: the lines it prints."""
    ruleset = registry.get(ruleset_id)
    imported = read_file(source)
    target = Path(out)
    state = write(imported, ruleset, target, name or Path(source).stem,
                  fresh_seed() if seed is None else seed, force)
    placed, wanted = state.map.image, image_name(target.stem, imported)
    image = f"; image in {target.parent / 'images' / placed}" if placed else ""
    taken = [f"images/{wanted} is taken (another file or a link): the image is {placed}"] \
        if placed and placed != wanted else []
    return [f"{target}: new {ruleset.manifest.name} encounter from {Path(source).name}: "
            f"{imported.summary()}{image}",
            *(f"note: {n}" for n in [*imported.notes, *taken]),
            "note: the file's lights and environment are kept in the encounter, not drawn"]
