"""Reflex (seed 000): the panels, the odds card's numbers, the GM's extra roll, the
data's one-sentence errors, and the demo's `tacmap play` transcript byte for byte."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tacmap.cli import main
from tacmap.engine.model.commands import Act, Attack, EndTurn, StartCombat
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.state import MapSpec, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry
from tests.rulesets.test_ruleset_toml import broken

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent


def fight(registry: Registry, *tokens: Token) -> Referee:
    rules = registry.get("reflex")
    state = rules.new_encounter("test", seed=3)
    state.map = MapSpec(12, 8)
    state.tokens = {t.id: t for t in tokens}
    return Referee(state, rules)


def duel(registry: Registry) -> Referee:
    """Slow Brak (RFX 2, axe) and fast Ana (RFX 5, sword) side by side; both attack."""
    ref = fight(registry,
                Token("ana", "Ana", "party", 2, 2, hp=12, max_hp=12,
                      stats={"rfx": 5, "melee": 4, "weapons": ("sword",)}),
                Token("brak", "Brak", "foes", 3, 2, hp=12, max_hp=12,
                      stats={"rfx": 2, "melee": 4, "weapons": ("axe",)}))
    ref.execute(StartCombat())
    ref.execute(Act("brak", "declare:attack", "ana", "axe"))
    return ref


def test_later_declarers_read_the_declarations_in_the_turn_order(registry: Registry) -> None:
    ref = duel(registry)
    order = ref.ruleset.turn_order(ref.state)
    assert order is not None
    assert order.title == "Round 1 — declaration phase (lowest RFX declares first)"
    brak, ana = order.rows
    assert (brak.id, brak.state, brak.key) == ("brak", "declared", "RFX 2")
    assert "declared: attack Ana with the axe" in brak.detail
    assert (ana.id, ana.state) == ("ana", "acting")
    # The timeline: two phases, each character has a place in each.
    timeline = ref.ruleset.timeline(ref.state)
    assert timeline is not None
    assert timeline.phases == ("declare 1", "declare 2", "act 1", "act 2")
    assert timeline.current == 1
    places = {(i.actor, i.start) for i in timeline.items}
    assert places == {("brak", 0), ("ana", 1), ("ana", 2), ("brak", 3)}


def test_pools_show_faces_wins_struck_out_and_flipped_dice(registry: Registry) -> None:
    ref = duel(registry)
    # Ana [6 6 6 1]: 3 VL; Brak [4 4 5 2]: 3 VL.
    ref.execute(Act("ana", "declare:attack", "brak", "sword"), FixedDice([6, 6, 6, 1, 4, 4, 5, 2]))
    ref.execute(Attack("ana", "brak"))
    # Net 3 − 1 = 2... Brak's Defence is 1 by default: net 2, 6 damage, 2 dice off the left.
    pools = {p.token: p for p in ref.ruleset.dice_pools(ref.state)}
    brak = pools["brak"]
    assert brak.faces == (4, 4, 5, 2)
    assert brak.removed == (True, True, False, False)
    assert brak.wins == (False, False, True, False)
    assert brak.size == 2
    assert "1 VL" in brak.note


def test_a_late_disadvantage_rings_the_flipped_dice(registry: Registry) -> None:
    ref = duel(registry)
    ref.execute(Act("ana", "declare:knock_down", "brak"), FixedDice([6, 6, 1, 1, 4, 4, 5, 2]))
    ref.execute(Act("ana", "knock_down", "brak"))
    brak = {p.token: p for p in ref.ruleset.dice_pools(ref.state)}["brak"]
    assert brak.flipped == (True, True, False, False)
    assert brak.wins == (False, False, True, False)
    assert "wins on 5+" in brak.note


def test_the_odds_card_gives_the_vl_distribution_both_ways(registry: Registry) -> None:
    ref = duel(registry)
    preview = ref.preview(Act("ana", "declare:attack", "brak", "sword"))
    assert preview.legal and preview.odds is not None
    odds = preview.odds
    now, late = odds.spreads
    # 4d6, a win on 4+: P(VL = 4) = (1/2)^4; under a late disadvantage (5+): (1/3)^4.
    assert dict(now.values)[4] == pytest.approx(1 / 16)
    assert dict(late.values)[4] == pytest.approx(1 / 81)
    # A hit needs VL − Defence 1 ≥ 1: VL ≥ 2.
    assert odds.success == pytest.approx(11 / 16)
    assert odds.chances[0][1] == pytest.approx(1 - (2 / 3) ** 4 - 4 * (1 / 3) * (2 / 3) ** 3)
    assert dict(odds.damage)[3] == pytest.approx((6 / 16) / (11 / 16))
    assert odds.spread_axis == "victory levels"


def test_the_gm_allows_an_extra_combat_roll_logged_and_undoable(registry: Registry) -> None:
    ref = duel(registry)
    ref.execute(Act("ana", "declare:dodge"), FixedDice([1, 1, 1, 1, 1, 1]))
    extra = Act("ana", "extra:attack", "brak", "sword")
    with pytest.raises(RuleError, match="made their combat roll this round"):
        ref.execute(extra)
    ref.execute(Act("ana", "allow_roll"))
    assert ref.log[-1].events[0].text(ref.state) == \
        "GM override: Ana may make 1 extra combat roll this round"
    events = ref.execute(extra, FixedDice([6, 6, 6, 6]))
    assert any("extra combat roll" in e.text(ref.state) for e in events)
    with pytest.raises(RuleError, match="made their combat roll"):
        ref.execute(extra)
    ref.undo()
    ref.undo()
    with pytest.raises(RuleError, match="made their combat roll"):
        ref.execute(extra)


def test_nobody_moves_while_declaring_and_the_end_turn_declares_nothing(
        registry: Registry) -> None:
    ref = duel(registry)
    move = next(o for o in ref.ruleset.actions_for(ref.state, "ana") if o.key == "move")
    assert not move.enabled and "declaration phase" in move.reason
    ref.execute(EndTurn("ana"), FixedDice([1, 2, 3, 4]))
    assert ref.state.schedule.order.action_of("ana") == "nothing this round"  # type: ignore[union-attr]


CASES: list[tuple[str, Any, str]] = [
    ("dice.win_at", 7, "ruleset.toml: dice.win_at: must be at most the die (6), got 7"),
    ("weapons.bow.range", 0, "ruleset.toml: weapons.bow.range: a ranged weapon needs a range "
                             "above 0 m, got 0"),
    ("rolloff.die", 1, "ruleset.toml: rolloff.die: expected a whole number >= 2, got 1"),
]


@pytest.mark.parametrize(("where", "value", "sentence"), CASES)
def test_a_bad_value_is_one_sentence(registry: Registry, where: str, value: Any,
                                     sentence: str) -> None:
    rules = registry.get("reflex")
    with pytest.raises(InputError) as err:
        type(rules)(replace(rules.manifest, data=broken(rules.manifest.data, where, value)))
    assert str(err.value) == sentence


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_demo_transcript_is_byte_identical(capsys: pytest.CaptureFixture[str],
                                           as_json: bool) -> None:
    res = ROOT / "resources"
    args = ["play", str(res / "reflex_demo.tacmap"), "--script",
            str(res / "reflex_demo-two-rounds.jsonl"), "--seed", "27"]
    assert main([*args, "--json"] if as_json else args) == 0
    out = capsys.readouterr().out
    expected = (HERE / "fixtures" / f"demo-seed27.{'jsonl' if as_json else 'txt'}").read_text(
        encoding="utf-8")
    assert out == expected


def prone_second(registry: Registry) -> Referee:
    """Ana (sword, 5 melee dice) has hit Brak; prone Cole stands beside her as a second target."""
    ref = fight(registry,
                Token("ana", "Ana", "party", 2, 2, hp=12, max_hp=12,
                      stats={"rfx": 5, "melee": 5, "weapons": ("sword",)}),
                Token("brak", "Brak", "foes", 3, 2, hp=30, max_hp=30, stats={"rfx": 2}),
                Token("cole", "Cole", "foes", 2, 3, hp=30, max_hp=30, stats={"rfx": 3},
                      conditions=("prone",)))
    ref.execute(StartCombat())
    ref.execute(EndTurn("brak"))
    ref.execute(Act("cole", "declare:stand"))
    ref.execute(Act("ana", "declare:attack", "brak", "sword"), FixedDice([3, 3, 4, 5, 2]))
    ref.execute(Attack("ana", "brak"))
    return ref


def test_the_odds_card_counts_the_advantage_of_a_prone_second_target(
        registry: Registry) -> None:
    # "advantage (you engage a prone opponent as your second target with a melee weapon)":
    # kept [3 3 4 5 2] wins on 3+ (edge.advantage_win_at): VL 4; − Defence 1 = net 3,
    # × 3 (sword) = 9 damage, certain. A late disadvantage cancels the advantage: 4+
    # (dice.win_at), VL 2, net 1 — still a hit.
    ref = prone_second(registry)
    preview = ref.preview(Attack("ana", "cole"))
    assert preview.legal and preview.odds is not None
    now, late = preview.odds.spreads
    assert now.values == ((4, 1.0),) and "3+" in now.label
    assert late.values == ((2, 1.0),) and "4+" in late.label
    assert preview.odds.damage == ((9, 1.0),)
    assert preview.odds.chances == (("Chance with a late disadvantage", 1.0),)
    events = ref.execute(Attack("ana", "cole"))
    assert "9 damage" in " ".join(e.text(ref.state) for e in events)


def test_a_knock_down_on_a_prone_target_undoes_exactly(registry: Registry) -> None:
    ref = fight(registry,
                Token("ana", "Ana", "party", 2, 2, stats={"rfx": 5, "melee": 3}),
                Token("brak", "Brak", "foes", 3, 2, stats={"rfx": 2}, conditions=("prone",)))
    ref.execute(StartCombat())
    ref.execute(Act("brak", "declare:other", detail="crawls"))
    ref.execute(Act("ana", "declare:knock_down", "brak"), FixedDice([6, 6, 6]))
    events = ref.execute(Act("ana", "knock_down", "brak"))
    assert "already prone" in events[1].text(ref.state)
    assert ref.state.tokens["brak"].conditions == ("prone",)
    ref.undo()
    assert ref.state.tokens["brak"].conditions == ("prone",)


def test_no_combat_roll_but_the_declared_one_and_the_data_sets_how_many(
        registry: Registry) -> None:
    ref = duel(registry)
    ref.execute(Act("ana", "declare:other", detail="shouts to Wren"), FixedDice([1, 1, 1, 1]))
    with pytest.raises(RuleError, match="declared “shouts to Wren”, not a combat roll"):
        ref.execute(Act("ana", "extra:attack", "brak", "sword"))
    # round.combat_rolls = 2: one more roll a round without the GM.
    rules = registry.get("reflex")
    two = type(rules)(replace(rules.manifest,
                              data=broken(rules.manifest.data, "round.combat_rolls", 2)))
    ref = Referee(ref.initial_state(), two)
    ref.execute(StartCombat())
    ref.execute(Act("brak", "declare:attack", "ana", "axe"))
    ref.execute(Act("ana", "declare:attack", "brak", "sword"), FixedDice([1] * 8))
    keys = [o.key for o in two.actions_for(ref.state, "ana") if o.enabled]
    assert "extra:attack" in keys
    ref.execute(Act("ana", "extra:attack", "brak", "sword"), FixedDice([1] * 4))
    with pytest.raises(RuleError, match="has made their combat roll"):
        ref.execute(Act("ana", "extra:attack", "brak", "sword"))


def test_every_step_of_the_demo_undoes_redoes_and_reloads_exactly(registry: Registry) -> None:
    from tacmap.cli import read_script
    from tacmap.engine.files import storage

    rules = registry.get("reflex")
    loaded = storage.load(ROOT / "resources" / "reflex_demo.tacmap", registry)
    loaded.state.seed = 27
    ref = Referee(loaded.state, rules, loaded.log)

    def look(r: Referee) -> tuple[str, ...]:
        return (storage.dumps(r.state, []), repr(rules.turn_order(r.state)),
                repr(rules.dice_pools(r.state)), repr(rules.timeline(r.state)))

    for _, cmd in read_script(str(ROOT / "resources" / "reflex_demo-two-rounds.jsonl")):
        before = look(ref)
        ref.execute(cmd)
        after = look(ref)
        ref.undo()
        assert look(ref) == before
        ref.redo()
        assert look(ref) == after
        again = storage.loads(storage.dumps(ref.state, ref.log), registry)
        assert look(Referee(again.state, rules, again.log)) == after


def test_a_shout_is_free_in_either_phase(registry: Registry) -> None:
    # "it doesn't take an action to shout out something to another character while fighting".
    ref = fight(registry,
                Token("ana", "Ana", "party", 2, 2, stats={"rfx": 5, "melee": 3}),
                Token("wren", "Wren", "party", 2, 4, stats={"rfx": 4}),
                Token("brak", "Brak", "foes", 3, 2, stats={"rfx": 2}))
    ref.execute(StartCombat())
    shout = next(o for o in ref.ruleset.actions_for(ref.state, "brak") if o.key == "shout")
    assert shout.enabled and shout.target == "token"
    events = ref.execute(Act("brak", "shout", "ana", "Yield!"))
    assert [e.text(ref.state) for e in events] == [
        "Brak shouts to Ana: “Yield!” (free: not an action, not a combat roll)"]
    ref.execute(Act("brak", "declare:dodge"))
    ref.execute(EndTurn("wren"))
    ref.execute(Act("ana", "shout", "wren", "Flank him!"))  # her declaration is still to make
    ref.execute(Act("ana", "declare:attack", "brak"), FixedDice([6, 6, 6, 1, 1]))
    ref.execute(Act("ana", "shout", "wren"))  # and in the action phase, before her attack
    events = ref.execute(Attack("ana", "brak"))
    assert "hits Brak" in " ".join(e.text(ref.state) for e in events)
    with pytest.raises(RuleError, match="cannot shout to themself"):
        ref.execute(Act("ana", "shout", "ana"))
