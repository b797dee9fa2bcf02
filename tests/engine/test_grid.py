"""Grid rules of DESIGN §4: the four diagonal rules, routes, footprints, distance fields."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tacmap.engine.model.errors import RuleError
from tacmap.engine.space import grid


@pytest.mark.parametrize(("rule", "metres"), [
    ("rectilinear", 7.0),   # a diagonal step costs 2 m: 3 + 4
    ("chebyshev", 4.0),     # a diagonal step costs 1 m
    ("alternating", 5.0),   # three diagonals 1 + 2 + 1, then one straight
    ("euclidean", 5.0),
])
def test_three_four_under_each_rule(rule: str, metres: float) -> None:
    assert grid.path_length(rule, [(0, 0), (3, 4)]) == metres


def test_alternating_keeps_counting_across_waypoints() -> None:
    # One diagonal (1 m), then another diagonal in a new leg costs 2 m, not 1 m.
    assert grid.path_length("alternating", [(0, 0), (1, 1), (2, 2)]) == 3.0
    assert grid.path_length("alternating", [(0, 0), (2, 2)]) == 3.0


def test_waypoints_add_up() -> None:
    assert grid.path_length("rectilinear", [(0, 0), (3, 0), (3, 3), (0, 3)]) == 9.0


def test_unknown_rule_is_refused() -> None:
    with pytest.raises(RuleError, match="unknown diagonal rule"):
        grid.path_length("hex", [(0, 0), (1, 1)])


cells = st.tuples(st.integers(-30, 30), st.integers(-30, 30))


@given(cells, cells, st.sampled_from(["rectilinear", "chebyshev", "alternating"]))
def test_straight_route_costs_what_measure_says(a: grid.Cell, b: grid.Cell, rule: str) -> None:
    route = grid.line(rule, a, b)
    assert route[0] == a and route[-1] == b
    steps = list(pairwise(route))
    assert all(max(abs(p[0] - q[0]), abs(p[1] - q[1])) == 1 for p, q in steps)
    if rule == "rectilinear":
        assert all(p[0] == q[0] or p[1] == q[1] for p, q in steps)
    assert grid.cells_cost(rule, route) == grid.segment_cost(rule, a, b)


def test_edge_distance_is_edge_to_edge_for_large_tokens() -> None:
    # A 2×2 ogre at (0,0) covers x 0..1; a token at (3,0) is one empty cell away: 2 m.
    assert grid.edge_distance("rectilinear", (0, 0), 2, (3, 0), 1) == 2.0
    assert grid.edge_distance("rectilinear", (0, 0), 2, (2, 1), 1) == 1.0
    # Diagonal neighbours are 2 m apart under the rectilinear rule, 1 m under chebyshev.
    assert grid.edge_distance("rectilinear", (0, 0), 1, (1, 1), 1) == 2.0
    assert grid.edge_distance("chebyshev", (0, 0), 1, (1, 1), 1) == 1.0
    assert grid.footprint((4, 5), 2) == [(4, 5), (5, 5), (4, 6), (5, 6)]


def test_distance_field_goes_round_a_wall() -> None:
    # A wall between x=2 and x=3 from y=0 to y=3: the way from (1,1) to (4,1) goes below it.
    def blocked(a: grid.Cell, b: grid.Cell) -> bool:
        crosses = {a[0], b[0]} == {2, 3}
        return crosses and min(a[1], b[1]) < 3

    field = grid.distance_field("rectilinear", (1, 1), 30, (10, 10), blocked)
    # Down 2 to row 3, across 3, up 2 again: 7 m, instead of 3 m through the wall.
    assert field.cost_to((4, 1)) == 7.0
    path = field.path_to((4, 1))
    assert path is not None and path[0] == (1, 1) and path[-1] == (4, 1)
    assert grid.cells_cost("rectilinear", path) == 7.0
    assert all(not blocked(p, q) for p, q in pairwise(path))


def test_distance_field_respects_its_budget() -> None:
    field = grid.distance_field("chebyshev", (5, 5), 2, (20, 20))
    assert field.cost_to((7, 7)) == 2.0
    assert field.cost_to((8, 5)) is None
    assert field.path_to((8, 5)) is None


def test_alternating_field_matches_closed_form() -> None:
    field = grid.distance_field("alternating", (0, 0), 20, (15, 15))
    for target in [(3, 4), (5, 5), (6, 2), (0, 7)]:
        assert field.cost_to(target) == grid.segment_cost("alternating", (0, 0), target)
        path = field.path_to(target)
        assert path is not None
        assert grid.cells_cost("alternating", path) == field.cost_to(target)


@pytest.mark.parametrize("text", ["3", "a,b", "1,2,3", "1.5,2", "99999999,0"])
def test_bad_cells_are_refused_in_one_sentence(text: str) -> None:
    with pytest.raises(RuleError):
        grid.parse_cell(text)
