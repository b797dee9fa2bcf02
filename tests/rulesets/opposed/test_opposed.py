"""The opposed ruleset beyond its scenario files: the demo's transcript, the exact odds
(checked against a brute-force count of every face), and what the panels show."""

from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.model.commands import (
    Act,
    AdjustHp,
    Attack,
    EndTurn,
    Move,
    RemoveToken,
    SetCondition,
    StartCombat,
)
from tacmap.engine.model.state import MapSpec, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.options import command_for
from tacmap.engine.rules.ruleset import Registry, Resolution

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
DEMO = ROOT / "resources" / "opposed_demo.tacmap"
SCRIPT = ROOT / "resources" / "opposed_demo-surprise-and-two-rounds.jsonl"


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_demo_transcript_is_byte_identical(capsys: pytest.CaptureFixture[str],
                                           as_json: bool) -> None:
    args = ["play", str(DEMO), "--script", str(SCRIPT), "--seed", "3"]
    assert main([*args, "--json"] if as_json else args) == 0
    out = capsys.readouterr().out
    name = f"opposed-demo-seed3.{'jsonl' if as_json else 'txt'}"
    assert out == (FIXTURES / name).read_text(encoding="utf-8")
    assert "surprise round before initiative" in out or as_json


def referee(registry: Registry, **stats: dict[str, object]) -> Referee:
    rules = registry.get("opposed")
    state = rules.new_encounter("t", seed=1)
    state.map = MapSpec(12, 8)
    state.tokens = {
        "ana": Token("ana", "Ana", "party", 2, 2, hp=20, max_hp=20, stats=stats.get("ana", {})),
        "brak": Token("brak", "Brak", "foes", 3, 2, hp=6, max_hp=20,
                      stats=stats.get("brak", {})),
    }
    return Referee(state, rules)


def brute(attack: list[range], atk_flat: int, defence: list[range], dfn_flat: int
          ) -> tuple[Fraction, Fraction]:
    """Chance to win (ties to the defender) and of a critical, by counting every face."""
    win = crit = total = 0
    for a in itertools.product(*attack):
        for d in itertools.product(*defence):
            total += 1
            at, df = sum(a) + atk_flat, sum(d) + dfn_flat
            win += at > df
            crit += at > df and at >= 2 * df
    return Fraction(win, total), Fraction(crit, total)


def test_odds_card_has_the_exact_chance_with_shield_and_ties(registry: Registry) -> None:
    # Novice 2d6 + 1 against Novice 2d6 + 1 + light shield 1d4 (no SL).
    ref = referee(registry, ana={"weapon_sl": 1, "form_sl": 1},
                  brak={"defense_sl": 1, "shield": "light", "armour": "light"})
    ref.execute(StartCombat(("ana", "brak")))
    odds = ref.preview(Attack("ana", "brak")).odds
    assert odds is not None
    d6, d4 = range(1, 7), range(1, 5)
    win, crit = brute([d6, d6], 1, [d6, d6, d4], 1)
    assert odds.success == pytest.approx(float(win), abs=1e-12)
    critical = dict(odds.chances)["Chance of a critical (at least double)"]
    assert critical == pytest.approx(float(crit))
    # Damage after light armour 1d4: normal 2d6 + 1, critical 2d8 + 1 (Journeyman).
    expected: dict[int, Fraction] = {}
    for dice, weight in (([d6, d6], win - crit), ([range(1, 9)] * 2, crit)):
        faces = list(itertools.product(*dice, d4))
        for f in faces:
            dmg = max(0, sum(f[:-1]) + 1 - f[-1])
            expected[dmg] = expected.get(dmg, Fraction(0)) + weight / len(faces) / win
    assert dict(odds.damage) == pytest.approx({k: float(v) for k, v in expected.items()})
    drop = sum(p for d, p in expected.items() if d >= 6) * win
    assert odds.drop == pytest.approx(float(drop))


def test_a_stunned_or_surprised_defender_has_no_defence_roll_and_no_critical(
        registry: Registry) -> None:
    ref = referee(registry, brak={"armour": "none"})
    ref.state.tokens["brak"].conditions = ("stunned",)
    ref.execute(StartCombat(("ana", "brak")))
    odds = ref.preview(Attack("ana", "brak")).odds
    assert odds is not None
    assert odds.success == 1.0
    assert dict(odds.chances)["Chance of a critical (at least double)"] == 0.0


def test_turn_order_shows_health_and_what_is_left_of_the_turn(registry: Registry) -> None:
    ref = referee(registry)
    ref.execute(StartCombat(("ana", "brak")))
    ref.execute(Move("ana", ((2, 4),)), FixedDice([99]))
    order = ref.ruleset.turn_order(ref.state)
    assert order is not None
    row = order.rows[0]
    assert row.state == "acting"
    assert row.detail == "healthy; left: move or standard + move"
    ref.state.tokens["brak"].hp = 0
    ref.state.tokens["brak"].conditions = ("falling",)
    order = ref.ruleset.turn_order(ref.state)
    assert order is not None and order.rows[1].detail.startswith("falling")


def test_a_held_turn_shows_its_condition_and_the_acting_token_offers_resume(
        registry: Registry) -> None:
    ref = referee(registry)
    ref.state.tokens["brak"].x = 8
    ref.execute(StartCombat(("ana", "brak")))
    ref.execute(Act("ana", "hold", detail="I wait until Brak steps into the light."))
    order = ref.ruleset.turn_order(ref.state)
    assert order is not None
    assert 'held: "I wait until Brak steps into the light."' in order.rows[0].detail
    # A held turn is not over: the row is "declared" (its condition), never "done".
    assert order.rows[0].state == "declared"
    options = ref.ruleset.actions_for(ref.state, "brak")
    resume = next(o for o in options if o.key == "resume")
    assert resume.enabled and resume.label.startswith("Resume Ana's held turn")
    ref.execute(command_for("brak", resume))
    order = ref.ruleset.turn_order(ref.state)
    assert order is not None
    assert [r.state for r in order.rows] == ["acting", "waiting"]
    assert "waits for Ana's held turn" in order.rows[1].detail


def test_a_run_stopped_by_a_hit_offers_no_more_moves(registry: Registry) -> None:
    # "If the attack is successful, the player character is also unable to continue
    # running": Ana (Speed 6) runs 3 m, one move action; Brak takes the attack of
    # opportunity: [6 6] + 1 = 13 against [1 1] + 1 = 3, damage 2d8 [1 1] + 1 = 3.
    ref = referee(registry, ana={"speed": 6}, brak={"weapon_sl": 1, "form_sl": 1})
    ref.state.tokens["brak"].hp = 20
    ref.execute(StartCombat(("ana", "brak")))
    ref.execute(Act("ana", "opportunity:take"))
    ref.execute(Move("ana", ((2, 5),)), FixedDice([6, 6, 1, 1, 1, 1]))
    assert ref.state.tokens["ana"].hp == 17
    move = next(o for o in ref.ruleset.actions_for(ref.state, "ana") if o.key == "move")
    assert not move.enabled and "cannot continue running" in move.reason
    order = ref.ruleset.turn_order(ref.state)
    assert order is not None and "run stopped by a hit" in order.rows[0].detail
    attack = next(o for o in ref.ruleset.actions_for(ref.state, "ana") if o.key == "standard")
    assert attack.enabled  # the rest of the turn shape is still there


def test_every_disabled_option_says_why(registry: Registry) -> None:
    loaded = storage.load(DEMO, registry)
    ref = Referee(loaded.state, registry.get("opposed"))
    ref.execute(StartCombat())
    for tid in ref.state.tokens:
        for o in ref.ruleset.actions_for(ref.state, tid):
            assert o.enabled or o.reason, (tid, o.label)


def test_a_gm_heal_or_wound_settles_health_at_once(registry: Registry) -> None:
    """Health below zero knocks out, a heal stands them up: no waiting for the next turn."""
    from tacmap.engine.model.commands import SetHp
    from tacmap.engine.model.events import Said

    ref = referee(registry, brak={"vigor": 10})
    ref.execute(StartCombat(("ana", "brak")))
    ref.execute(SetHp("brak", -6))  # at most −½ Vigor: unconscious
    assert "unconscious" in ref.state.tokens["brak"].conditions
    events = ref.execute(SetHp("brak", 5))
    brak = ref.state.tokens["brak"]
    assert not {"unconscious", "incapacitated", "falling"} & set(brak.conditions)
    assert Said("Brak is back on their feet at Health 5", "brak") in events
    ref.undo()
    assert "unconscious" in ref.state.tokens["brak"].conditions


def test_the_attack_offers_the_criticals_dice_with_the_better_picked(
        registry: Registry) -> None:
    # "the attacker may roll the damage dice ... of the next whole skill tier": a weapon
    # Novice (next tier 2d8) with an Expert form (2d10) is better off keeping 2d10.
    ref = referee(registry, ana={"weapon_sl": 1, "form_sl": 7}, brak={"defense_sl": 0})
    ref.execute(StartCombat(("ana", "brak")))
    attack = ref.ruleset.actions_for(ref.state, "ana")[0]
    assert attack.label == "Attack (sword)" and attack.enabled
    assert attack.choices == (("Critical damage", ("next-tier dice (2d8)",
                                                   "normal dice (2d10)")),)
    assert attack.detail == "normal dice (2d10)"
    kept = ref.preview(command_for("ana", attack, "brak"))
    upper = ref.preview(command_for("ana", replace(attack, detail="next-tier dice (2d8)"),
                                    "brak"))
    assert kept.odds is not None and upper.odds is not None
    assert kept.odds.success == upper.odds.success
    assert kept.odds.mean_damage > upper.odds.mean_damage
    assert any("2d10 + 7 (Combat Form Expert SL 7, kept over the next tier's 2d8)" in line
               for line in kept.odds.lines)
    # The flourishes carry the same choice.
    feint = next(o for o in ref.ruleset.actions_for(ref.state, "ana")
                 if o.key == "flourish:feint")
    assert feint.choices == attack.choices and feint.detail == attack.detail


def test_no_criticals_choice_where_both_dice_are_the_same(registry: Registry) -> None:
    # Weapon Novice, form Journeyman: the next tier's dice are the form's own 2d8.
    ref = referee(registry, ana={"weapon_sl": 1, "form_sl": 4})
    ref.execute(StartCombat(("ana", "brak")))
    attack = ref.ruleset.actions_for(ref.state, "ana")[0]
    assert attack.key == "attack" and attack.choices == ()


def test_the_gm_may_reject_a_condition_with_one_click_until_the_next_token_acts(
        registry: Registry) -> None:
    ref = referee(registry)
    ref.state.tokens["brak"].x = 8
    ref.execute(StartCombat(("ana", "brak")))
    ref.execute(Act("ana", "hold", detail="I will wait until something happens."))
    order = ref.ruleset.turn_order(ref.state)
    assert order is not None
    assert order.rows[0].detail.endswith(
        'held: "I will wait until something happens." (the GM may reject it)')
    reject = next(o for o in ref.ruleset.actions_for(ref.state, "brak")
                  if o.key == "reject_hold")
    assert reject.enabled
    assert reject.label == ("GM: reject Ana's condition as too generic "
                            "(\"I will wait until something happens.\")")
    ref.execute(command_for("brak", reject))
    order = ref.ruleset.turn_order(ref.state)
    assert order is not None and [r.state for r in order.rows] == ["acting", "waiting"]
    hold = next(o for o in ref.ruleset.actions_for(ref.state, "ana")
                if o.key == "hold" and o.target == "none")
    assert hold.enabled  # the turn came back to Ana: she may hold again, specifically
    ref.undo()
    assert ref.state.schedule is not None
    assert any(o.key == "reject_hold" for o in ref.ruleset.actions_for(ref.state, "brak"))
    ref.execute(Move("brak", ((7, 2),)))  # Brak acts: Ana's condition stands
    assert not any(o.key == "reject_hold" for o in ref.ruleset.actions_for(ref.state, "brak"))


def test_a_removed_token_s_held_turn_is_dropped_with_a_line(registry: Registry) -> None:
    """Issue 34 item 4: a declaration whose token is gone is dropped with a log line."""
    ref = referee(registry)
    ref.state.tokens["brak"].x = 8
    ref.execute(StartCombat(("ana", "brak")))
    ref.execute(Act("ana", "hold", detail="I wait until Brak steps into the light."))
    events = ref.execute(RemoveToken("ana"))
    assert "Ana's held turn is dropped: removed from the map" in \
        [e.text(ref.state) for e in events]
    assert ref.state.schedule.held == ()  # type: ignore[union-attr]


def _blow_and_gm_damage(registry: Registry, hp: int, conditions: tuple[str, ...],
                        amount: int) -> tuple[Token, Token]:
    """Ana (Vigor 14) after ``amount`` damage from a blow, and after the same from the GM."""
    out = []
    for gm in (False, True):
        ref = referee(registry, ana={"vigor": 14})
        ref.state.tokens["ana"].hp = hp
        ref.state.tokens["ana"].conditions = conditions
        ref.execute(StartCombat(("brak", "ana")))
        if gm:
            ref.execute(AdjustHp("ana", -amount))
        else:
            ctx = Resolution(ref.state, FixedDice([]))
            ref.ruleset.harm(ctx, ref.state.tokens["ana"], amount, "Brak's blow")  # type: ignore[attr-defined]
        out.append(ref.state.tokens["ana"])
    return out[0], out[1]


@pytest.mark.parametrize(("hp", "conditions", "amount", "want"), [
    (20, (), 30, "falling"),  # healthy to −10: falls, not straight to unconscious
    (-1, ("falling",), 14, "falling"),  # falling to −15: still falling, not dead
    (-1, ("incapacitated",), 7, "unconscious"),
    (-8, ("unconscious",), 6, "dead"),
])
def test_gm_damage_leads_to_the_state_a_blow_of_the_same_damage_does(
        registry: Registry, hp: int, conditions: tuple[str, ...], amount: int,
        want: str) -> None:
    """Issue 34 item 10: "the same damage leads to the same state whatever dealt it"."""
    by_blow, by_gm = _blow_and_gm_damage(registry, hp, conditions, amount)
    assert by_blow.hp == by_gm.hp == hp - amount
    assert by_gm.conditions == by_blow.conditions == (want,)


def test_previewing_end_turn_keeps_a_condition_the_gm_added(registry: Registry) -> None:
    """Issue 34 item 5: falling and incapacitated (the GM's menu): a preview of End turn
    took "incapacitated" away, and so did undoing a real End turn."""
    ref = referee(registry)
    ref.execute(StartCombat(("brak", "ana")))
    ref.execute(AdjustHp("ana", -20))  # falling at 0
    ref.execute(SetCondition("ana", "incapacitated", True))
    assert ref.state.tokens["ana"].conditions == ("falling", "incapacitated")
    before = storage.encode(ref.state, ref.log)
    assert ref.preview(EndTurn()).legal
    assert storage.encode(ref.state, ref.log) == before
    ref.execute(EndTurn())  # Ana's turn starts: falling, not healed, becomes incapacitated
    ana = ref.state.tokens["ana"]
    assert ana.conditions == ("incapacitated",)
    ref.undo()
    assert storage.encode(ref.state, ref.log) == before
