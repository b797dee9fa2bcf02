"""opposed's house rules, one headless case per value: the text's sentence, the script,
the dice, the result."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest

from tacmap.engine.model.commands import Act, Attack, SetHouseRule, StartCombat
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import Said
from tacmap.engine.model.state import MapSpec, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry, Ruleset


def surprise_shot(rules: Ruleset, rule: str) -> Referee:
    """Lio (bow, SL 4: 2d8) marked for the surprise round, Brak (light armour 1d4) afar."""
    state = rules.new_encounter("t", seed=1)
    state.map = MapSpec(20, 10)
    state.tokens = {
        "lio": Token("lio", "Lio", "party", 2, 2, hp=12, max_hp=12,
                     stats={"weapon": "bow", "weapon_sl": 4, "form_sl": 1}),
        "brak": Token("brak", "Brak", "foes", 14, 2, hp=30, max_hp=30,
                      stats={"armour": "light", "defense_sl": 1}),
    }
    ref = Referee(state, rules)
    if rule:
        ref.execute(SetHouseRule("surprise_criticals", rule))
    ref.execute(Act("brak", "surprise", "lio"))
    ref.execute(StartCombat())
    return ref


def said(events: Sequence[object]) -> list[str]:
    return [e.message for e in events if isinstance(e, Said)]


@pytest.fixture
def rules(registry: Registry) -> Ruleset:
    return registry.get("opposed")


def test_surprise_criticals_none_is_the_text(rules: Ruleset) -> None:
    # "Surprise attacks may not critical ..., unless declared otherwise by the Storyteller."
    ref = surprise_shot(rules, "")
    # Arrow 2d8 [8 8] + 4 = 20, no defence roll; damage 2d6 [3 3] + 1, armour 1d4 [2].
    events = ref.execute(Attack("lio", "brak"), FixedDice([8, 8, 3, 3, 2]))
    assert "attack hits: attack 20, a surprise attack: no defence roll, no critical" \
        in said(events)
    assert ref.state.tokens["brak"].hp == 25


def test_surprise_criticals_allowed_doubles_the_defence_rolled_for_it(rules: Ruleset) -> None:
    # Declared otherwise: the hit stands, the defence is rolled to judge a critical only.
    ref = surprise_shot(rules, "allowed")
    # Arrow [8 8] + 4 = 20 against defence 2d6 [2 2] + 1 = 5: at least double, a critical;
    # the next tier's damage 2d10 [9 9] + 1 = 19, armour [2]: 17 off.
    events = ref.execute(Attack("lio", "brak"), FixedDice([8, 8, 2, 2, 9, 9, 2]))
    assert any(m.startswith("critical: attack 20 against defence 5") for m in said(events)), \
        said(events)
    assert ref.state.tokens["brak"].hp == 13


def test_the_odds_card_gives_a_surprise_shot_its_chance_of_a_critical(rules: Ruleset) -> None:
    # The card follows the rule: no critical by the text; allowed, the chance that the
    # arrow's 2d8 + 4 reaches double the defence's 2d6 + 1 (no shield die: it is rolled
    # for the critical only), every face counted here. The hit stands either way.
    import itertools

    double = sum(a1 + a2 + 4 >= 2 * (d1 + d2 + 1) for a1, a2, d1, d2 in
                 itertools.product(range(1, 9), range(1, 9), range(1, 7), range(1, 7)))
    for rule, chance in (("", 0.0), ("allowed", double / (8 * 8 * 6 * 6))):
        ref = surprise_shot(rules, rule)
        odds = ref.preview(Attack("lio", "brak")).odds
        assert odds is not None
        assert odds.success == 1.0
        crit = dict(odds.chances)["Chance of a critical (at least double)"]
        assert crit == pytest.approx(chance)


def test_surprise_armour_ignored_goes_past_armour(rules: Ruleset) -> None:
    # "... the target may still utilize armor ..., unless declared otherwise".
    ref = surprise_shot(rules, "")
    ref.execute(SetHouseRule("surprise_armour", "ignored"))
    ref.execute(Attack("lio", "brak"), FixedDice([8, 8, 3, 3]))  # no armour die
    assert ref.state.tokens["brak"].hp == 23


def falling_at(rules: Ruleset, rule: str) -> Referee:
    """Ana strikes Brak (Vigor 10, Health 2), side by side."""
    state = rules.new_encounter("t", seed=1)
    state.map = MapSpec(20, 8)
    state.tokens = {
        "ana": Token("ana", "Ana", "party", 2, 2, hp=20, max_hp=20,
                     stats={"weapon": "sword", "form_sl": 40}),
        "brak": Token("brak", "Brak", "foes", 3, 2, hp=2, max_hp=20, stats={"vigor": 10}),
    }
    ref = Referee(state, rules)
    if rule:
        ref.execute(SetHouseRule("death_past_line", rule))
    ref.execute(StartCombat(("ana", "brak")))
    return ref


@pytest.mark.parametrize(("rule", "condition"), [("", "falling"), ("dead", "dead")])
def test_death_past_the_line_by_one_blow(rules: Ruleset, rule: str, condition: str) -> None:
    # "falling when they reach zero Health ... dead should their Health drop below negative
    # Vigor": a blow from 2 far past −10 leaves Brak falling (the text) or dead (house rule).
    ref = falling_at(rules, rule)
    ref.execute(Attack("ana", "brak"), FixedDice([6, 6, 1, 1, 6, 6]))
    brak = ref.state.tokens["brak"]
    assert brak.hp <= -10
    assert condition in brak.conditions


def test_a_house_rule_is_a_logged_undoable_command(rules: Ruleset) -> None:
    ref = surprise_shot(rules, "")
    ref.execute(SetHouseRule("surprise_criticals", "allowed"))
    assert ref.state.house_rules == {"surprise_criticals": "allowed"}
    assert rules.house_rule(ref.state, "surprise_criticals") == "allowed"
    ref.undo()
    assert ref.state.house_rules == {}
    assert rules.house_rule(ref.state, "surprise_criticals") == "none"


@pytest.mark.parametrize(("key", "value", "sentence"), [
    ("surprise_crits", "allowed", "there is no house rule 'surprise_crits'"),
    ("surprise_criticals", "maybe", "house rule surprise_criticals: 'maybe' is not one of its "
                                    "values (none, allowed)"),
    ("surprise_criticals", "none", "house rule surprise_criticals is already none"),
])
def test_a_bad_house_rule_is_one_sentence_and_changes_nothing(
        rules: Ruleset, key: str, value: str, sentence: str) -> None:
    ref = surprise_shot(rules, "")
    before = len(ref.log)
    with pytest.raises(RuleError, match=re.escape(sentence)):
        ref.execute(SetHouseRule(key, value))
    assert len(ref.log) == before and ref.state.house_rules == {}
