"""The turn machinery (tacmap.engine.rules.turns) as the test ruleset declares it in [turn]."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from tacmap.engine.model.commands import EndTurn, Move, Reorder, SetCondition, StartCombat
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import (
    ConditionChanged,
    DiceRolled,
    HpChanged,
    LeftReach,
    RoundChanged,
    ScheduleChanged,
    TokenMoved,
)
from tacmap.engine.model.state import Token
from tacmap.engine.play.referee import Referee, replay
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry, Resolution
from tacmap.engine.rules.schedule import OrderedTurns
from tacmap.engine.rules.turns import Trigger, TurnRuleset, TurnState
from tests.engine.helpers import skirmish_referee


@pytest.fixture
def rules(registry: Registry) -> Iterator[TurnRuleset[Any]]:
    """The test ruleset, its [turn] table restored after the test."""
    ruleset = registry.get("skirmish")
    assert isinstance(ruleset, TurnRuleset)
    turn = ruleset.turn
    yield ruleset
    ruleset.turn = turn


def declare(rules: TurnRuleset[Any], **keys: object) -> None:
    """The test ruleset's [turn] with ``keys`` changed, as if ruleset.toml said so."""
    rules.turn = msgspec.structs.replace(rules.turn, **keys)


def turns(referee: Referee) -> TurnState:
    assert isinstance(referee.state.schedule, TurnState)
    return referee.state.schedule


def test_alternating_diagonals_count_across_the_moves_of_a_turn(
        registry: Registry, rules: TurnRuleset[Any]) -> None:
    referee = skirmish_referee(registry)
    referee.state.diagonal = "alternating"
    referee.execute(StartCombat(("bo", "ana", "grul", "zog")))
    # Bo's first move takes one diagonal (1 m); the second one's diagonal is the turn's
    # second, so it costs 2 m, not 1.
    first = referee.execute(Move("bo", ((2, 4),)))
    assert [e.cost for e in first if isinstance(e, TokenMoved)] == [1.0]
    preview = referee.preview(Move("bo", ((3, 5),)))
    assert preview.legal and preview.cost == 2.0
    second = referee.execute(Move("bo", ((3, 5),)))
    assert [e.cost for e in second if isinstance(e, TokenMoved)] == [2.0]
    assert turns(referee).diagonals == 2 and turns(referee).moved == 3.0


def test_a_new_turn_restarts_the_diagonal_count(
        registry: Registry, rules: TurnRuleset[Any]) -> None:
    referee = skirmish_referee(registry)
    referee.state.diagonal = "alternating"
    referee.execute(StartCombat(("bo", "ana")))
    referee.execute(Move("bo", ((2, 4),)))
    referee.execute(EndTurn())
    referee.execute(EndTurn())
    assert turns(referee).current == "bo" and turns(referee).diagonals == 0
    moved = referee.execute(Move("bo", ((3, 5),)))
    assert [e.cost for e in moved if isinstance(e, TokenMoved)] == [1.0]


def test_the_moves_of_a_turn_share_its_budget(
        registry: Registry, rules: TurnRuleset[Any]) -> None:
    declare(rules, move_action=False, actions=1)
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("bo", "ana")))
    referee.execute(Move("bo", ((1, 7),)))
    assert rules.move_budget(referee.state, referee.state.tokens["bo"]) == 2.0
    with pytest.raises(RuleError, match="Bo can move 2 m, this path is 3 m"):
        referee.execute(Move("bo", ((4, 7),)))
    referee.execute(Move("bo", ((3, 7),)))
    assert turns(referee).actions_left == 1  # moving took no action
    options = {o.key: o for o in rules.actions_for(referee.state, "bo")}
    assert not options["move"].enabled and options["move"].reason == "no movement left this turn"


def test_a_move_may_not_end_on_a_square_taken_by_a_token_in_the_fight(
        registry: Registry, rules: TurnRuleset[Any]) -> None:
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("bo", "ana")))
    refused = referee.preview(Move("bo", ((1, 1),)))
    assert not refused.legal and refused.reason == "(1,1) is taken by Ana"
    referee.execute(SetCondition("ana", "dead"))
    assert referee.preview(Move("bo", ((1, 1),))).legal  # the fallen take no room


def test_turns_of_tokens_out_of_the_fight_are_skipped_as_the_ruleset_says(
        registry: Registry, rules: TurnRuleset[Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "out_of_fight",
                        lambda token: "down" in token.conditions or not token.alive)
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("ana", "bo", "grul", "zog")))
    referee.execute(SetCondition("bo", "down"))
    referee.execute(SetCondition("zog", "down"))
    referee.execute(EndTurn())
    assert turns(referee).current == "grul"
    events = referee.execute(EndTurn())
    assert [type(e) for e in events] == [RoundChanged, ScheduleChanged]
    assert turns(referee).current == "ana" and turns(referee).round == 2


def test_a_rolled_order_is_rolled_again_each_round(
        registry: Registry, rules: TurnRuleset[Any]) -> None:
    declare(rules, order="rolled", initiative_stat="atk")
    referee = skirmish_referee(registry)
    # Ana 10+4, Bo 12+2 (a tie goes to the higher stat), Grul 3, Zog 20.
    referee.execute(StartCombat(), FixedDice([10, 12, 3, 20]))
    assert turns(referee).order == ("zog", "ana", "bo", "grul")
    panel = rules.turn_order(referee.state)
    assert panel is not None and [r.key for r in panel.rows] == ["20", "14", "14", "3"]
    for _ in range(3):
        referee.execute(EndTurn())
    # Rolled in last round's order: Zog 1, Ana 2+4, Bo 3+2, Grul 4.
    events = referee.execute(EndTurn(), FixedDice([1, 2, 3, 4]))
    assert [type(e) for e in events] == [RoundChanged, *[DiceRolled] * 4, ScheduleChanged]
    assert turns(referee).order == ("ana", "bo", "grul", "zog")
    assert turns(referee).round == 2 and turns(referee).current == "ana"


def test_an_order_by_side_puts_the_side_that_rolled_higher_first(
        registry: Registry, rules: TurnRuleset[Any]) -> None:
    declare(rules, order="sides", initiative_die=6)
    referee = skirmish_referee(registry)
    # party 2, orcs 2: a tie, rolled again: party 1, orcs 5.
    events = referee.execute(StartCombat(), FixedDice([2, 2, 1, 5]))
    assert sum(isinstance(e, DiceRolled) for e in events) == 4
    assert turns(referee).order == ("grul", "zog", "ana", "bo")


def test_a_reaction_that_drops_the_mover_stops_the_move_where_it_struck(
        registry: Registry, rules: TurnRuleset[Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    def reacts_to(state: object, enemy: Token, mover: Token, trigger: Trigger) -> bool:
        return trigger == "leaves"

    def react(ctx: Resolution, enemy: Token, mover: Token, trigger: Trigger) -> bool:
        ctx.emit(HpChanged(mover.id, mover.hp, 0, f"{enemy.name} strikes"))
        ctx.emit(ConditionChanged(mover.id, "dead", True))
        return False

    monkeypatch.setattr(rules, "reacts_to", reacts_to)
    monkeypatch.setattr(rules, "react", react)
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("ana", "bo", "grul", "zog")))
    before = copy.deepcopy(referee.state)
    # Ana at (1,1) beside Grul at (2,1) runs down to (1,6): she leaves Grul's reach at
    # (1,2), and Grul's blow falls while she is still at (1,1).
    events = referee.execute(Move("ana", ((1, 6),)))
    kinds = [type(e) for e in events]
    assert kinds == [ScheduleChanged, HpChanged, ConditionChanged, ScheduleChanged]
    assert referee.state.tokens["ana"].cell == (1, 1) and turns(referee).moved == 0.0
    referee.undo()
    assert referee.state == before


def test_a_reaction_on_the_way_splits_the_move_and_it_goes_on(
        registry: Registry, rules: TurnRuleset[Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, tuple[int, int]]] = []

    def reacts_to(state: object, enemy: Token, mover: Token, trigger: Trigger) -> bool:
        return True

    def react(ctx: Resolution, enemy: Token, mover: Token, trigger: Trigger) -> bool:
        seen.append((f"{enemy.id} {trigger}", mover.cell))
        return False

    monkeypatch.setattr(rules, "reacts_to", reacts_to)
    monkeypatch.setattr(rules, "react", react)
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("ana", "bo", "grul", "zog")))
    start = copy.deepcopy(referee.state)
    events = referee.execute(Move("ana", ((1, 5),)))
    assert seen == [("grul leaves", (1, 1))]
    moved = [e for e in events if isinstance(e, TokenMoved)]
    assert [m.path[-1] for m in moved] == [(1, 5)] and moved[0].path[0] == (1, 1)
    assert [e.enemy for e in events if isinstance(e, LeftReach)] == ["grul"]
    assert replay(start, referee.log[-1:]) == referee.state


def test_a_reaction_that_says_stop_ends_the_move_and_charges_the_part_walked(
        registry: Registry, rules: TurnRuleset[Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    declare(rules, move_action=False, move=12)

    def reacts_to(state: object, enemy: Token, mover: Token, trigger: Trigger) -> bool:
        return trigger == "enters"

    monkeypatch.setattr(rules, "reacts_to", reacts_to)
    monkeypatch.setattr(rules, "react", lambda ctx, enemy, mover, trigger: True)
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("bo", "ana", "grul", "zog")))
    # Bo at (1,3) walks past Zog (2×2 at (8,3), reach 2) and is stopped as he enters it.
    plan = rules.plan(referee.state, referee.state.tokens["bo"], ((7, 5), (7, 8)))
    events = referee.execute(Move("bo", ((7, 5), (7, 8))))
    moved = [e for e in events if isinstance(e, TokenMoved)]
    bo, zog = referee.state.tokens["bo"], referee.state.tokens["zog"]
    assert len(moved) == 1 and moved[0].path[-1] == bo.cell != (7, 8)
    assert rules.in_reach(referee.state, zog, bo)
    assert turns(referee).moved == moved[0].cost < plan.cost


def test_the_gm_reorders_and_whoever_acts_keeps_the_turn(
        registry: Registry, rules: TurnRuleset[Any]) -> None:
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("ana", "bo", "grul", "zog")))
    referee.execute(Reorder(("grul", "ana", "bo", "zog")))
    assert turns(referee).current == "ana" and turns(referee).order[0] == "grul"


def test_a_ruleset_may_keep_a_plain_ordered_turns_in_its_saved_fights(
        registry: Registry, rules: TurnRuleset[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    # A built-in whose transcripts hold "ordered_turns" keeps writing exactly that.
    monkeypatch.setattr(rules, "schedule", OrderedTurns)
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("ana", "bo")))
    assert type(referee.state.schedule) is OrderedTurns
    events = referee.execute(Move("ana", ((1, 7),)))
    assert [type(e) for e in events] == [ScheduleChanged, TokenMoved, LeftReach]
    assert type(referee.state.schedule) is OrderedTurns
    referee.execute(EndTurn())
    assert referee.state.schedule.current == "bo"


def test_with_nobody_left_in_the_fight_end_turn_passes_one_round_at_most(
        registry: Registry, rules: TurnRuleset[Any]) -> None:
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("ana", "bo", "grul", "zog")))
    for token in ("ana", "bo", "grul", "zog"):
        referee.execute(SetCondition(token, "dead"))
    events = referee.execute(EndTurn())
    assert sum(isinstance(e, RoundChanged) for e in events) == 1
    assert turns(referee).round == 2
    assert [o.key for o in rules.actions_for(referee.state, turns(referee).current or "")] \
        == ["end_turn"]


def test_a_move_walked_in_parts_costs_what_its_plan_said(
        registry: Registry, rules: TurnRuleset[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "reacts_to", lambda state, enemy, mover, trigger: True)
    referee = skirmish_referee(registry)
    referee.state.diagonal = "euclidean"  # a straight leg costs less than its cells
    referee.execute(StartCombat(("ana", "bo", "grul", "zog")))
    plan = rules.plan(referee.state, referee.state.tokens["ana"], ((4, 2),))
    events = referee.execute(Move("ana", ((4, 2),)))
    parts = [e for e in events if isinstance(e, TokenMoved)]
    assert len(parts) == 2 and parts[0].path[-1] == parts[1].path[0]
    assert sum(p.cost for p in parts) == pytest.approx(plan.cost)
    assert turns(referee).moved == pytest.approx(plan.cost)


def test_a_ruleset_words_its_own_refusals_of_a_turn(
        registry: Registry, rules: TurnRuleset[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "not_turn", lambda state, actor: f"wait, {actor}")
    monkeypatch.setattr(rules, "cannot_act", lambda token: f"{token.name} is down")
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("ana", "bo")))
    assert referee.preview(Move("bo", ((2, 4),))).reason == "wait, bo"
    with pytest.raises(RuleError, match=r"^wait, bo$"):
        referee.execute(EndTurn("bo"))
    referee.execute(SetCondition("ana", "dead"))
    assert referee.preview(Move("ana", ((1, 7),))).reason == "Ana is down"


def test_a_fallen_body_may_still_take_up_its_square(
        registry: Registry, rules: TurnRuleset[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "holds_cell", lambda state, token: True)
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("bo", "ana")))
    referee.execute(SetCondition("ana", "dead"))
    refused = referee.preview(Move("bo", ((1, 1),)))
    assert not refused.legal and refused.reason == "(1,1) is taken by Ana"


def test_a_ruleset_may_allow_moves_before_combat_and_answer_a_finished_move(
        registry: Registry, rules: TurnRuleset[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    finished: list[tuple[str, tuple[tuple[int, int], ...]]] = []
    monkeypatch.setattr(rules, "move_turn_refusal", lambda state, token: None)
    monkeypatch.setattr(rules, "move_budget", lambda state, token: None)
    monkeypatch.setattr(rules, "moved", lambda ctx, token, cells: finished.append(
        (token.id, tuple(cells))))
    referee = skirmish_referee(registry)
    events = referee.execute(Move("bo", ((2, 4),)))
    # Placing a token before combat: no turn to count it against, only the move.
    assert [type(e) for e in events] == [TokenMoved]
    assert referee.state.schedule is None and referee.state.tokens["bo"].cell == (2, 4)
    moved = events[0]
    assert isinstance(moved, TokenMoved) and finished == [("bo", tuple(moved.path))]


def test_a_ruleset_may_let_the_gm_reorder_by_its_own_rule(
        registry: Registry, rules: TurnRuleset[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    def reorder(ctx: Resolution, order: tuple[str, ...]) -> None:
        old = turns_of(ctx)
        ctx.emit(ScheduleChanged(old, old.remove("bo"), "Bo leaves the order"))

    def turns_of(ctx: Resolution) -> OrderedTurns:
        assert isinstance(ctx.state.schedule, OrderedTurns)
        return ctx.state.schedule

    monkeypatch.setattr(rules, "reorder", reorder)
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("ana", "bo", "grul")))
    referee.execute(Reorder(("ana", "grul")))
    assert turns(referee).order == ("ana", "grul")


def test_a_move_in_combat_logs_who_moves_not_that_the_round_moves_on(
        registry: Registry) -> None:
    referee = skirmish_referee(registry)
    referee.execute(StartCombat(("ana", "bo", "grul", "zog")))
    events = referee.execute(Move("ana", ((1, 2),)))
    notes = [e.text(referee.state) for e in events if isinstance(e, ScheduleChanged)]
    assert notes == ["Ana moves"]
