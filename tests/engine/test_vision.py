"""Sight through doors, windows and corners; fog of war through the referee."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from tacmap.engine.files import storage
from tacmap.engine.model.commands import EditFog, FreeMove, SetDoor, SetFog, SetWalls
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import Encounter, MapSpec, Token, Wall
from tacmap.engine.play.narrate import sentence
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.space import vision
from tacmap.engine.space.geometry import Walls
from tests.engine.helpers import skirmish_state

#: A 20×10 map split by a wall at x = 10 with an opening at y 4–6 for a door or window.
SPLIT = (Wall(((10, 0), (10, 4))), Wall(((10, 6), (10, 10))))


def sees(walls: tuple[Wall, ...], eye: tuple[int, int], point: tuple[float, float]) -> bool:
    """Whether a token at ``eye`` sees ``point`` on a 20×10 map."""
    area = vision.Sight(Walls(walls), 20, 10).of((*eye, 1, None))
    return bool(area.contains(shapely.Point(point)))


def test_a_closed_door_blocks_sight_and_an_open_one_does_not() -> None:
    closed = (*SPLIT, Wall(((10, 4), (10, 6)), kind="door"))
    opened = (*SPLIT, Wall(((10, 4), (10, 6)), kind="door", open=True))
    assert not sees(closed, (3, 4), (15, 5))
    assert sees(opened, (3, 4), (15, 5))


def test_a_window_shows_the_room_beyond_but_bars_the_way() -> None:
    window = (*SPLIT, Wall(((10, 4), (10, 6)), kind="window"))
    assert sees(window, (3, 4), (15, 5))
    walls = Walls(window)
    assert walls.route_blocked([(9, 4), (10, 4)]) == 1
    door = Walls((*SPLIT, Wall(((10, 4), (10, 6)), kind="door", open=True)))
    assert door.route_blocked([(9, 4), (10, 4)]) is None


def test_nobody_sees_round_a_corner() -> None:
    # An L-shaped corridor: a wall from (5, 0) down to (5, 5), then right to (20, 5).
    corner = (Wall(((5, 0), (5, 5), (20, 5))),)
    assert sees(corner, (1, 1), (3, 8))       # down the corridor
    assert not sees(corner, (1, 1), (15, 2))  # round the corner, behind the wall
    assert sees(corner, (1, 7), (15, 8))


def test_a_sight_range_stops_short() -> None:
    area = vision.Sight(Walls(()), 20, 10).of((0, 0, 1, 4.0))
    assert area.contains(shapely.Point(3, 0.5))
    assert not area.contains(shapely.Point(6, 0.5))


def _crosses(a: tuple[float, float], b: tuple[float, float], wall: shapely.Geometry) -> bool:
    """``a``–``b`` passes through ``wall`` properly: not at either end, not grazing."""
    seg = shapely.LineString([a, b])
    hit = seg.intersection(wall)
    if hit.is_empty:
        return False
    ends = [*shapely.get_coordinates(wall), a, b]
    return any(min(shapely.Point(x, y).distance(shapely.Point(q)) for q in ends) > 1e-6
               for x, y in shapely.get_coordinates(hit))


segments = st.lists(
    st.tuples(st.integers(0, 20), st.integers(0, 10), st.integers(0, 20), st.integers(0, 10))
    .filter(lambda s: (s[0], s[1]) != (s[2], s[3])), max_size=12)


@settings(max_examples=60, deadline=None)
@given(segments, st.integers(0, 19), st.integers(0, 9), st.floats(0.02, 0.98))
def test_the_visible_area_never_crosses_a_wall(
        raw: list[tuple[int, int, int, int]], x: int, y: int, where: float) -> None:
    walls = tuple(Wall(((a, b), (c, d))) for a, b, c, d in raw)
    area = vision.Sight(Walls(walls), 20, 10).of((x, y, 1, None))
    _sees_through_no_wall(area, (x + 0.5, y + 0.5), walls, where)


def _sees_through_no_wall(area: shapely.Geometry, eye: tuple[float, float],
                          walls: tuple[Wall, ...], where: float) -> None:
    """Points just inside the edge of ``area`` are seen: no wall stands between."""
    shapes = [shapely.LineString(w.points) for w in walls]
    for poly in shapely.get_parts(area):
        ring = poly.exterior
        for k in range(40):
            p = ring.interpolate((k + where) / 40, normalized=True)
            q = (eye[0] + (p.x - eye[0]) * 0.999, eye[1] + (p.y - eye[1]) * 0.999)
            for shape in shapes:
                assert not _crosses(eye, q, shape), (walls, eye, q)


# --- fog of war through the referee -------------------------------------------------


def fogged(registry: Registry) -> Referee:
    """The skirmish map under fog: a wall at x = 6 from the top to y = 4."""
    state = skirmish_state()
    referee = Referee(state, registry.get("skirmish"))
    referee.execute(SetFog(True))
    return referee


def explored(state: Encounter) -> shapely.Geometry:
    return vision.area_shape(state.fog.explored)


def test_turning_fog_on_explores_what_the_party_sees(registry: Registry) -> None:
    referee = fogged(registry)
    assert referee.state.fog.enabled
    assert explored(referee.state).contains(shapely.Point(3, 3))
    assert not explored(referee.state).contains(shapely.Point(10, 1))  # behind the wall
    referee.undo()
    assert not referee.state.fog.enabled and referee.state.fog.explored == ()
    with pytest.raises(RuleError, match="already off"):
        referee.execute(SetFog(False))


def test_a_move_explores_and_its_undo_forgets(registry: Registry) -> None:
    referee = fogged(registry)
    before = referee.state.fog.explored
    referee.execute(FreeMove("ana", (7, 0)))  # past the wall's end... on the far side
    assert explored(referee.state).contains(shapely.Point(10, 1))
    assert type(referee.log[-1].events[-1]).__name__ == "Explored"
    referee.undo()
    assert referee.state.fog.explored == before
    referee.redo()
    assert explored(referee.state).contains(shapely.Point(10, 1))


def test_explored_is_saved_and_read_back(registry: Registry, tmp_path) -> None:  # type: ignore[no-untyped-def]
    referee = fogged(registry)
    referee.execute(FreeMove("ana", (7, 0)))
    path = tmp_path / "fog.tacmap"
    storage.save(path, referee.state, referee.log)
    loaded = storage.load(path, registry)
    assert loaded.state.fog == referee.state.fog
    storage.verify(loaded)


def test_a_file_without_fog_loads_with_fog_off(registry: Registry) -> None:
    state = skirmish_state()
    text = storage.dumps(state, []).replace(',"fog":{"type":"fog","enabled":false,'
                                            '"explored":[],"revealed":[],"hidden":[],'
                                            '"sight":null}', "")
    assert '"fog"' not in text
    assert storage.loads(text, registry).state.fog.enabled is False


def test_a_file_with_a_fog_area_off_the_map_is_refused(registry: Registry) -> None:
    state = skirmish_state()
    state.fog = vision.with_fog(state.fog, revealed=(((((0, 0), (50, 0), (50, 5)),)),))
    with pytest.raises(Exception, match="off the 12×10"):
        storage.loads(storage.dumps(state, []), registry)


def test_reveal_and_hide_by_hand_undo(registry: Registry) -> None:
    referee = fogged(registry)
    behind = [(8, 0), (11, 0), (11, 3), (8, 3)]
    referee.execute(EditFog(tuple(behind), reveal=True))
    state = referee.state
    assert vision.shown_now(state, Walls(state.map.walls)).contains(shapely.Point(10, 1))
    assert explored(state).contains(shapely.Point(10, 1))
    referee.execute(EditFog(((0, 0), (4, 0), (4, 4), (0, 4)), reveal=False))
    assert not explored(state).contains(shapely.Point(2, 2))
    assert not vision.shown_now(state, Walls(state.map.walls)).contains(shapely.Point(2, 2))
    assert sentence(state, referee.log[-1].command) == "GM hides an area from (0, 0) to (4, 4)"
    referee.undo()
    assert explored(state).contains(shapely.Point(2, 2))
    referee.undo()
    assert not explored(state).contains(shapely.Point(10, 1))


@pytest.mark.parametrize("points, reason", [
    (((0, 0), (1, 0)), "three corners"),
    (((0, 0), (30, 0), (30, 3)), "off the 12×10"),
    (((0, 0), (0.3, 0), (0.3, 0.3), (0, 0.3)), "too small"),
    (((0, 0), (4, 4), (4, 0), (0, 4)), "cross"),
])
def test_a_bad_fog_area_is_refused_in_a_sentence(registry: Registry,
                                                 points: tuple[tuple[float, float], ...],
                                                 reason: str) -> None:
    referee = fogged(registry)
    fog = referee.state.fog
    with pytest.raises(RuleError, match=reason):
        referee.execute(EditFog(points))
    assert referee.state.fog == fog


def test_opening_a_door_is_logged_narrated_and_undone(registry: Registry) -> None:
    state = Encounter(ruleset="skirmish", ruleset_version="1.0", map=MapSpec(20, 10))
    state.tokens["ana"] = Token("ana", "Ana", "party", 3, 4)
    state.tokens["orc"] = Token("orc", "Orc", "orcs", 15, 4)
    referee = Referee(state, registry.get("skirmish"))
    referee.execute(SetWalls((*SPLIT, Wall(((10, 4), (10, 6)), kind="door"))))
    referee.execute(SetFog(True))
    assert not explored(state).contains(shapely.Point(15, 5))
    referee.execute(SetDoor(2, True))
    assert state.map.walls[2].open
    assert explored(state).contains(shapely.Point(15, 5))
    assert sentence(state, referee.log[-1].command) == "The door at (10, 5) opens"
    assert referee.log[-1].events[0].text(state) == "The door at (10, 5) opens"
    referee.undo()
    assert not state.map.walls[2].open
    with pytest.raises(RuleError, match="not a door"):
        referee.execute(SetDoor(0, True))
    with pytest.raises(RuleError, match="already closed"):
        referee.execute(SetDoor(2, False))


def test_a_window_cannot_stand_open() -> None:
    with pytest.raises(ValueError, match="only a door"):
        Wall(((0, 0), (1, 0)), kind="window", open=True)


far_segments = st.lists(
    st.tuples(st.integers(0, 90), st.integers(0, 60), st.integers(0, 90), st.integers(0, 60))
    .filter(lambda s: (s[0], s[1]) != (s[2], s[3])), min_size=1, max_size=25)


@settings(max_examples=80, deadline=None)
@given(far_segments, st.integers(0, 89), st.integers(0, 59), st.floats(0.02, 0.98))
def test_sight_cast_box_by_box_on_a_big_map_matches_one_cast_over_the_whole_map(
        raw: list[tuple[int, int, int, int]], x: int, y: int, where: float) -> None:
    """The growing boxes (only where sight escapes) see exactly what one big cast sees,
    and neither sees through a wall."""
    walls = tuple(Wall(((a, b), (c, d))) for a, b, c, d in raw)
    grown = vision.Sight(Walls(walls), 90, 60).of((x, y, 1, None))
    whole = vision.Sight(Walls(walls), 90, 60)
    whole_box = vision.FIRST_BOX
    try:
        vision.FIRST_BOX = 1000.0
        once = whole.of((x, y, 1, None))
    finally:
        vision.FIRST_BOX = whole_box
    assert grown.symmetric_difference(once).area < 1e-3 * max(1.0, once.area)
    _sees_through_no_wall(grown, (x + 0.5, y + 0.5), walls, where)


def test_an_area_too_detailed_to_save_is_coarsened_so_it_still_loads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever tacmap writes it reads back: an area is never saved over the point limit."""
    monkeypatch.setattr(vision, "MAX_POINTS", 5_000)
    turns = np.linspace(0, 2 * np.pi, 50_001)[:-1]
    radius = 10 + 0.3 * np.sin(turns * 2_000)  # a ragged cave wall
    cave = shapely.Polygon(np.c_[15 + radius * np.cos(turns), 15 + radius * np.sin(turns)])
    area = vision.to_area(cave)
    assert sum(len(ring) for poly in area for ring in poly) <= 5_000
    assert vision.area_problem(area, 40, 40, 5_000) is None
    assert vision.area_shape(area).symmetric_difference(cave).area < 0.05 * cave.area


@pytest.mark.parametrize(("ruleset", "sight", "cells"), [("action_pool", 4, 4.0),
                                                          ("speed_rank", 20, 4.0)])
def test_every_ruleset_takes_a_sight_stat_in_its_own_unit(
        registry: Registry, ruleset: str, sight: int, cells: float) -> None:
    """The combatant form offers Sight in every ruleset: 4 m, or 20 ft on 5-foot squares."""
    rules = registry.get(ruleset)
    field = next(f for f in rules.stat_fields() if f.key == "sight")
    assert field.label == f"Sight ({rules.manifest.units.unit})" and field.default == 0.0
    state = rules.new_encounter("t")
    scout = Token("scout", "Scout", "party", 0, 0, stats={"sight": sight})
    rules.check_token(scout)  # a stat every ruleset knows
    state.tokens["scout"] = scout
    assert vision.sight_range(state, scout) == cells
    seen = vision.shown_now(state, Walls(()))
    assert seen.contains(shapely.Point(3.5, 0.5)) and not seen.contains(shapely.Point(6, 0.5))


def test_ten_thousand_copies_of_one_wall_cost_what_one_wall_costs() -> None:
    """Issue 23 item 4: copies and overlaps are merged before the walls are noded."""
    one = Wall(((5.0, 5.0), (15.0, 5.0)))
    copies = tuple(Wall(((5.0, 5.0), (15.0, 5.0))) for _ in range(10_000))
    backwards = tuple(Wall(((15.0, 5.0), (5.0, 5.0))) for _ in range(100))
    shifted = tuple(Wall(((5 + i * 0.001, 5.0), (15 + i * 0.001, 5.0))) for i in range(3_000))
    longer = Wall(((5.0, 5.0), (17.999, 5.0)))  # what the shifted copies cover together
    for walls, same in ((copies + backwards, one), (shifted, longer)):
        alone = vision.Sight(Walls((same,)), 30, 20)
        sight = vision.Sight(Walls(walls), 30, 20)
        assert len(sight.segments) == 1
        assert sight.of((9, 9, 1, None)).symmetric_difference(
            alone.of((9, 9, 1, None))).area < 0.02


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 20)] * 4), min_size=1, max_size=8),
       st.integers(0, 19), st.integers(0, 9))
def test_walls_drawn_twice_or_in_overlapping_pieces_hide_the_same(
        lines: list[tuple[int, int, int, int]], x: int, y: int) -> None:
    walls = tuple(Wall(((a, b / 2), (c, d / 2))) for a, b, c, d in lines if (a, b) != (c, d))
    # Each wall again, backwards, and as two halves that overlap in the middle.
    again = []
    for w in walls:
        (ax, ay), (bx, by) = w.points
        again += [Wall(((bx, by), (ax, ay))),
                  Wall(((ax, ay), (ax + (bx - ax) * 0.6, ay + (by - ay) * 0.6))),
                  Wall(((ax + (bx - ax) * 0.4, ay + (by - ay) * 0.4), (bx, by)))]
    plain = vision.Sight(Walls(walls), 20, 10).of((x, y, 1, None))
    doubled = vision.Sight(Walls(walls + tuple(again)), 20, 10).of((x, y, 1, None))
    assert plain.symmetric_difference(doubled).area < 1e-6


def test_the_same_area_is_saved_the_same_way_whatever_vertex_it_starts_at() -> None:
    """Issue 34 item 6: a fog reveal started at another vertex depending on what ran before."""
    square = [(1, 1), (4, 1), (4, 4), (1, 4)]
    other = [(7, 7), (9, 7), (9, 9), (7, 9)]
    shapes = [shapely.MultiPolygon([shapely.Polygon(square[i:] + square[:i]),
                                    shapely.Polygon(other[j:] + other[:j])][::k])
              for i in range(4) for j in range(2) for k in (1, -1)]
    areas = {vision.to_area(s) for s in shapes}
    assert len(areas) == 1
    assert vision.area_shape(next(iter(areas))).equals(shapes[0])


def test_reveals_made_in_either_order_save_to_the_same_bytes(registry: Registry) -> None:
    saved = set()
    for order in (1, -1):
        referee = fogged(registry)
        for points in [((8, 6), (11, 6), (11, 9), (8, 9)), ((9, 7), (12, 7), (12, 10), (9, 10)),
                       ((0, 8), (2, 8), (2, 10), (0, 10))][::order]:
            referee.execute(EditFog(points, reveal=True))
        saved.add(storage.encode(referee.state, []))
    assert len(saved) == 1


# --- walls that meet or cross (issue 33 item 11) ------------------------------------


def star(n: int, centre: tuple[float, float] = (15.0, 10.0), r: float = 9.5) -> tuple[Wall, ...]:
    """``n`` walls through one point, evenly turned."""
    cx, cy = centre
    turns = [(r * math.cos(math.pi * i / n), r * math.sin(math.pi * i / n)) for i in range(n)]
    return tuple(Wall(((round(cx - dx, 6), round(cy - dy, 6)),
                       (round(cx + dx, 6), round(cy + dy, 6)))) for dx, dy in turns)


def crossing_grid(n: int, w: float = 30.0, h: float = 20.0) -> tuple[Wall, ...]:
    """``n`` walls across a ``w``×``h`` map and ``n`` down it, evenly spaced."""
    across = [Wall(((0.0, h * (i + 1) / (n + 1)), (w, h * (i + 1) / (n + 1)))) for i in range(n)]
    down = [Wall(((w * (i + 1) / (n + 1), 0.0), (w * (i + 1) / (n + 1), h))) for i in range(n)]
    return (*across, *down)


def test_a_thousand_walls_through_one_point_are_split_there_once_and_still_hide() -> None:
    """GEOS's noding iterated to 1.4 GB and then failed; each wall is now cut once."""
    walls = star(1000)
    assert vision.walls_problem(walls) is None
    sight = vision.Sight(Walls(walls), 30, 20)
    assert len(sight.segments) == 2000
    eye = (3, 9)
    area = sight.of((*eye, 1, None))
    tree = Walls(walls).sight_tree
    # Points well off the edge of the area: seen exactly when no wall stands between.
    rng = np.random.default_rng(33)
    edge = area.boundary
    checked = 0
    for x, y in rng.uniform((0, 0), (30, 20), (300, 2)):
        point = shapely.Point(x, y)
        if edge.distance(point) < 0.05:
            continue
        ray = shapely.LineString([(eye[0] + 0.5, eye[1] + 0.5), (x, y)])
        assert area.contains(point) == (len(tree.query(ray, predicate="intersects")) == 0)
        checked += 1
    assert checked > 200


def test_from_inside_a_crossing_grid_a_viewer_sees_its_own_square() -> None:
    walls = crossing_grid(50)
    sight = vision.Sight(Walls(walls), 30, 20)
    assert len(sight.segments) == 2 * 50 * 51  # every wall cut at each of 50 crossings
    area = sight.of((15, 10, 1, None))
    step_x, step_y = 30 / 51, 20 / 51
    i, j = int(15.5 // step_x), int(10.5 // step_y)
    square = shapely.box(i * step_x, j * step_y, (i + 1) * step_x, (j + 1) * step_y)
    assert area.symmetric_difference(square).area < 1e-6


def test_walls_that_cross_into_more_pieces_than_the_map_allows_are_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit scaled down (``MAX_PIECES`` 5,000): a 49+49 grid stands, 50+50 does not."""
    monkeypatch.setattr(vision, "MAX_PIECES", 5000)
    monkeypatch.setattr(vision, "_NODED", [])
    assert vision.walls_problem(crossing_grid(49)) is None  # 4,998 pieces
    problem = vision.walls_problem(crossing_grid(50))  # 5,100
    assert problem == ("the walls make more than 5,000 straight pieces once split where "
                       "they cross, too many to work out sight")
    assert vision.noded(crossing_grid(50)) is None


def test_a_set_walls_of_a_huge_star_is_refused_in_one_sentence_and_changes_nothing(
        registry: Registry) -> None:
    referee = Referee(skirmish_state(), registry.get("skirmish"))
    before, log = referee.state.map.walls, len(referee.log)
    with pytest.raises(RuleError) as refused:
        referee.execute(SetWalls(star(10_000, (6.0, 5.0), 4.9)))
    assert str(refused.value).startswith("the walls lie too densely, across or alongside")
    assert "\n" not in str(refused.value)
    assert referee.state.map.walls == before and len(referee.log) == log


def test_a_file_whose_walls_cross_2500_by_2500_times_is_refused_by_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It took over 4 GB to draw with fog on; ``check`` now names it in one line."""
    from tacmap.cli import main
    from tests.engine.test_hostile_fuzz import hostile_file

    walls = [{"type": "wall", "points": list(map(list, w.points))} for w in crossing_grid(2500)]
    file = hostile_file(tmp_path, [("encounter", "map", "walls")], [walls])
    assert main(["check", str(file)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "map.walls: the walls" in err and "work out sight" in err


@settings(max_examples=40, deadline=None)
@given(segments, st.integers(0, 19), st.integers(0, 9), st.integers(1, 2),
       st.sampled_from([None, 3.0]))
def test_rays_cast_a_wedge_at_a_time_nearest_walls_first_see_the_same(
        raw: list[tuple[int, int, int, int]], x: int, y: int, size: int,
        reach: float | None) -> None:
    """The wedges and batches of a crowded map (256 rays and walls) cut down to three, so
    small maps take that road too: the same area as one table of every ray and wall."""
    walls = tuple(Wall(((a, b / 2), (c, d / 2))) for a, b, c, d in raw)
    whole = vision.Sight(Walls(walls), 20, 10).of((x, y, size, reach))
    wedge = vision._WEDGE
    try:
        vision._WEDGE = 3
        cut = vision.Sight(Walls(walls), 20, 10).of((x, y, size, reach))
    finally:
        vision._WEDGE = wedge
    assert cut.equals_exact(whole, 0)
