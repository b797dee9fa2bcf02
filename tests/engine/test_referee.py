"""The one door: preview, execute, undo, redo, replay, overrides, listeners."""

from __future__ import annotations

import copy
from itertools import pairwise

import pytest

from tacmap.engine.model.commands import (
    AddToken,
    Attack,
    EndTurn,
    FreeMove,
    Move,
    RemoveToken,
    Reorder,
    SetCondition,
    SetHp,
    SetValue,
    StartCombat,
)
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import HpChanged, TokenMoved
from tacmap.engine.model.state import Token
from tacmap.engine.play.referee import Referee, rejudge, replay
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry
from tests.engine.helpers import skirmish_referee, skirmish_state


def test_preview_changes_nothing_and_says_cost_and_reach(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(StartCombat(("ana", "grul", "bo", "zog")))
    before = copy.deepcopy(ref.state)
    p = ref.preview(Move("ana", ((1, 4),)))
    assert p.legal and p.cost == 3.0 and p.budget == 6.0
    assert p.leaves == (("grul", 1),)
    assert p.path == ((1, 1), (1, 2), (1, 3), (1, 4))
    too_far = ref.preview(Move("ana", ((5, 5),)))
    assert not too_far.legal and "can move 6 m, this path is 8 m" in too_far.reason
    assert ref.state == before and len(ref.log) == 1


def test_a_move_goes_round_a_wall_and_pays_for_the_detour(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    state = ref.state
    state.tokens["ana"].x, state.tokens["ana"].y = 5, 1
    ref.execute(StartCombat(("ana", "grul", "bo", "zog")))
    p = ref.preview(Move("ana", ((7, 1),)))
    # The wall on the line x=6 runs from y=0 to y=4: down 3 to row 4, across,
    # back up 3 and on: 8 m instead of 2, more than the 6 m a move allows.
    assert p.cost == 8.0 and not p.legal and "this path is 8 m" in p.reason
    steps = set(pairwise(p.path))
    assert ((5, 1), (6, 1)) not in steps and p.path[4] == (6, 4)


def test_illegal_command_changes_nothing(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(StartCombat(("ana", "grul", "bo", "zog")))
    before = copy.deepcopy(ref.state)
    with pytest.raises(RuleError, match="not Grul's turn"):
        ref.execute(Attack("grul", "ana"))
    # A failure half way (the damage die is missing) rolls back the events already applied.
    with pytest.raises(RuleError, match="need 1d6"):
        ref.execute(Attack("ana", "grul"), FixedDice([19]))
    assert ref.state == before and len(ref.log) == 1


def test_undo_redo_restore_exactly_and_redo_never_rerolls(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.execute(StartCombat(("ana", "grul", "bo", "zog")))
    after_start = copy.deepcopy(ref.state)
    events = ref.execute(Attack("ana", "grul"))
    after_attack = copy.deepcopy(ref.state)
    assert ref.undo() is not None
    assert ref.state == after_start
    assert ref.redo() is not None
    assert ref.state == after_attack
    assert ref.log[-1].events == events
    assert ref.redo() is None
    ref.undo()
    ref.undo()
    assert ref.undo() is None


def test_after_undo_the_same_command_draws_the_same_dice(registry: Registry) -> None:
    # The stream position is state: undoing an attack to try again gives the same faces.
    ref = skirmish_referee(registry)
    ref.execute(StartCombat())
    first = ref.execute(Attack("ana", "grul"))
    ref.undo()
    assert ref.execute(Attack("ana", "grul")) == first


def test_replay_and_rejudge_reach_the_live_state(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    start = copy.deepcopy(ref.state)
    commands = [StartCombat(("ana", "grul", "bo", "zog")), Attack("ana", "grul"),
                Move("ana", ((1, 2),)), EndTurn(), Move("grul", ((3, 1),)), EndTurn()]
    for cmd in commands:
        ref.execute(cmd)
    assert replay(start, ref.log) == ref.state
    assert ref.initial_state() == start
    again = rejudge(start, ref.ruleset, commands)
    assert again.state == ref.state
    assert [e.events for e in again.log] == [e.events for e in ref.log]


def test_gm_overrides_are_logged_and_undoable(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    before = copy.deepcopy(ref.state)
    ref.execute(FreeMove("zog", (0, 8)))
    ref.execute(SetHp("ana", 3))
    ref.execute(SetValue("bo", "mood", "grim"))
    ref.execute(SetCondition("bo", "prone"))
    ref.execute(AddToken(Token("imp", "Imp", "orcs", 10, 8)))
    ref.execute(RemoveToken("grul"))
    ref.execute(StartCombat(("ana", "bo", "zog", "imp")))
    ref.execute(Reorder(("imp", "bo", "zog", "ana")))
    s = ref.state
    assert s.tokens["zog"].cell == (0, 8) and s.tokens["ana"].hp == 3
    assert s.tokens["bo"].values["mood"] == "grim" and "grul" not in s.tokens
    assert s.tokens["bo"].conditions == ("prone",)
    assert ref.ruleset.turn_order(s) is not None
    assert [r.id for r in ref.ruleset.turn_order(s).rows] == ["imp", "bo", "zog", "ana"]
    assert isinstance(ref.log[0].events[0], TokenMoved)
    assert isinstance(ref.log[1].events[0], HpChanged)
    while ref.undo():
        pass
    assert ref.state == before
    assert list(ref.state.tokens) == list(before.tokens)


@pytest.mark.parametrize(("cmd", "reason"), [
    (FreeMove("zog", (11, 0)), "off the map"),       # a 2×2 token at x=11 sticks out
    (FreeMove("nobody", (1, 1)), "no token 'nobody'"),
    (AddToken(Token("ana", "Ana 2", "party", 0, 0)), "already a token 'ana'"),
    (Reorder(("ana",)), "combat has not started"),
    (SetCondition("bo", "prone", on=False), "Bo is not prone"),
])
def test_nonsense_overrides_are_refused(registry: Registry, cmd: object, reason: str) -> None:
    ref = skirmish_referee(registry)
    before = copy.deepcopy(ref.state)
    with pytest.raises(RuleError, match=reason):
        ref.execute(cmd)  # type: ignore[arg-type]
    assert ref.state == before


def test_listeners_hear_every_change(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    heard: list[str] = []
    ref.subscribe(lambda change, entry: heard.append(change))
    ref.execute(FreeMove("ana", (0, 0)))
    ref.undo()
    ref.redo()
    assert heard == ["execute", "undo", "redo"]
    assert ref.version == 3


def test_a_referee_refuses_a_state_of_another_ruleset(registry: Registry) -> None:
    state = skirmish_state()
    state.ruleset = "other"
    with pytest.raises(RuleError, match="uses ruleset 'other'"):
        Referee(state, registry.get("skirmish"))


def test_undoing_a_lost_condition_puts_it_back_in_its_place(registry: Registry) -> None:
    ref = skirmish_referee(registry)
    ref.state.tokens["bo"].conditions = ("prone", "stunned")
    before = copy.deepcopy(ref.state)
    ref.execute(SetCondition("bo", "prone", on=False))
    assert ref.state.tokens["bo"].conditions == ("stunned",)
    ref.undo()
    assert ref.state == before


def test_an_entry_that_does_not_fit_the_map_refuses_to_undo(registry: Registry) -> None:
    from tacmap.engine.model.events import HpChanged
    from tacmap.engine.play.referee import Entry

    ref = skirmish_referee(registry)
    ref.log.append(Entry(SetHp("ghost", 3), (HpChanged("ghost", 5, 3, "GM"),)))
    before = copy.deepcopy(ref.state)
    with pytest.raises(RuleError, match="the log does not match the map"):
        ref.undo()
    assert ref.state == before and len(ref.log) == 1


def test_the_gm_names_the_players_side(registry: Registry) -> None:
    from tacmap.engine.model.commands import SetParty

    ref = skirmish_referee(registry)
    ref.execute(SetParty("orcs"))
    assert ref.state.party == "orcs"
    with pytest.raises(RuleError, match="no token is on the side 'elves'"):
        ref.execute(SetParty("elves"))
    ref.undo()
    assert ref.state.party == ""
