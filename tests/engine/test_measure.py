"""The ruler's reading (issue 24, item 1); map images named with their grid (issue 25, item 2)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tacmap.engine.files.map_image import fitting_scale, named_grid
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.units import METRES, Units
from tacmap.engine.space.measure import measure

FEET = Units("ft", 5)
#: Two diagonal steps to a waypoint, then three straight: one path under each rule.
PATH = [(1, 5), (3, 7), (6, 7)]


@pytest.mark.parametrize(("rule", "text"), [
    ("rectilinear", "7 m along · 5.4 m straight"),  # a diagonal step is 2 m
    ("chebyshev", "5 m along · 5.4 m straight"),  # a diagonal step is 1 m
    ("alternating", "6 m along · 5.4 m straight"),  # 1 m, then 2 m
    ("euclidean", "5.8 m along · 5.4 m straight"),  # √2 m each
])
def test_the_ruler_reads_a_path_with_a_waypoint_under_each_diagonal_rule(
        rule: str, text: str) -> None:
    assert measure(rule, PATH).text(METRES) == text


def test_feet_on_five_foot_squares() -> None:
    assert measure("alternating", PATH).text(FEET) == "30 ft along · 26.9 ft straight"


def test_the_alternating_count_carries_across_waypoints() -> None:
    # 1, 2, 1: a waypoint between the diagonals does not restart the count.
    assert measure("alternating", [(0, 0), (1, 1), (3, 3)]).along == 4
    assert measure("alternating", [(0, 0), (3, 3)]).along == 4


def test_the_drawn_route_steps_as_the_rule_counts() -> None:
    stairs = measure("rectilinear", [(0, 0), (2, 2)]).cells
    assert len(stairs) == 5  # four orthogonal steps: no diagonal under rectilinear
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in pairwise(stairs))
    assert measure("chebyshev", [(0, 0), (2, 2)]).cells == ((0, 0), (1, 1), (2, 2))


def test_a_waypoint_dropped_twice_on_one_cell_counts_once() -> None:
    reading = measure("rectilinear", [(0, 0), (2, 0), (2, 0), (2, 3)])
    assert reading.points == ((0, 0), (2, 0), (2, 3)) and reading.along == 5


def test_a_press_without_a_drag_reads_nothing_long() -> None:
    assert measure("euclidean", [(4, 4)]).text(METRES) == "0 m along · 0 m straight"


def test_an_unknown_rule_is_refused() -> None:
    with pytest.raises(RuleError, match="unknown diagonal rule"):
        measure("hexes", PATH)


@pytest.mark.parametrize(("name", "grid"), [
    ("Crypt [24x18].png", (24, 18)),
    ("crypt[24X18].webp", (24, 18)),
    ("Crypt [ 24 × 18 ].jpg", (24, 18)),
    ("old [2x2] copy [30x20].png", (30, 20)),
    ("Crypt.png", None),
    ("Crypt [24].png", None),
    ("Crypt [0x18].png", None),
    ("Crypt [24x99999].png", None),
])
def test_a_file_name_may_carry_its_grid(name: str, grid: tuple[int, int] | None) -> None:
    assert named_grid(name) == grid


def test_the_named_grid_covers_the_whole_image() -> None:
    assert fitting_scale(2400, 1800, (24, 18)) == pytest.approx(0.01)
    # A picture a little wider than its grid's shape still fits inside the grid.
    scale = fitting_scale(2500, 1800, (24, 18))
    assert scale is not None and 2500 * scale <= 24 and 1800 * scale <= 18
    assert fitting_scale(0, 10, (24, 18)) is None
