"""Issue 27 item 2: the engine asks the ruleset who is out of the fight, not the ``dead`` mark.

``Downed`` is the skirmish test ruleset with one change: a token at 0 HP is out of
the fight, marked dead or not (as a game whose fallen are "down", not dead).
"""

from __future__ import annotations

import pytest

from tacmap.engine.files.report import fight
from tacmap.engine.model.commands import EndTurn, Move, SetHp, StartCombat
from tacmap.engine.model.events import LeftReach
from tacmap.engine.model.state import Token
from tacmap.engine.play.autoplay import Tally, standing
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.options import acting_token
from tacmap.engine.rules.ruleset import Registry, Ruleset
from tacmap.engine.rules.views import OrderRow, TurnOrder
from tacmap.engine.space import vision
from tests.engine.helpers import skirmish_state


def downed_ruleset(registry: Registry) -> Ruleset:
    """The skirmish rules, where 0 HP is out of the fight without the ``dead`` mark."""
    plain = registry.get("skirmish")

    class Downed(type(plain)):  # type: ignore[misc]
        def out_of_fight(self, token: Token) -> bool:
            return token.hp <= 0 or not token.alive

    ruleset: Ruleset = Downed(plain.manifest)
    return ruleset


@pytest.fixture
def downed(registry: Registry) -> Ruleset:
    return downed_ruleset(registry)


def test_a_down_enemy_threatens_no_one_and_is_left_without_a_reaction(
        registry: Registry, downed: Ruleset) -> None:
    state = skirmish_state()
    state.tokens["grul"].hp = 0
    plain = registry.get("skirmish")
    away, beside = Move("ana", ((0, 3),)), Move("ana", ((2, 2),))
    # Under the plain rules Grul, at 0 HP but not dead, still threatens.
    assert [e for e, _ in plain.preview(state, away).leaves] == ["grul"]
    assert plain.preview(state, beside).threats == ("grul",)
    assert downed.preview(state, away).leaves == ()
    assert downed.preview(state, beside).threats == ()
    left = []
    for rules in (plain, downed):
        referee = Referee(state.copy(), rules)
        referee.execute(StartCombat(("ana", "grul", "bo", "zog")))
        left.append([e.enemy for e in referee.execute(away) if isinstance(e, LeftReach)])
    assert left == [["grul"], []]


def test_a_down_enemy_bars_no_way(registry: Registry, downed: Ruleset) -> None:
    state = skirmish_state()
    state.tokens["grul"].hp = 0
    through = Move("ana", ((3, 1),))  # Grul lies at (2, 1), on the straight way
    around = registry.get("skirmish").preview(state, through)
    assert (2, 1) not in around.path and around.cost > 2
    straight = downed.preview(state, through)
    assert straight.path == ((1, 1), (2, 1), (3, 1)) and straight.cost == 2


def test_the_headless_tally_and_the_acting_side_skip_the_down(downed: Ruleset) -> None:
    state = skirmish_state()
    state.tokens["grul"].hp = 0
    tally = Tally()
    tally.turns["ana"] += 1
    assert tally.never_acted(state, downed.out_of_fight) == ["bo", "zog"]
    assert tally.never_acted(state) == ["bo", "grul", "zog"]  # marked dead only
    state.tokens["zog"].hp = 0
    assert standing(state, downed.out_of_fight) == {"party"}
    orcs = TurnOrder("Round 1", (OrderRow("orcs", "Orcs", "orcs", "", "acting"),))
    state.tokens["zog"].hp = 6
    assert acting_token(state, orcs, out=downed.out_of_fight) == "zog"
    assert acting_token(state, orcs) == "grul"


def test_the_report_counts_the_down_among_the_fallen(downed: Ruleset) -> None:
    referee = Referee(skirmish_state(), downed)
    referee.execute(StartCombat(("ana", "grul", "bo", "zog")))
    referee.execute(EndTurn())
    referee.execute(SetHp("grul", 0))
    people = {c.id: c for c in fight(referee.state, referee.log, out=downed.out_of_fight)
              .combatants}
    assert not people["grul"].standing and people["grul"].dropped == 1
    assert people["ana"].standing
    assert fight(referee.state, referee.log).combatants[2].standing  # marked dead only
    referee.execute(SetHp("grul", 4))
    people = {c.id: c for c in fight(referee.state, referee.log, out=downed.out_of_fight)
              .combatants}
    assert people["grul"].standing and people["grul"].dropped is None  # healed back up


def test_a_down_party_member_sees_nothing_under_fog(downed: Ruleset) -> None:
    state = skirmish_state()
    state.tokens["bo"].hp = 0
    eyes = vision.viewers(state, downed.out_of_fight)
    assert [(x, y) for x, y, _, _ in eyes] == [(1, 1)]  # Ana's; Bo is down
    assert len(vision.viewers(state)) == 2
