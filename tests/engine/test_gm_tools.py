"""The GM's table tools as commands: each logged as a sentence, undone, refused whole."""

from __future__ import annotations

import pytest

from tacmap.engine.model.commands import AddTokens, AdjustHp, MoveGroup, RemoveTokens, RollDice
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import GmRolled
from tacmap.engine.model.state import Token, Wall
from tacmap.engine.play.gm import group_problem, next_ids, next_names, taken_cells
from tacmap.engine.play.narrate import sentence
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.space import grid
from tests.engine.helpers import skirmish_referee


def said(ref: Referee) -> str:
    entry = ref.log[-1]
    return sentence(ref.state, entry.command, entry.events)


def test_a_gm_roll_is_logged_with_its_faces_and_moves_the_dice_stream(
        registry: Registry) -> None:
    ref = skirmish_referee(registry)
    drawn = ref.state.dice_drawn
    (event,) = ref.execute(RollDice("4d6kh3+1"), FixedDice([2, 6, 1, 5]))
    assert isinstance(event, GmRolled) and event.total == 14 and event.public
    assert said(ref) == "GM rolls 4d6kh3 [2 6 (1) 5] + 1 = 14"
    assert ref.state.dice_drawn == drawn + 4
    ref.execute(RollDice("d20", public=False), FixedDice([7]))
    assert said(ref) == "GM rolls d20 [7] = 7 (GM only)"
    ref.undo()
    ref.undo()
    assert ref.state.dice_drawn == drawn


def test_a_gm_roll_from_the_seeded_stream_replays_the_same(registry: Registry) -> None:
    first, second = skirmish_referee(registry, seed=9), skirmish_referee(registry, seed=9)
    assert first.execute(RollDice("3d8-1")) == second.execute(RollDice("3d8-1"))


def test_a_bad_gm_roll_is_refused_with_the_wrong_part_named(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    with pytest.raises(RuleError, match="'2x6' is not dice"):
        ref.execute(RollDice("2x6"))
    assert ref.log == []


def test_gm_damage_and_healing_are_sentences_with_the_hp_before_and_after(
        registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(AdjustHp("grul", -4))
    assert said(ref) == "GM deals 4 damage to Grul: 6 → 2 HP"
    ref.execute(AdjustHp("grul", 3))
    assert said(ref) == "GM heals Grul by 3: 2 → 5 HP"
    assert ref.state.tokens["grul"].hp == 5
    ref.undo()
    ref.undo()
    assert ref.state.tokens["grul"].hp == 6
    with pytest.raises(RuleError, match="a change of 0 hit points changes nothing"):
        ref.execute(AdjustHp("grul", 0))


def test_a_group_moves_as_one_logged_command_keeping_its_formation(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(MoveGroup((("ana", (1, 6)), ("bo", (1, 8)), ("grul", (2, 6)))))
    cells = {t: ref.state.tokens[t].cell for t in ("ana", "bo", "grul")}
    assert cells == {"ana": (1, 6), "bo": (1, 8), "grul": (2, 6)}
    assert len(ref.log) == 1
    assert said(ref) == "GM moves Ana, Bo and Grul together"
    ref.undo()
    assert ref.state.tokens["ana"].cell == (1, 1) and ref.state.tokens["bo"].cell == (1, 3)


def test_a_group_move_may_step_into_a_cell_another_member_leaves(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(MoveGroup((("ana", (2, 1)), ("grul", (3, 1)))))  # Ana takes Grul's old cell
    assert ref.state.tokens["ana"].cell == (2, 1)


@pytest.mark.parametrize(("moves", "why"), [
    ((("ana", (1, 5)), ("bo", (8, 3))), "Bo would land on Zog at (8,3)"),
    ((("ana", (1, 5)), ("bo", (1, 5))), "Bo would land on Ana at (1,5)"),
    ((("ana", (1, 5)), ("bo", (12, 3))), "Bo would land off the map at (12,3)"),
    ((("ana", (1, 5)), ("zog", (5, 0))), "Zog would stand across a wall at (5,0)"),
])
def test_a_group_move_is_refused_as_a_whole(registry: Registry,
                                            moves: tuple[tuple[str, tuple[int, int]], ...],
                                            why: str) -> None:
    ref = skirmish_referee(registry)
    with pytest.raises(RuleError, match=why.replace("(", r"\(").replace(")", r"\)")):
        ref.execute(MoveGroup(moves))
    assert ref.state.tokens["ana"].cell == (1, 1) and ref.log == []


def test_a_group_cannot_land_on_an_obstacle(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.state.map.walls = (Wall(((0, 6), (3, 6), (3, 9), (0, 9)), closed=True),)
    with pytest.raises(RuleError, match=r"Ana would land on an obstacle at \(1,7\)"):
        ref.execute(MoveGroup((("ana", (1, 7)),)))


def test_the_cells_taken_worked_out_once_give_the_same_answer_for_every_step(
        registry: Registry) -> None:
    ref = skirmish_referee(registry)
    state, walls = ref.state, ref.ruleset.space.walls(ref.state)
    taken = taken_cells(state, ("ana", "bo"))
    assert taken[(8, 4)] == "Zog" and (1, 1) not in taken
    for dx in range(-1, 9):
        moves = {"ana": (1 + dx, 1), "bo": (1 + dx, 3)}
        once = group_problem(state, moves, walls.blocked_cells, walls.blocked_steps, taken)
        assert once == group_problem(state, moves, walls.blocked_cells, walls.blocked_steps)
    assert group_problem(state, {"ana": (8, 1), "bo": (8, 3)}, walls.blocked_cells,
                         walls.blocked_steps, taken) == "Bo would land on Zog at (8,3)"


def test_pasted_tokens_get_new_ids_and_names_and_go_in_as_one_command(
        registry: Registry) -> None:
    ref = skirmish_referee(registry)
    grul = ref.state.tokens["grul"]
    names, ids = next_names(ref.state, grul.name, 2), next_ids(ref.state, grul.id, 2)
    assert (names, ids) == (["Grul 2", "Grul 3"], ["grul_2", "grul_3"])
    copies = tuple(Token(i, n, grul.side, x, 8, hp=grul.hp, max_hp=grul.max_hp)
                   for i, n, x in zip(ids, names, (4, 5), strict=True))
    ref.execute(AddTokens(copies))
    assert said(ref) == "GM adds Grul 2 and Grul 3"
    assert next_names(ref.state, "Grul 3", 1) == ["Grul 4"]
    with pytest.raises(RuleError, match=r"Grul 2 would land on Grul 2 at \(4,8\)"):
        ref.execute(AddTokens((Token("x", "Grul 2", "orcs", 4, 8),)))
    ref.execute(RemoveTokens(("grul_2", "grul_3", "ana")))
    assert said(ref) == "GM removes Grul 2, Grul 3 and Ana"
    assert set(ref.state.tokens) == {"bo", "grul", "zog"}
    ref.undo()
    assert list(ref.state.tokens) == ["ana", "bo", "grul", "zog", "grul_2", "grul_3"]


@pytest.mark.parametrize(("rule", "length"), [
    ("rectilinear", 8.0), ("chebyshev", 5.0), ("alternating", 6.0), ("euclidean", 6.2426)])
def test_the_ruler_measures_waypoints_under_every_diagonal_rule(rule: str,
                                                                length: float) -> None:
    """Three diagonal steps to a waypoint, then two straight: (0,0) → (3,3) → (3,5)."""
    assert grid.path_length(rule, [(0, 0), (3, 3), (3, 5)]) == pytest.approx(length, abs=1e-4)
