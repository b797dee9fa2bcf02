"""Universal VTT files written from a description, for the tests and ``tacmap bench``.

No map maker's file is shipped: ``rooms`` describes a small dungeon (rooms
sharing a wall, a closed and an open door, a freestanding door, a diagonal and
a curved wall, a pillar) the way Dungeondraft writes it, and ``png`` paints
its floor plan as a real PNG of any size.
"""

from __future__ import annotations

import base64
import math
import struct
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

Xy = tuple[float, float]


def _pt(p: Xy) -> dict[str, float]:
    return {"x": p[0], "y": p[1]}


def _line(points: list[Xy]) -> list[dict[str, float]]:
    return [_pt(p) for p in points]


def png(width: int, height: int, rooms: Sequence[tuple[int, int, int, int]] = (),
        ppg: int = 50, grain: bool = False) -> bytes:
    """A ``width``×``height`` PNG: stone-grey ground, each room's floor a warm tan,
    grid lines every ``ppg`` pixels (as map makers draw them); ``grain`` adds a seeded
    texture, so the file is as large as a painted map's."""
    img = np.empty((height, width, 3), np.uint8)
    img[:] = (92, 96, 104)
    if grain:
        img -= np.random.default_rng(7).integers(0, 24, (height, width, 1), np.uint8)
    for x0, y0, x1, y1 in rooms:
        img[y0 * ppg:y1 * ppg, x0 * ppg:x1 * ppg] = (198, 170, 128)
    img[::ppg, :] = img[::ppg, :] * 3 // 4
    img[:, ::ppg] = img[:, ::ppg] * 3 // 4
    raw = np.zeros((height, width * 3 + 1), np.uint8)
    raw[:, 1:] = img.reshape(height, width * 3)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + \
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height,
                                                               8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw.tobytes(), 1)) + chunk(b"IEND", b""))


#: The sample dungeon's rooms, in cells: (left, top, right, bottom).
ROOMS = [(1, 1, 12, 9), (12, 1, 24, 9), (1, 11, 10, 19)]


def rooms(ppg: int = 50, image: bool = True, fmt: float = 0.3,
          origin: Xy = (0.0, 0.0), outside: bool = False) -> dict[str, Any]:
    """A 30×20-cell dungeon as a map maker writes it (positions shifted by ``origin``).

    Room A (1,1)-(12,9) and room B (12,1)-(24,9) share the wall x = 12, which
    both rooms list (written twice, as exporters do); a closed door joins them at
    (12,4)-(12,5). Room B has an open door south at (17,9)-(18,9). Room C is
    (1,11)-(10,19), entered through a gap at its top right. A diagonal wall runs
    (13,12)-(18,18), a half circle of 12 segments around (24,15), a pillar
    (5,14)-(6,15) stands in room C, and a freestanding closed door stands at
    (27,13)-(27,15). ``outside`` adds a wall that runs off the map's right edge.
    """
    ox, oy = origin

    def s(points: list[Xy]) -> list[dict[str, float]]:
        return _line([(x + ox, y + oy) for x, y in points])

    walls: list[list[Xy]] = [
        # room A, broken at its door on the east wall
        [(12, 4), (12, 1), (1, 1), (1, 9), (12, 9), (12, 5)],
        # room B, listing the shared wall again, broken at both doors
        [(12, 4), (12, 1), (24, 1), (24, 9), (18, 9)],
        [(17, 9), (12, 9), (12, 5)],
        # room C, open at (8,11)-(10,11)
        [(8, 11), (1, 11), (1, 19), (10, 19), (10, 11)],
        # a diagonal wall
        [(13, 12), (18, 18)],
        # a curved wall: half a circle of radius 3
        [(24 + 3 * math.cos(math.pi * k / 12), 15 + 3 * math.sin(math.pi * k / 12))
         for k in range(13)],
    ]
    if outside:
        walls.append([(26, 5), (34, 5)])
    data: dict[str, Any] = {
        "format": fmt,
        "resolution": {"map_origin": _pt((ox, oy)), "map_size": {"x": 30, "y": 20},
                       "pixels_per_grid": ppg},
        "line_of_sight": [s(w) for w in walls],
        "objects_line_of_sight": [s([(5, 14), (6, 14), (6, 15), (5, 15), (5, 14)])],
        "portals": [
            {"position": _pt((12 + ox, 4.5 + oy)), "bounds": s([(12, 4), (12, 5)]),
             "rotation": 1.5708, "closed": True, "freestanding": False},
            {"position": _pt((17.5 + ox, 9 + oy)), "bounds": s([(17, 9), (18, 9)]),
             "rotation": 0, "closed": False, "freestanding": False},
            {"position": _pt((27 + ox, 14 + oy)), "bounds": s([(27, 13), (27, 15)]),
             "rotation": 1.5708, "closed": True, "freestanding": True},
        ],
        "environment": {"baked_lighting": True, "ambient_light": "ff7f7f7f"},
        "lights": [{"position": _pt((6 + ox, 5 + oy)), "range": 6, "intensity": 1,
                    "color": "ffeccd8b", "shadows": True}],
    }
    if image:
        data["image"] = base64.b64encode(png(30 * ppg, 20 * ppg, ROOMS, ppg)).decode()
    return data


def big(ppg: int = 68, segments: int = 3000) -> dict[str, Any]:
    """A 60×40-cell map of 5×5-cell rooms with doors and ``segments`` wall segments
    (rounded walls of many points make up the count), and a 4096×2731 image at
    ``ppg`` = 68 pixels a cell (60 × 68 = 4080)."""
    walls: list[list[Xy]] = []
    portals = []
    rooms_ = []
    for rx in range(0, 60, 6):
        for ry in range(0, 40, 5):
            x0, y0, x1, y1 = rx + 0.5, ry + 0.5, rx + 5.5, min(ry + 4.5, 39.5)
            rooms_.append((int(x0), int(y0), int(x1), int(y1)))
            walls.append([(x0 + 2, y0), (x0, y0), (x0, y1), (x1, y1), (x1, y0), (x0 + 3, y0)])
            portals.append({"bounds": _line([(x0 + 2, y0), (x0 + 3, y0)]),
                            "closed": (rx + ry) % 2 == 0, "freestanding": False})
    count = sum(len(w) - 1 for w in walls)
    n = 0
    while count < segments:
        cx, cy = 3 + (n * 6) % 60, 2.5 + 5 * ((n // 10) % 8)
        k = min(40, segments - count)
        walls.append([(cx + 1.2 * math.cos(math.pi * i / 40), cy + 1.2 * math.sin(math.pi * i / 40))
                      for i in range(k + 1)])
        count += k
        n += 1
    return {
        "format": 1.0,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 60, "y": 40},
                       "pixels_per_grid": ppg},
        "line_of_sight": [_line(w) for w in walls],
        "objects_line_of_sight": [],
        "portals": portals,
        "environment": {"baked_lighting": True},
        "lights": [],
        "image": base64.b64encode(png(4096, 2731, rooms_, ppg, grain=True)).decode(),
    }
