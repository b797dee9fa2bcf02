"""The headless driver plays through the referee with what the ruleset offers, and counts."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import pytest

from tacmap.engine.model import records
from tacmap.engine.model.state import Encounter
from tacmap.engine.play.autoplay import Choice, Driver, EveryOption, Table, contract, free_cell
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.schedule import OrderedTurns
from tacmap.engine.rules.views import ActionOption
from tests.engine.helpers import skirmish_referee

ATTACK = ActionOption("attack", "Attack", "token")
MOVE = ActionOption("move", "Move", "cell")
END = ActionOption("end_turn", "End turn")


def offers(monkeypatch: pytest.MonkeyPatch, registry: Registry,
           options: list[ActionOption]) -> None:
    """Make the test ruleset offer ``options`` to every token, greyed with a reason once
    the turn's actions are spent."""
    ruleset = registry.get("skirmish")

    def actions_for(state: Encounter, actor: str) -> list[ActionOption]:
        spent = isinstance(state.schedule, OrderedTurns) and state.schedule.actions_left == 0
        return [replace(o, enabled=False, reason="no actions left")
                if spent and o.key in ("attack", "move") else o for o in options]

    monkeypatch.setattr(ruleset, "actions_for", actions_for)


class AttackFarAway:
    """A policy that aims one attack at a token out of reach, whatever the preview says."""

    def __init__(self) -> None:
        self.sent = False

    def choose(self, table: Table, actor: str, options: Sequence[ActionOption]
               ) -> Choice | None:
        if self.sent or actor != "ana":
            return None
        self.sent = True
        return Choice(ATTACK, "zog")


def test_every_token_gets_turns_and_options_are_sent(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    offers(monkeypatch, registry, [ATTACK, MOVE, END])
    referee = skirmish_referee(registry)
    tally = Driver(referee, EveryOption(random.Random(3)), random.Random(3)).play(rounds=5)
    assert tally.rounds == 5
    assert tally.problems == [] and tally.refusals == 0
    assert {"ana", "bo", "grul", "zog"} <= set(tally.turns)
    assert tally.labels["Move"] > 0 and tally.executed > tally.ended
    assert tally.never_acted(referee.state) == []


def test_a_refused_option_is_a_problem_naming_the_option_and_the_reason(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    offers(monkeypatch, registry, [ATTACK, END])
    referee = skirmish_referee(registry)
    tally = Driver(referee, AttackFarAway()).play(rounds=1)
    assert tally.refusals == 1
    assert tally.problems == ["ana: Attack → zog was refused: Zog is 9 m away, out of reach"]


def test_a_disabled_option_without_a_reason_is_a_problem(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    offers(monkeypatch, registry, [ActionOption("act", "Shout", enabled=False), END])
    tally = Driver(skirmish_referee(registry), EveryOption(random.Random(1))).play(rounds=1)
    assert "'Shout' of ana is disabled with no reason" in tally.problems


def test_a_ruleset_that_never_places_a_newcomer_fails_the_contract(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    # A ``joined`` that does nothing: a combatant added mid-combat is not in the order.
    offers(monkeypatch, registry, [END])
    monkeypatch.setattr(registry.get("skirmish"), "joined", lambda ctx, token: None)
    referee = skirmish_referee(registry)
    tally = contract(referee, "join", rounds=3)
    assert tally.joined in referee.state.tokens and tally.turns[tally.joined] == 0
    assert tally.problems == [f"{tally.joined}, added mid-combat, never acted"]


def test_the_same_seed_plays_the_same_fight(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    offers(monkeypatch, registry, [ATTACK, MOVE, END])

    def fight(seed: int) -> object:
        referee = skirmish_referee(registry)
        Driver(referee, EveryOption(random.Random(seed)), random.Random(seed)).play(rounds=4)
        return records.plain([e.command for e in referee.log])

    assert fight(7) == fight(7)
    assert fight(7) != fight(8)


def test_a_fight_stops_when_asked(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    offers(monkeypatch, registry, [END])
    referee = skirmish_referee(registry)

    def second_round(state: Encounter) -> bool:
        return state.round >= 2

    tally = Driver(referee, EveryOption(random.Random(0))).play(rounds=10, stop=second_round)
    assert referee.state.round == 2 and tally.rounds == 1


def test_a_newcomer_goes_to_the_free_cell_nearest_the_middle(registry: Registry) -> None:
    state = skirmish_referee(registry).state
    assert free_cell(state, (2, 1)) not in {t.cell for t in state.tokens.values()}
    assert free_cell(state, (5, 5)) == (5, 5)


class EndsAtOnce:
    """A policy that always wants to end the turn."""

    def choose(self, table: Table, actor: str, options: Sequence[ActionOption]
               ) -> Choice | None:
        return None


def test_a_turn_that_cannot_end_goes_on_with_the_declared_option(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    """End turn greyed until a declared attack is made (reflex): the driver makes the
    attack aimed at its own target, not the other one, instead of giving up."""
    ruleset = registry.get("skirmish")
    declared = ActionOption("attack", "Attack Grul (declared)", "token", at="grul")
    other = ActionOption("attack", "Attack", "token")

    def actions_for(state: Encounter, actor: str) -> list[ActionOption]:
        spent = isinstance(state.schedule, OrderedTurns) and state.schedule.actions_left < 2
        if actor != "ana" or spent:
            return [END]
        return [other, declared, replace(END, enabled=False, reason="the declared attack first")]

    monkeypatch.setattr(ruleset, "actions_for", actions_for)
    referee = skirmish_referee(registry)
    tally = Driver(referee, EndsAtOnce(), random.Random(2)).play(rounds=2)
    assert tally.problems == []
    assert tally.labels == {"Attack Grul (declared)": 2}
    attacks = [e.command for e in referee.log if getattr(e.command, "target", "") == "grul"]
    assert len(attacks) == 2
