"""Planning moves: straight when free, round walls when not, the same in preview and drag."""

from __future__ import annotations

from tacmap.engine.model.state import Encounter, MapSpec, Token, Wall
from tacmap.engine.space import grid
from tacmap.engine.space.geometry import Walls
from tacmap.engine.space.movement import DragPlanner, plan_route


def state_with(walls: tuple[Wall, ...], size: int = 60) -> Encounter:
    state = Encounter(ruleset="skirmish", map=MapSpec(size, size, walls=walls))
    state.tokens["a"] = Token("a", "A", "party", 10, 30)
    state.tokens["b"] = Token("b", "B", "foe", 9, 30)
    return state


def test_a_long_wall_is_walked_round_however_far() -> None:
    # A wall on the line x=11 from the top down to y=55: the way round is 52 m.
    state = state_with((Wall(((11, 0), (11, 55))),))
    cells, cost, why = plan_route(state, Walls(state.map.walls), state.tokens["a"], [(11, 30)])
    assert why == ""
    assert cost == 51.0
    assert cells[-1] == (11, 30) and max(y for _, y in cells) == 55
    assert grid.cells_cost("rectilinear", cells) == cost


def test_a_walled_off_cell_is_said_so() -> None:
    ring = Wall(((20, 20), (25, 20), (25, 25), (20, 25), (20, 20)))
    state = state_with((ring,), size=40)
    _, _, why = plan_route(state, Walls(state.map.walls), state.tokens["a"], [(22, 22)])
    assert why == "no way round the walls to (22,22)"


def test_the_drag_planner_answers_like_a_preview() -> None:
    state = state_with((Wall(((11, 0), (11, 40))),))
    planner = DragPlanner(state, state.tokens["a"], lambda t: 1.0, 1.0)
    plan = planner.plan((12, 30))
    # Down 10 to the wall's end at y=40, 1 across, 10 back up, 1 on: 22 m.
    assert plan.cost == 22.0
    assert plan.leaves == (("b", 1),)  # the first step down leaves B, who stands beside A
    planner.waypoints.append((10, 45))
    via = planner.plan((12, 45))
    assert via.cells[0] == (10, 30) and (10, 45) in via.cells and via.cost == 17.0


def test_a_large_token_never_ends_astride_a_wall() -> None:
    # A wall along the grid line y=5: a 2×2 token may not stand with it through its middle.
    state = state_with((Wall(((0, 5), (15, 5))),), size=20)
    state.tokens["ogre"] = Token("ogre", "Ogre", "foe", 2, 1, size=2)
    walls = Walls(state.map.walls)
    _, _, why = plan_route(state, walls, state.tokens["ogre"], [(2, 4)])
    assert why.startswith("no way round the walls")
    cells, cost, why = plan_route(state, walls, state.tokens["ogre"], [(2, 3)])
    assert why == "" and cells[-1] == (2, 3) and cost == 2.0


def test_a_walled_off_cell_on_a_huge_map_is_refused_not_searched_for_ever() -> None:
    ring = Wall(((500, 500), (505, 500), (505, 505), (500, 505), (500, 500)))
    state = Encounter(ruleset="skirmish", map=MapSpec(2000, 2000, walls=(ring,)))
    state.tokens["a"] = Token("a", "A", "party", 480, 480)
    _, _, why = plan_route(state, Walls(state.map.walls), state.tokens["a"], [(502, 502)])
    assert why == "no way round the walls to (502,502)"


def test_a_path_that_passes_by_enemies_leaves_their_reach_in_order() -> None:
    # Nobody is in reach at the start: A walks along y=30 under E and over F. A corner
    # neighbour is 2 m away on this rectilinear map, so A is within E's 1 m reach only at
    # (15,30) and within F's only at (16,30).
    state = state_with(())
    del state.tokens["b"]
    state.tokens["e"] = Token("e", "E", "foe", 15, 29)
    state.tokens["f"] = Token("f", "F", "foe", 16, 31)
    plan = DragPlanner(state, state.tokens["a"], lambda t: 1.0, 1.0).plan((20, 30))
    assert plan.cells[-1] == (20, 30)
    assert plan.leaves == (("e", 6), ("f", 7))  # out of E's at (16,30), of F's at (17,30)


def test_a_route_goes_round_a_living_enemy_but_through_an_ally_or_the_fallen() -> None:
    state = state_with(())
    del state.tokens["b"]
    state.tokens["e"] = Token("e", "E", "foe", 12, 30)
    planner = DragPlanner(state, state.tokens["a"], lambda t: 1.0, 1.0)
    plan = planner.plan((14, 30))
    assert (12, 30) not in plan.cells and plan.cells[-1] == (14, 30)
    assert plan.cost == 6.0  # round E: 2 m more than the straight 4 m (a diagonal is 2 m)
    for who in (Token("e", "E", "party", 12, 30),
                Token("e", "E", "foe", 12, 30, conditions=("dead",))):
        state.tokens["e"] = who
        plan = DragPlanner(state, state.tokens["a"], lambda t: 1.0, 1.0).plan((14, 30))
        assert plan.cost == 4.0 and (12, 30) in plan.cells


def test_a_waypoint_on_an_enemy_is_refused_by_name() -> None:
    state = state_with(())
    state.tokens["ogre"] = Token("ogre", "Ogre", "foe", 20, 20, size=2)
    planner = DragPlanner(state, state.tokens["a"], lambda t: 1.0, 1.0)
    planner.waypoints.append((21, 21))
    assert planner.plan((25, 25)).blocked == "(21,21) is taken by Ogre"


def test_the_alternating_count_goes_on_from_the_diagonals_a_turn_already_took() -> None:
    state = state_with(())
    state.diagonal = "alternating"
    walls = Walls(state.map.walls)
    # Two diagonals from (10,30): 1 + 2 afresh; 2 + 1 after one diagonal this turn.
    _, fresh, _ = plan_route(state, walls, state.tokens["a"], [(12, 32)])
    _, after_one, _ = plan_route(state, walls, state.tokens["a"], [(12, 32)],
                                 diagonals_before=1)
    assert (fresh, after_one) == (3.0, 3.0)
    _, one_fresh, _ = plan_route(state, walls, state.tokens["a"], [(11, 31)])
    _, one_after, _ = plan_route(state, walls, state.tokens["a"], [(11, 31)],
                                 diagonals_before=1)
    assert (one_fresh, one_after) == (1.0, 2.0)
    # Round a wall too: the detour is priced from the same count.
    state.map.walls = (Wall(((11, 25), (11, 35))),)
    walls = Walls(state.map.walls)
    cells, cost, why = plan_route(state, walls, state.tokens["a"], [(12, 31)],
                                  diagonals_before=1)
    assert why == "" and cost == grid.cells_cost("alternating", cells, 1)
