"""action_pool rules a GM would notice, beyond the scenario files: data, stat blocks, options."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacmap.cli import main
from tacmap.engine.model.commands import Act, Attack, EndTurn, Move, SetValue, StartCombat
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.events import Said, ValueChanged
from tacmap.engine.model.state import Encounter, MapSpec, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Ruleset

from .conftest import ANA, BRAK, Build, token


def variant(rules: Ruleset, **changes: dict[str, Any]) -> Ruleset:
    """The same ruleset with some ruleset.toml tables changed, as a GM editing the file."""
    data = copy.deepcopy(rules.manifest.data)
    for table, values in changes.items():
        data.setdefault(table, {}).update(values)
    return type(rules)(replace(rules.manifest, data=data))


# --------------------------------------------------------------------------- the data


def test_the_numbers_come_from_ruleset_toml(rules: Ruleset) -> None:
    data = rules.manifest.data
    assert rules.manifest.diagonal == "rectilinear"
    assert data["turn"]["actions"] == 2
    assert data["turn"]["metres_per_move_action"] == 10
    assert (data["pool"]["die"], data["pool"]["success_at"]) == (6, 4)
    assert data["prepare"]["dodge_divisor"] == 2
    assert data["weapons"]["halberd"]["reach"] == 2


def test_measure_prints_seven_metres_for_three_across_and_four_down(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "--ruleset", "action_pool", "0,0", "3,4"]) == 0
    assert capsys.readouterr().out == "7 m\n"


@pytest.mark.parametrize(("table", "values", "sentence"), [
    ("pool", {"die": 1}, "ruleset.toml: pool.die: expected a whole number >= 2, got 1"),
    ("pool", {"success_at": 7},
     "ruleset.toml: pool.success_at: must be at most the die (6), got 7"),
    ("weapon_change", {"pool": "refill"},
     "ruleset.toml: weapon_change.pool: unknown word 'refill'"),
    # [defaults] is gone: the default weapon is stat_block.weapon.default (test_stat_blocks.py).
    ("weapons", {"halberd": {"stat": "str", "damage_die": 10, "reach": -2}},
     "ruleset.toml: weapons.halberd.reach: expected a number >= 0, got -2"),
])
def test_bad_ruleset_data_is_one_clear_sentence(rules: Ruleset, table: str,
                                                values: dict[str, Any], sentence: str) -> None:
    with pytest.raises(InputError) as err:
        variant(rules, **{table: values})
    assert str(err.value) == sentence


def test_an_ability_is_added_as_data(rules: Ruleset, fight: Build) -> None:
    data = copy.deepcopy(rules.manifest.data)
    data["abilities"]["cleave"] = {"name": "Cleave", "kind": "action", "effect": "attack",
                                   "extra_dice": 1, "discard": 3}
    custom = type(rules)(replace(rules.manifest, data=data))
    ana = token("ana", "party", 2, 2, abilities=("cleave",), **ANA)
    custom.check_token(ana)
    state = _started(custom, ana, token("brak", "foes", 3, 2, hp=40, **BRAK))
    assert "cleave" in [o.key for o in custom.actions_for(state, "ana")]
    referee = Referee(state, custom)
    # 2 successes against DT 1: (1 + 2 + 1 Cleave)d8 + 3 = 11. Three failures leave, and
    # Cleave would discard 3 more but only the 2 successes are left to go.
    events = referee.execute(Act("ana", "cleave", "brak"), FixedDice([6, 6, 1, 1, 1, 2, 2, 2, 2]))
    assert state.tokens["brak"].hp == 40 - 11
    assert state.tokens["ana"].values["pool"] == 0
    assert any(isinstance(e, ValueChanged) and e.note == "3 failures and 2 dice discarded for "
               "Cleave leave the pool" for e in events)


def _started(rules: Ruleset, *tokens: Token) -> Encounter:
    """A fresh encounter with ``tokens`` in combat, in that order."""
    state = rules.new_encounter()
    state.tokens = {t.id: t for t in tokens}
    referee = Referee(state, rules)
    referee.execute(StartCombat(tuple(state.tokens)))
    return referee.state


# --------------------------------------------------------------------------- the stat block


@pytest.mark.parametrize(("stats", "words"), [
    ({"dexx": 3}, "unknown stat 'dexx'"),
    ({"str": -1}, "STR must be a whole number from 0 to 20, not -1"),
    ({"con": 0}, "CON must be a whole number from 1 to 20, not 0"),
    ({"ac": 2.5}, "AC must be a whole number from 0 to 40, not 2.5"),
    ({"weapon": "trident"}, "Weapon in hand must be one of unarmed, dagger, .*, not 'trident'"),
    ({"weapon": "axe", "weapons": ("longsword",)}, "not among the weapons carried"),
    ({"weapons": ("axe", "axe")}, "Weapons carried names 'axe' twice"),
    ({"proficiency": {"trident": 1}}, "Weapon proficiency names 'trident', which is not one"),
    ({"proficiency": {"axe": 9}},
     "Weapon proficiency for axe must be a whole number from 0 to 5, not 9"),
    ({"armour": "plate"}, "Armour must be one of none, light, medium, heavy, not 'plate'"),
    ({"abilities": ("fireball",)}, "Abilities names 'fireball', which is not one of"),
    ({"abilities": ("parry", "parry")}, "Abilities names 'parry' twice"),
])
def test_a_bad_stat_block_is_refused_with_its_reason(rules: Ruleset, stats: dict[str, Any],
                                                     words: str) -> None:
    with pytest.raises(InputError, match=words):
        rules.check_token(Token("x", "X", "foes", 0, 0, stats=stats))


def test_an_empty_stat_block_is_a_commoner(rules: Ruleset) -> None:
    rules.check_token(Token("x", "X", "foes", 0, 0))
    assert rules.reach(rules.new_encounter(), Token("x", "X", "foes", 0, 0)) == 1.0


# --------------------------------------------------------------------------- the pool


@settings(max_examples=25, deadline=None)
@given(con=st.integers(1, 6), pool=st.integers(0, 30))
def test_a_turn_with_no_action_strictly_grows_the_pool(rules: Ruleset, con: int,
                                                       pool: int) -> None:
    """"if the player takes no actions, their pool strictly increases" (by CON)."""
    state = _started(rules, Token("ana", "Ana", "party", 0, 0, stats={"con": con}),
                     Token("brak", "Brak", "foes", 5, 5))
    referee = Referee(state, rules)
    referee.execute(SetValue("ana", "pool", pool))
    referee.execute(EndTurn())
    assert referee.state.tokens["ana"].values["pool"] == pool + con


def test_the_refill_stops_at_the_most_dice_a_pool_holds(rules: Ruleset) -> None:
    """Issue 33: the pool is capped by ``[values.pool] max`` (README), so a long wait never
    makes a pool a file refuses or odds that take minutes."""
    most = int(rules.value_block["pool"].max or 0)
    state = _started(rules, Token("ana", "Ana", "party", 0, 0, stats={"con": 3}),
                     Token("brak", "Brak", "foes", 5, 5))
    referee = Referee(state, rules)
    referee.execute(SetValue("ana", "pool", most - 1))
    referee.execute(EndTurn())
    assert referee.state.tokens["ana"].values["pool"] == most == 100


def test_rebuild_on_weapon_change_starts_from_the_new_weapon(rules: Ruleset,
                                                             fight: Build) -> None:
    rebuild = variant(rules, weapon_change={"pool": "rebuild"})
    ana = token("ana", "party", 2, 2, weapons=("longsword", "shortbow"),
                **{**ANA, "proficiency": {"longsword": 2, "shortbow": 1}})
    state = _started(rebuild, ana, token("brak", "foes", 3, 2, **BRAK))
    referee = Referee(state, rebuild)
    referee.execute(Attack("ana", "brak"), FixedDice([1, 1, 1, 1, 4, 2, 2]))  # 4 failures
    assert referee.state.tokens["ana"].values["pool"] == 1
    events = referee.execute(Act("ana", "wield:shortbow"))
    pool = [e for e in events if isinstance(e, ValueChanged) and e.key == "pool"]
    assert [(e.old, e.new) for e in pool] == [(1, 3)]  # DEX 2 + shortbow 1
    assert "rebuilt" in pool[0].note


def test_success_on_equal_false_needs_a_margin_of_one(rules: Ruleset) -> None:
    strict = variant(rules, test={"success_on_equal": False})
    state = _started(strict, token("ana", "party", 2, 2, **ANA),
                     token("brak", "foes", 3, 2, **BRAK))
    referee = Referee(state, strict)
    events = referee.execute(Attack("ana", "brak"), FixedDice([4, 1, 1, 1, 1]))  # 1 vs DT 1
    assert any(getattr(e, "message", "") == "the attack misses: 1 success against DT 1"
               for e in events)


def test_two_attacks_in_a_turn_roll_what_the_first_left(fight: Build) -> None:
    referee = fight(token("ana", "party", 2, 2, **ANA), token("brak", "foes", 3, 2, hp=99,
                                                             **BRAK))
    referee.execute(Attack("ana", "brak"), FixedDice([6, 5, 1, 2, 3, 5, 5, 5]))
    second = FixedDice([1, 1])
    referee.execute(Attack("ana", "brak"), second)
    assert second.used == 2  # five dice less three failures
    referee.execute(EndTurn())
    assert referee.state.tokens["ana"].values["pool"] == 0 + 2  # both failed, then CON 2


# --------------------------------------------------------------------------- moves


def test_move_budget_and_bands_follow_actions_left(fight: Build, rules: Ruleset) -> None:
    referee = fight(token("ana", "party", 0, 0, **ANA), token("brak", "foes", 11, 7))
    state = referee.state
    ana, brak = state.tokens["ana"], state.tokens["brak"]
    assert rules.move_budget(state, ana) == 20
    assert rules.move_bands(state, ana) == (10, 20)
    assert rules.move_budget(state, brak) == 0
    referee.execute(Move("ana", ((3, 0),)))
    assert rules.move_budget(state, ana) == 10
    assert rules.move_bands(state, ana) == (10,)


def test_move_preview_costs_what_the_move_spends(fight: Build) -> None:
    referee = fight(token("ana", "party", 0, 0, **ANA), token("brak", "foes", 1, 0, **BRAK))
    preview = referee.preview(Move("ana", ((3, 4),)))
    assert (preview.legal, preview.cost, preview.budget) == (True, 7.0, 20.0)
    # (0,1) touches Brak's (1,0) at a corner and (1,1) shares an edge: both within
    # his 1 m reach; (1,2), two rows down, is the first step out.
    assert preview.path[:4] == ((0, 0), (0, 1), (1, 1), (1, 2))
    assert preview.leaves == (("brak", 3),)
    events = referee.execute(Move("ana", ((3, 4),)))
    assert [getattr(e, "cost", None) for e in events if hasattr(e, "cost")] == [7.0]


def test_move_before_combat_is_free_unless_the_data_says_otherwise(rules: Ruleset,
                                                                   fight: Build) -> None:
    referee = fight(token("ana", "party", 0, 0), token("brak", "foes", 11, 7), start=False)
    referee.execute(Move("ana", ((11, 0),)))  # 11 m, no actions, no turn
    strict = variant(rules, turn={"free_moves_before_combat": False})
    state = strict.new_encounter()
    state.tokens = {"ana": token("ana", "party", 0, 0)}
    preview = strict.preview(state, Move("ana", ((1, 0),)))
    assert not preview.legal and "combat has not started" in preview.reason


# --------------------------------------------------------------------------- panels


def test_actions_offered_to_whoever_is_acting(fight: Build, rules: Ruleset) -> None:
    referee = fight(token("ana", "party", 2, 2, weapons=("longsword", "shortbow"),
                          abilities=("mighty_blow", "stalwart"), **ANA),
                    token("brak", "foes", 3, 2, **BRAK))
    offered = {o.key: o for o in rules.actions_for(referee.state, "ana")}
    assert {"attack", "move", "mighty_blow", "prepare:dodge", "prepare:attack:leaves_reach",
            "wield:shortbow", "skill", "generic", "long_action", "end_turn"} <= set(offered)
    assert "stalwart" not in offered  # passive: nothing to click
    assert all(o.enabled for o in offered.values())
    waiting = rules.actions_for(referee.state, "brak")
    assert not any(o.enabled for o in waiting)
    assert waiting[0].reason == "it is Ana's turn"
    referee.execute(Act("ana", "generic", detail="shout"))
    referee.execute(Act("ana", "generic", detail="shout again"))
    spent = {o.key: o for o in rules.actions_for(referee.state, "ana")}
    assert not spent["attack"].enabled and spent["attack"].reason == "needs 1 action, 0 left"
    assert spent["end_turn"].enabled


def test_turn_order_and_dice_pools_panels(fight: Build, rules: Ruleset) -> None:
    referee = fight(token("ana", "party", 2, 2, **ANA), token("brak", "foes", 3, 2, **BRAK))
    referee.execute(Attack("ana", "brak"), FixedDice([6, 5, 1, 2, 3, 1, 1, 1, 1]))
    order = rules.turn_order(referee.state)
    assert order is not None and order.title == "Round 1"
    assert [(r.name, r.key, r.state) for r in order.rows] == [("Ana", "#1", "acting"),
                                                              ("Brak", "#2", "waiting")]
    assert order.rows[0].detail == "pool 2, 1 action left"
    pools = {p.token: p for p in rules.dice_pools(referee.state)}
    ana = pools["ana"]
    assert (ana.faces, ana.wins) == ((6, 5, 1, 2, 3), (True, True, False, False, False))
    assert (ana.size, ana.sides, ana.refill) == (2, 6, 2)
    assert ana.note == "1 action left"


def test_acting_out_of_turn_is_refused_with_names(fight: Build) -> None:
    referee = fight(token("ana", "party", 2, 2, **ANA), token("brak", "foes", 3, 2, **BRAK))
    with pytest.raises(RuleError, match="it is Ana's turn, not Brak's"):
        referee.execute(Attack("brak", "ana"))


# --------------------------------------------------------------------------- issue 16


def test_reaction_refill_at_the_end_of_the_turn_is_a_choice_in_the_data(
        rules: Ruleset) -> None:
    """pool.reaction_refill = "end_of_turn": the other reading of "at that point"."""
    late = variant(rules, pool={"reaction_refill": "end_of_turn"})
    state = late.new_encounter("test", seed=1)
    state.map = MapSpec(12, 8)
    state.tokens = {"brak": token("brak", "foes", 3, 2, **BRAK),
                    "ana": token("ana", "party", 2, 2, **ANA)}
    referee = Referee(state, late)
    referee.execute(StartCombat(("brak", "ana")))
    referee.execute(Act("brak", "prepare:attack:attacks", "ana"))
    referee.execute(EndTurn())  # Brak 3 + 2 = 5
    # Ana misses (0 of 5 against DT 1); Brak answers: 5 dice, 3 failures: 5 → 2.
    referee.execute(Attack("ana", "brak"), FixedDice([1, 1, 1, 1, 1, 6, 6, 1, 1, 1, 1]))
    assert referee.state.tokens["brak"].values["pool"] == 2
    assert referee.state.tokens["brak"].values["reacted"] is True
    events = referee.execute(EndTurn())
    notes = [e.note for e in events if isinstance(e, ValueChanged) and e.token == "brak"]
    assert "reaction roll, end of Ana's turn: CON 2 dice come back" in notes
    assert referee.state.tokens["brak"].values["pool"] == 4


def test_a_corner_neighbour_is_in_reach_and_leaving_it_warns(fight: Build) -> None:
    """Ana (2,2) and Brak (3,3) touch at a corner: within his 1 m axe, and hers."""
    referee = fight(token("ana", "party", 2, 2, **ANA), token("brak", "foes", 3, 3, **BRAK))
    assert referee.preview(Attack("ana", "brak")).legal
    # Up to (2,0): the first step, (2,1), is two rows above Brak: out of his reach.
    preview = referee.preview(Move("ana", ((2, 0),)))
    assert (preview.cost, preview.leaves, preview.threats) == (2.0, (("brak", 1),), ())
    # Round him to the far corner (4,4): two diagonal steps cost 2 m each, and every
    # cell on the way is in the 3×3 block round Brak: nothing left, and he threatens.
    preview = referee.preview(Move("ana", ((4, 4),)))
    assert (preview.cost, preview.leaves, preview.threats) == (4.0, (), ("brak",))


def test_the_actions_panel_offers_skill_tests_at_the_data_dts(fight: Build,
                                                               rules: Ruleset) -> None:
    referee = fight(token("ana", "party", 2, 2, **ANA), token("brak", "foes", 8, 2, **BRAK))
    offered = {o.key: o for o in rules.actions_for(referee.state, "ana")}
    dts = rules.manifest.data["skill"]["test_dts"]
    for dt in dts:
        option = offered[f"skill:{dt}"]
        assert option.enabled and option.label == f"Skill test (DT {dt})…"
        assert option.prompt.startswith("Which skill does Ana use")  # asked, not assumed
    events = referee.execute(Act("ana", f"skill:{dts[0]}"), FixedDice([6, 1, 1, 1, 1]))
    said = [e.message for e in events if isinstance(e, Said)]
    assert said == [f"Ana's test (a skill) succeeds: 1 success against DT {dts[0]}, "
                    f"margin {1 - dts[0]}"]
    assert referee.state.tokens["ana"].values["pool"] == 1  # 4 failures leave


def test_a_token_that_falls_loses_what_it_prepared(fight: Build) -> None:
    """A fallen Brak cannot strike at Ana as she leaves: his prepared attack lapses."""
    referee = fight(token("brak", "foes", 3, 2, **{**BRAK, "hp": 1}),
                    token("ana", "party", 2, 2, **ANA))
    referee.execute(Act("brak", "prepare:attack:leaves_reach", "ana"))
    assert "prepared" in referee.state.tokens["brak"].conditions
    referee.execute(EndTurn())
    events = referee.execute(Attack("ana", "brak"), FixedDice([6] * 30))
    brak = referee.state.tokens["brak"]
    assert "dead" in brak.conditions
    assert brak.values.get("prepared") is None and "prepared" not in brak.conditions
    notes = [e.note for e in events if isinstance(e, ValueChanged) and e.token == "brak"]
    assert any(n.startswith('lapses as Brak falls: "if Ana leaves') for n in notes), notes
    # Ana walks away: no reaction from the fallen.
    moved = referee.execute(Move("ana", ((2, 6),)))
    assert not any(isinstance(e, Said) and "Brak" in e.message for e in moved)
    assert referee.state.tokens["ana"].cell == (2, 6)


def test_the_pool_panel_strikes_out_the_successes_an_ability_discards(
        fight: Build, rules: Ruleset) -> None:
    """Issue 26: after Mighty Blow, [6 5 2 1] shows every die gone, as the pool reads 0."""
    ana = token("ana", "party", 2, 2, **{**ANA, "str": 2, "abilities": ("mighty_blow",)})
    referee = fight(ana, token("brak", "foes", 3, 2, **BRAK))
    referee.execute(Act("ana", "mighty_blow", "brak"), FixedDice([6, 5, 2, 1, 3, 3, 3, 3, 3]))
    pool = {p.token: p for p in rules.dice_pools(referee.state)}["ana"]
    assert (pool.faces, pool.size) == ((6, 5, 2, 1), 0)
    assert pool.removed == (True, True, True, True)
    assert "2 successes discarded by an ability" in pool.note
    # Three successes, two discarded: the leftmost two are struck out, the third stays.
    referee.execute(EndTurn())
    referee.execute(EndTurn())
    referee.execute(SetValue("ana", "pool", 4))
    referee.execute(Act("ana", "mighty_blow", "brak"), FixedDice([6, 5, 4, 1, *[1] * 6]))
    pool = {p.token: p for p in rules.dice_pools(referee.state)}["ana"]
    assert (pool.faces, pool.size) == ((6, 5, 4, 1), 1)
    assert pool.removed == (True, True, False, True)


def test_a_token_removed_mid_fight_leaves_the_turn_order(fight: Build, rules: Ruleset) -> None:
    """Issue 36 item 14: a pasted then deleted token stayed listed under its raw id
    ("aldric_2 #8 ✗ out removed"); undo brings its row back."""
    from tacmap.engine.model.commands import RemoveToken

    referee = fight(token("ana", "party", 2, 2, **ANA), token("brak", "foes", 3, 2, **BRAK),
                    token("brak_2", "foes", 4, 2, **BRAK))
    referee.execute(RemoveToken("brak_2"))
    order = rules.turn_order(referee.state)
    assert order is not None
    assert [r.name for r in order.rows] == ["Ana", "Brak"]
    referee.undo()
    order = rules.turn_order(referee.state)
    assert order is not None and [r.name for r in order.rows] == ["Ana", "Brak", "Brak_2"]


def test_a_fist_attack_is_logged_with_fists_not_a_fists(fight: Build) -> None:
    """Issue 34 item 11: the log said "with a fists"."""
    referee = fight(token("ana", "party", 2, 2, weapon="unarmed"), token("brak", "foes", 3, 2))
    events = referee.execute(Attack("ana", "brak"))
    rolled = [e.text(referee.state) for e in events if type(e).__name__ == "DiceRolled"]
    assert rolled and all("attack on Brak with fists (DT" in t for t in rolled[:1])
    assert not any("a fists" in e.text(referee.state) for e in events)
