"""The blocked steps and cells of a map, found in bulk, are exactly those a step-by-step
check finds: every step between neighbouring cells whose centre line touches a wall."""

from __future__ import annotations

import json
import random

import shapely

from tacmap.engine.files import uvtt
from tacmap.engine.files.uvtt_sample import rooms
from tacmap.engine.model.state import Wall
from tacmap.engine.space.geometry import Walls


def brute(walls: tuple[Wall, ...], size: int) -> tuple[set[tuple[tuple[int, int], ...]],
                                                        set[tuple[int, int]]]:
    shapes = [shapely.Polygon(w.points) if w.closed else shapely.LineString(w.points)
              for w in walls if w.blocks_moves]
    steps, cells = set(), set()
    for x in range(-5, size + 5):
        for y in range(-5, size + 5):
            centre = shapely.Point(x + 0.5, y + 0.5)
            if any(s.geom_type == "Polygon" and centre.within(s) for s in shapes):
                cells.add((x, y))
            for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
                line = shapely.LineString([(x + 0.5, y + 0.5), (x + dx + 0.5, y + dy + 0.5)])
                if any(line.intersects(s) for s in shapes):
                    steps.add(((x, y), (x + dx, y + dy)))
                    steps.add(((x + dx, y + dy), (x, y)))
    return steps, cells


def test_an_imported_dungeon_blocks_what_a_step_by_step_check_blocks() -> None:
    walls = uvtt.read(json.dumps(rooms(image=False)).encode()).walls
    index = Walls(walls)
    assert (index.blocked_steps, index.blocked_cells) == brute(walls, 30)


def test_random_walls_and_obstacles_block_what_a_step_by_step_check_blocks() -> None:
    rnd = random.Random(11)
    walls = []
    for _ in range(40):
        x, y = rnd.uniform(2, 16), rnd.uniform(2, 16)
        if rnd.random() < 0.3:
            walls.append(Wall(((x, y), (x + rnd.uniform(1, 3), y), (x + 1, y + rnd.uniform(1, 3))),
                              closed=True))
        else:
            walls.append(Wall(tuple((round(x + rnd.uniform(-3, 3) * k, 2),
                                     round(y + rnd.uniform(-3, 3) * k, 2)) for k in (0, 1, 2))))
    walls.append(Wall(((4.0, 4.0), (9.0, 4.0)), kind="door", open=True))  # bars nothing
    index = Walls(tuple(walls))
    assert (index.blocked_steps, index.blocked_cells) == brute(tuple(walls), 26)
