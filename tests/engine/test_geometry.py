"""Walls, obstacles, line of sight and leaving reach, through shapely."""

from __future__ import annotations

from tacmap.engine.model.state import Token, Wall
from tacmap.engine.space import geometry, grid


def token(tid: str, x: int, y: int, side: str = "foe", size: int = 1) -> Token:
    return Token(tid, tid.title(), side, x, y, size=size)


def test_a_wall_blocks_the_steps_across_it_and_not_along_it() -> None:
    walls = geometry.Walls([Wall(((3, 0), (3, 5)))])  # the grid line between x=2 and x=3
    test = walls.step_test()
    assert test((2, 1), (3, 1))
    assert test((3, 1), (2, 1))
    assert test((2, 1), (3, 2))  # diagonally through it too
    assert not test((2, 1), (2, 2))
    assert not test((2, 6), (3, 6))  # past its end


def test_an_obstacle_blocks_the_cells_inside_it() -> None:
    walls = geometry.Walls([Wall(((5, 5), (8, 5), (8, 8), (5, 8)), closed=True)])
    assert (6, 6) in walls.blocked_cells
    assert (4, 4) not in walls.blocked_cells
    assert walls.step_test()((4, 6), (5, 6))


def test_a_large_token_is_stopped_by_a_wall_any_of_its_cells_meets() -> None:
    walls = geometry.Walls([Wall(((3, 1), (3, 2)))])  # only between rows y=1
    assert not walls.step_test(1)((2, 0), (3, 0))
    assert walls.step_test(2)((1, 0), (2, 0))  # its lower row crosses the wall


def test_line_of_sight() -> None:
    walls = geometry.Walls([Wall(((5, 0), (5, 10))), Wall(((0, 12), (10, 12)), blocks_sight=False)])
    a, b, c = token("a", 2, 5), token("b", 8, 5), token("c", 2, 14)
    assert not geometry.line_of_sight(walls, a, b)
    assert geometry.line_of_sight(walls, a, c)  # a low fence: movement only


def test_reach_left_names_each_enemy_once_in_the_order_left() -> None:
    mover = token("m", 5, 5, side="hero")
    near, far, ogre = token("n", 6, 5), token("f", 4, 5), token("o", 5, 7, size=2)
    cells = grid.line("rectilinear", (5, 5), (5, 0))
    left = geometry.reach_left("rectilinear", cells, mover, [(near, 1), (far, 1), (ogre, 1)])
    # At (5,4) the mover is diagonal to both 1 m-reach neighbours: 2 m, out of reach.
    assert left == [("n", 1), ("f", 1)]
    # The ogre's 2×2 footprint starts at y=7: the mover at (5,5) is 2 m away, never in reach.
    left = geometry.reach_left("rectilinear", cells, mover, [(ogre, 2)])
    assert left == [("o", 1)]


def test_a_route_that_stays_in_reach_leaves_nothing() -> None:
    mover = token("m", 5, 5, side="hero")
    spear = token("s", 5, 6)
    cells = grid.line("rectilinear", (5, 5), (6, 5))
    assert geometry.reach_left("rectilinear", cells, mover, [(spear, 2)]) == []


def test_token_index_finds_only_nearby_tokens() -> None:
    tokens = [token(f"t{i}", i * 10, 0) for i in range(10)]
    index = geometry.TokenIndex(tokens)
    assert [t.id for t in index.near(18, 0, 31, 1)] == ["t2", "t3"]
