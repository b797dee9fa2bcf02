"""Area templates: the cells each shape covers under each diagonal rule, tokens inside,
walls, and lasting templates through the referee (undo, save and load)."""

from __future__ import annotations

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import PlaceTemplate, RemoveTemplate
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.events import TemplatePlaced, TemplateRemoved
from tacmap.engine.model.state import Cell, Encounter, MapSpec, Template, Token, Wall
from tacmap.engine.play.narrate import sentence
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.space.templates import MAX_SIZE, cells, tokens_inside
from tests.engine.helpers import skirmish_referee

RULES = ("rectilinear", "chebyshev", "alternating", "euclidean")


def board(rule: str, *tokens: Token, walls: tuple[Wall, ...] = ()) -> Encounter:
    state = Encounter("skirmish", diagonal=rule, map=MapSpec(11, 11, walls=walls))
    for t in tokens:
        state.tokens[t.id] = t
    return state


def picture(area: set[Cell], x0: int, y0: int, x1: int, y1: int) -> list[str]:
    """Rows of the box [x0, x1]×[y0, y1]: # covered, . not."""
    return ["".join("#" if (x, y) in area else "." for x in range(x0, x1 + 1))
            for y in range(y0, y1 + 1)]


# Radius 2 round (5, 5), drawn over the box (3, 3)–(7, 7), hand-checked:
# rectilinear counts dx + dy; chebyshev the larger; alternating 1, 2, 1 for diagonals
# ((2, 2) costs 3: out); euclidean the straight line ((1, 1) is 1.41: in, (2, 1) 2.24: out).
CIRCLES = {
    "rectilinear": ["..#..", ".###.", "#####", ".###.", "..#.."],
    "chebyshev": ["#####", "#####", "#####", "#####", "#####"],
    "alternating": [".###.", "#####", "#####", "#####", ".###."],
    "euclidean": ["..#..", ".###.", "#####", ".###.", "..#.."],
}

# A 90° cone of length 3 from (1, 5) pointing right, over the box (1, 2)–(4, 8).
CONES = {
    "rectilinear": ["....", "....", ".##.", ".###", ".##.", "....", "...."],
    "chebyshev": ["...#", "..##", ".###", ".###", ".###", "..##", "...#"],
    "alternating": ["....", "..#.", ".###", ".###", ".###", "..#.", "...."],
    "euclidean": ["....", "..#.", ".##.", ".###", ".##.", "..#.", "...."],
}


@pytest.mark.parametrize("rule", RULES)
def test_a_circle_covers_the_cells_within_its_radius_by_the_diagonal_rule(rule: str) -> None:
    area = cells(Template("circle", (5, 5), 2), board(rule))
    assert picture(area, 3, 3, 7, 7) == CIRCLES[rule]
    assert area <= {(x, y) for x in range(3, 8) for y in range(3, 8)}


@pytest.mark.parametrize("rule", RULES)
def test_a_cone_covers_the_cells_within_its_length_and_half_angle(rule: str) -> None:
    area = cells(Template("cone", (1, 5), 3, toward=(9, 5)), board(rule))
    assert picture(area, 1, 2, 4, 8) == CONES[rule]
    assert (1, 5) not in area, "the apex is the caster's own cell"


@pytest.mark.parametrize("rule", RULES)
def test_a_line_covers_the_cells_along_it_out_to_its_length(rule: str) -> None:
    straight = cells(Template("line", (1, 5), 4, toward=(9, 5)), board(rule))
    assert straight == {(2, 5), (3, 5), (4, 5), (5, 5)}
    diagonal = cells(Template("line", (1, 1), 4, toward=(9, 9)), board(rule))
    # Along the diagonal, the rule decides how far 4 cells go.
    far = {"rectilinear": 2, "chebyshev": 4, "alternating": 3, "euclidean": 2}[rule]
    assert diagonal == {(1 + i, 1 + i) for i in range(1, far + 1)}


@pytest.mark.parametrize("rule", RULES)
def test_a_wide_line_and_a_square(rule: str) -> None:
    wide = cells(Template("line", (0, 5), 3, toward=(5, 5), width=3), board(rule))
    far = {"rectilinear": 2, "chebyshev": 3, "alternating": 3, "euclidean": 2}[rule]
    side = {(x, 4) for x in range(1, far + 1)} | {(x, 6) for x in range(1, far + 1)}
    assert wide == {(x, 5) for x in range(1, 4)} | side
    square = cells(Template("square", (5, 5), 3, toward=(0, 0)), board(rule))
    assert square == {(x, y) for x in range(3, 6) for y in range(3, 6)}
    assert cells(Template("square", (9, 9), 3), board(rule)) == {(9, 9), (10, 9), (9, 10),
                                                                (10, 10)}, "cut at the edge"


@pytest.mark.parametrize("rule", RULES)
def test_a_token_is_inside_when_any_of_its_cells_is(rule: str) -> None:
    state = board(rule,
                  Token("ana", "Ana", "a", 5, 5),
                  Token("ogre", "Ogre", "b", 6, 6, size=2),   # (6, 6) is near the centre
                  Token("far", "Far", "b", 9, 9),
                  Token("edge", "Edge", "b", 5, 2, size=2))    # (5, 3) at distance 2
    inside = tokens_inside(Template("circle", (5, 5), 2), state)
    assert inside == ["ana", "ogre", "edge"]


def test_a_wall_between_the_origin_and_a_token_leaves_it_out() -> None:
    wall = Wall(((7, 3), (7, 8)))
    state = board("chebyshev",
                  Token("a", "A", "x", 5, 4), Token("b", "B", "x", 6, 5),
                  Token("c", "C", "x", 6, 6), Token("hid", "Hid", "x", 7, 5),
                  walls=(wall,))
    cone = Template("cone", (4, 5), 4, toward=(9, 5))
    area = cells(cone, state)
    assert (6, 5) in area and (7, 5) not in area and (8, 5) not in area
    assert tokens_inside(cone, state) == ["a", "b", "c"]
    see_through = Wall(((7, 3), (7, 8)), blocks_sight=False)
    state.map.walls = (see_through,)
    assert tokens_inside(cone, state) == ["a", "b", "c", "hid"], "a low fence blocks nothing"


@pytest.mark.parametrize("bad, said", [
    (Template("blob", (1, 1), 2), "no template shape 'blob'"),
    (Template("circle", (1, 1), MAX_SIZE + 1), f"must be 1 to {MAX_SIZE} cells"),
    (Template("circle", (1, 1), 0), "must be 1 to"),
    (Template("cone", (1, 1), 3), "a cone needs a direction"),
    (Template("line", (1, 1), 3, toward=(1, 1)), "a line needs a direction"),
    (Template("circle", (40, 1), 3), "origin (40,1) is off the 11×11 map"),
    (Template("cone", (1, 1), 3, toward=(2, 2), angle=0), "angle must be 1° to 360°"),
])
def test_an_absurd_template_is_refused_with_a_sentence(registry: Registry, bad: Template,
                                                       said: str) -> None:
    ref = skirmish_referee(registry)
    ref.state.map = MapSpec(11, 11)
    before = ref.state.copy()
    with pytest.raises(RuleError, match=said.replace("(", r"\(").replace(")", r"\)")):
        ref.execute(PlaceTemplate(bad, "Oops"))
    assert ref.state == before


def test_placing_and_removing_a_template_is_logged_undone_and_saved(
        registry: Registry, tmp_path: object) -> None:
    ref = skirmish_referee(registry)
    fog = Template("circle", (1, 2), 1)
    events = ref.execute(PlaceTemplate(fog, "Cloud of fog"))
    assert isinstance(events[0], TemplatePlaced)
    assert events[0].text(ref.state) == "Cloud of fog placed: covers Ana, Bo"
    assert sentence(ref.state, ref.log[-1].command) == \
        "GM places Cloud of fog (circle, radius 1)"
    assert [p.id for p in ref.state.templates] == ["t1"]
    ref.execute(PlaceTemplate(Template("square", (8, 3), 2), "Wall of fire"))
    assert [p.label for p in ref.state.templates] == ["Cloud of fog", "Wall of fire"]
    with pytest.raises(RuleError, match="already a template 't1'"):
        ref.execute(PlaceTemplate(fog, "Again", "t1"))
    removed = ref.execute(RemoveTemplate("t1"))
    assert isinstance(removed[0], TemplateRemoved)
    assert removed[0].text(ref.state) == "Cloud of fog is taken off the map"
    assert [p.id for p in ref.state.templates] == ["t2"]
    with pytest.raises(RuleError, match="no template 't1'"):
        ref.execute(RemoveTemplate("t1"))
    # Saved and read back with its log, then undone to the start.
    raw = storage.encode(ref.state, ref.log)
    loaded = storage.loads(raw, registry)
    assert loaded.state == ref.state and loaded.log == ref.log
    storage.verify(loaded)
    ref.undo()
    assert [p.id for p in ref.state.templates] == ["t1", "t2"]
    ref.undo()
    ref.undo()
    assert not ref.state.templates
    ref.redo()
    assert [p.label for p in ref.state.templates] == ["Cloud of fog"]


def test_a_file_with_a_template_off_the_map_is_refused(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(PlaceTemplate(Template("circle", (1, 2), 1), "Cloud"))
    raw = storage.encode(ref.state, ref.log).replace(b'"origin":[1,2]', b'"origin":[500,2]')
    with pytest.raises(InputError, match=r"templates\[0\]: the template's origin \(500,2\) is "
                                         "off the 12×10 map"):
        storage.loads(raw, registry)


def test_the_bulk_sight_test_agrees_with_the_one_by_one_test() -> None:
    from tacmap.engine.space.geometry import Walls

    walls = Walls((Wall(((3, 0), (3, 6))), Wall(((5, 2), (8, 2)), blocks_sight=False),
                   Wall(((6, 5), (7, 5), (7, 7)), closed=True)))
    others = [(x, y) for x in range(10) for y in range(8)]
    assert walls.sight_blocked_from((1, 3), others) == \
        [walls.sight_blocked((1, 3), b) for b in others]
    assert any(walls.sight_blocked_from((5, 6), others))
