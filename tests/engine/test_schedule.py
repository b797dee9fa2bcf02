"""Round structures: each one against the seed text it serves, illegal moves, wrap, JSON."""

from __future__ import annotations

import ast
import inspect
import json
from typing import Any

import pytest

from tacmap.engine.model import records
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.rules import schedule
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.schedule import (
    SIX_PHASES,
    SPEED_PHASES,
    DeclareThenAct,
    FixedPhases,
    OrderedTurns,
    PhaseAction,
    PhaseTimeline,
    SideInitiative,
    SideRoll,
    TimedAction,
    earliest,
    speed_rank,
)


def no_dice() -> FixedDice:
    """A source that fails if anything is rolled."""
    return FixedDice([])


# --------------------------------------------------------------------------- OrderedTurns


# Seed 004: "Each character can take two actions on their turn."
def test_two_actions_a_turn_then_the_next_character() -> None:
    turns = OrderedTurns.start(("ana", "brak", "cora"), actions=2)
    assert (turns.current, turns.actions_left, turns.round) == ("ana", 2, 1)
    after = turns.spend().spend()
    assert after.actions_left == 0
    assert turns.actions_left == 2  # the old state is untouched
    with pytest.raises(RuleError, match="ana has no actions left this turn"):
        after.spend()
    nxt = after.end_turn()
    assert (nxt.current, nxt.actions_left) == ("brak", 2)


def test_spend_more_than_left_or_out_of_turn() -> None:
    turns = OrderedTurns.start(("ana", "brak")).spend()
    with pytest.raises(RuleError, match="only 1 action left"):
        turns.spend(2)
    with pytest.raises(RuleError, match="ana's turn, not brak's"):
        turns.spend(who="brak")
    with pytest.raises(RuleError):
        turns.spend(0)


# Seed 003: "Once each character in the combat initiative order has completed their turn,
# this completes one round of combat and the next round begins."
def test_round_wraps_after_the_last_turn() -> None:
    turns = OrderedTurns.start(("ana", "brak", "cora"))
    seen = []
    for _ in range(3):
        seen.append(turns.current)
        turns = turns.spend().end_turn()
    assert seen == ["ana", "brak", "cora"]
    assert (turns.current, turns.round, turns.actions_left) == ("ana", 2, 2)


def test_reorder_keeps_the_current_actor() -> None:
    turns = OrderedTurns.start(("ana", "brak", "cora")).end_turn().spend()
    new = turns.reorder(("cora", "ana", "brak"))
    assert new.order == ("cora", "ana", "brak")
    assert (new.current, new.actions_left) == ("brak", 1)
    with pytest.raises(RuleError, match="leaves out cora"):
        turns.reorder(("ana", "brak"))
    with pytest.raises(RuleError, match="dan are not in the turn order"):
        turns.reorder(("ana", "brak", "cora", "dan"))
    with pytest.raises(RuleError, match="twice"):
        turns.reorder(("ana", "ana", "brak"))


def test_remove_skips_the_leaver() -> None:
    turns = OrderedTurns.start(("ana", "brak", "cora")).end_turn().spend()  # brak, 1 left
    before = turns.remove("ana")
    assert (before.order, before.current, before.actions_left) == (("brak", "cora"), "brak", 1)
    gone = turns.remove("brak")  # the current one leaves: cora's turn starts
    assert (gone.current, gone.actions_left, gone.round) == ("cora", 2, 1)
    last = turns.end_turn().remove("cora")  # the last one leaves on their turn: next round
    assert (last.current, last.round) == ("ana", 2)
    with pytest.raises(RuleError, match="dan is not in the turn order"):
        turns.remove("dan")
    empty = OrderedTurns.start(("ana",)).remove("ana")
    assert empty.current is None
    with pytest.raises(RuleError, match="empty"):
        empty.end_turn()


def test_add_joins_without_stealing_the_turn() -> None:
    turns = OrderedTurns.start(("ana", "brak")).end_turn()  # brak
    late = turns.add("dan")
    assert late.order == ("ana", "brak", "dan") and late.current == "brak"
    front = turns.add("dan", at=0)
    assert front.order == ("dan", "ana", "brak") and front.current == "brak"
    with pytest.raises(RuleError, match="brak twice"):
        turns.add("brak")
    with pytest.raises(RuleError, match="outside"):
        turns.add("dan", at=5)
    assert OrderedTurns.start(("ana",)).remove("ana").add("dan").current == "dan"


def test_ordered_turns_bad_start() -> None:
    with pytest.raises(RuleError, match="empty"):
        OrderedTurns.start(())
    with pytest.raises(RuleError, match="ana twice"):
        OrderedTurns.start(("ana", "ana"))
    with pytest.raises(AttributeError):
        OrderedTurns.start(("ana",)).index = 1  # type: ignore[misc]


# --------------------------------------------------------------------------- DeclareThenAct


# Seed 000: "The character with the lowest reflex declares what they are doing first."
# "Once all characters have declared their actions, the order is reversed starting with the
# person with the highest reflex acting first."
def test_declare_low_to_high_then_act_high_to_low() -> None:
    state, rolls = DeclareThenAct.start((("ana", 7), ("brak", 3), ("cora", 5)), no_dice())
    assert rolls == ()
    assert state.declare_order == ("brak", "cora", "ana")
    assert state.act_order == ("ana", "cora", "brak")
    with pytest.raises(RuleError, match="brak's turn to declare, not ana's"):
        state.declare("ana", "attack")
    for who in ("brak", "cora", "ana"):
        assert state.phase == "declare" and state.current == who
        state = state.declare(who, f"{who} attacks")
    assert state.phase == "act"
    with pytest.raises(RuleError, match="ana's turn to act, not brak's"):
        state.act("brak")
    for who in ("ana", "cora", "brak"):
        assert state.current == who
        state = state.act(who)
    assert state.round_over and state.current is None
    nxt = state.new_round()
    assert (nxt.round, nxt.phase, nxt.declared, nxt.acted) == (2, "declare", (), ())
    assert nxt.current == "brak"


# Seed 000: "If two Characters have the same RFX, they each roll a D6 (though D20s work
# better), where the highest resulting roll gets to declare later for the rest of the
# combat encounter."
def test_tie_rolls_off_once_for_the_encounter() -> None:
    state, rolls = DeclareThenAct.start((("ana", 5), ("brak", 5), ("cora", 2)), FixedDice([12, 17]))
    assert [(who, r.sides, r.faces) for who, _, r in rolls] == [
        ("ana", 20, (12,)),
        ("brak", 20, (17,)),
    ]
    assert all("roll-off" in why for _, why, _ in rolls)
    assert state.declare_order == ("cora", "ana", "brak")
    assert state.act_order == ("brak", "ana", "cora")
    for who in state.declare_order:
        state = state.declare(who, "wait")
    for who in state.act_order:
        state = state.act(who)
    nxt = state.new_round()  # takes no dice: nobody rolls again
    assert nxt.rolloffs == (("ana", (12,)), ("brak", (17,)))
    assert nxt.declare_order == ("cora", "ana", "brak")


def test_roll_off_rerolls_only_those_still_tied() -> None:
    keys = (("ana", 5), ("brak", 5), ("cora", 5))
    state, rolls = DeclareThenAct.start(keys, FixedDice([9, 9, 3, 4, 11]))
    assert [who for who, _, _ in rolls] == ["ana", "brak", "cora", "ana", "brak"]
    assert ["re-roll" in why for _, why, _ in rolls] == [False, False, False, True, True]
    assert state.declare_order == ("cora", "ana", "brak")
    d6, _ = DeclareThenAct.start((("ana", 1), ("brak", 1)), FixedDice([2, 5]), die=6)
    assert d6.declare_order == ("ana", "brak")
    with pytest.raises(RuleError, match="d6 cannot show 7"):
        DeclareThenAct.start((("ana", 1), ("brak", 1)), FixedDice([7, 1]), die=6)


# Seed 000: "Once a player has declared what they are going to perform, they cannot change
# their mind. They are locked into performing that action in this round."
def test_declarations_are_locked_and_out_of_phase_moves_fail() -> None:
    state, _ = DeclareThenAct.start((("ana", 7), ("brak", 3)), no_dice())
    state = state.declare("brak", "shove ana")
    assert state.action_of("brak") == "shove ana"
    with pytest.raises(RuleError, match="locked"):
        state.declare("brak", "run away")
    with pytest.raises(RuleError, match="cannot act yet"):
        state.act("brak")
    with pytest.raises(RuleError, match="round is not over: ana has not declared"):
        state.new_round()
    assert state.new_round(force=True).round == 2
    with pytest.raises(RuleError, match="empty"):
        state.declare("ana", "  ")
    with pytest.raises(RuleError, match="dan is not in the RFX order"):
        state.declare("dan", "attack")
    acting = state.declare("ana", "parry").act("ana")
    with pytest.raises(RuleError, match="already acted"):
        acting.act("ana")
    with pytest.raises(RuleError, match="declaration phase is over"):
        acting.remove("brak").add("dan", 1, no_dice())[0].declare("dan", "x")


def test_newcomer_rolls_off_against_kept_results() -> None:
    state, _ = DeclareThenAct.start((("ana", 5), ("brak", 5)), FixedDice([12, 17]))
    # dan ties ana's 12, so only ana and dan roll again; brak keeps his 17.
    joined, rolls = state.add("dan", 5, FixedDice([12, 3, 8]))
    assert [(who, r.faces) for who, _, r in rolls] == [("dan", (12,)), ("ana", (3,)), ("dan", (8,))]
    assert joined.declare_order == ("ana", "dan", "brak")
    with pytest.raises(RuleError, match="ana twice"):
        state.add("ana", 1, no_dice())


def test_remove_during_declaration_can_open_the_action_phase() -> None:
    state, _ = DeclareThenAct.start((("ana", 7), ("brak", 3)), no_dice())
    state = state.declare("brak", "attack ana").remove("ana")
    assert state.phase == "act" and state.current == "brak"
    assert state.keys == (("brak", 3),)


# --------------------------------------------------------------------------- SideInitiative


# Seed 001: "The DM rolls 3 and 6 for the mercenary companies, the players roll 4. This
# means that, in each phase, one mercenary company acts first, then the players, then the
# other company."
def test_side_initiative_worked_example() -> None:
    init, rolls = SideInitiative.start(("red", "players", "blue"), FixedDice([3, 4, 6]))
    assert init.order == ("blue", "players", "red")
    assert [s.roll for s in init.sides] == [6, 4, 3]
    assert [r.faces for _, _, r in rolls] == [(3,), (4,), (6,)]
    assert all(who == "" and r.sides == 10 for who, _, r in rolls)
    assert init.combat_events_due == 0
    assert [init.shift(s) for s in init.order] == [0, 0, 0]


# Seed 001: "A roll of 1 causes a side to go last in order and delay all actions by one
# phase ... A roll of 10 causes a side to go first in order and move all actions up by one
# phase"
def test_one_delays_and_ten_advances() -> None:
    init, _ = SideInitiative.start(("a", "b", "c"), FixedDice([1, 10, 5]))
    assert init.order == ("b", "c", "a")
    assert (init.shift("a"), init.shift("b"), init.shift("c")) == (1, -1, 0)
    with pytest.raises(RuleError, match="z is not a side"):
        init.shift("z")


# Seed 001: "If one or more sides tie they must immediately re-roll. A Combat Event occurs
# for each re-roll forced in this manner."
def test_ties_reroll_among_themselves_and_count_combat_events() -> None:
    dice = FixedDice([7, 7, 2, 5, 5, 9, 1])
    init, rolls = SideInitiative.start(("a", "b", "c"), dice)
    assert init.order == ("a", "b", "c")  # a and b stay ahead of c's 2
    assert init.of("a") == SideRoll("a", 7, (5, 9), 0)
    assert init.of("b") == SideRoll("b", 7, (5, 1), 0)  # a re-rolled 1 does not delay
    assert init.rerolls == 2 and init.combat_events_due == 2
    assert len(rolls) == 7 and "re-roll" in rolls[-1][1]


def test_each_round_rolls_afresh() -> None:
    init, _ = SideInitiative.start(("a", "b"), FixedDice([4, 4, 6, 2]))
    assert init.combat_events_due == 1
    nxt, rolls = init.next_round(FixedDice([3, 8]))
    assert (nxt.round, nxt.order, nxt.rerolls) == (2, ("b", "a"), 0)
    assert len(rolls) == 2
    lone, rolls = SideInitiative.start(("only",), FixedDice([10]))
    assert lone.shift("only") == -1 and len(rolls) == 1
    with pytest.raises(RuleError, match="at least one side"):
        SideInitiative.start((), no_dice())
    with pytest.raises(RuleError, match="a twice"):
        SideInitiative.start(("a", "a"), no_dice())


# --------------------------------------------------------------------------- PhaseTimeline


# Seed 001: "a Human has a Base Speed of Fast - Speed Rank 0. If they have Dexterity 18, this
# grants them a +1 modifier ... Very Fast - Speed Rank -1. If they had Dexterity 5, this would
# have -1 to their Speed Modifier, causing it to be Average - Speed Rank 1."
def test_speed_modifiers_are_taken_away_from_the_rank() -> None:
    assert speed_rank(0, +1) == -1
    assert speed_rank(0, -1) == 1
    assert earliest(speed_rank(0, +1)) == "-1"
    assert earliest(speed_rank(0, -1)) == "1"
    assert earliest(0) == "0"


# Seed 001: "If a Weapon's Speed is faster than the Base Speed of the character wielding it,
# it instead uses the Base Speed"
def test_earliest_weapon_speed_and_initiative_shift() -> None:
    assert earliest(0, weapon_speed=-2) == "0"
    assert earliest(0, weapon_speed=2) == "2"
    assert earliest(0, shift=-1) == "-1"  # side rolled 10
    assert earliest(0, weapon_speed=2, shift=1) == "3"  # side rolled 1
    assert earliest(5, shift=1) == "F"
    assert earliest(-3, shift=-1) == "-3"


# Seed 001: "nor attack with weapons before their Weapon Speed": a rank past 5 is F (issue 26).
def test_a_weapon_speed_past_5_strikes_in_the_final_phase() -> None:
    assert earliest(2, weapon_speed=6) == "F"  # Dexterity 1 human with a crossbow: 4 + 2
    assert earliest(2, weapon_speed=9) == "F"
    assert earliest(2, weapon_speed=6, shift=-1) == "5"  # the side rolled 10: one phase up


def test_place_respects_the_earliest_phase() -> None:
    tl = PhaseTimeline()
    with pytest.raises(RuleError, match="ana cannot attack before phase 2"):
        tl.place("ana", "attack", "1", base_speed=0, weapon_speed=2)
    placed = tl.place("ana", "attack", 2, base_speed=0, weapon_speed=2)
    assert placed.actions == (TimedAction("ana", "attack", 1, "2", "2"),)
    assert tl.actions == ()
    with pytest.raises(RuleError, match="already has attack"):
        placed.place("ana", "attack", "3")
    with pytest.raises(RuleError, match="no phase"):
        tl.place("ana", "kick", "6")
    with pytest.raises(RuleError, match="1 to 100 phases"):
        tl.place("ana", "kick", "1", span=0)
    late = tl.advance().advance().advance()  # at -2
    with pytest.raises(RuleError, match="already passed"):
        late.place("ana", "spell", "S", 6, spell=True)


# Seed 001: "Characters may decide to cast spells in this phase, but no spell can be
# finished casting before the Fast Phase unless specifically stated otherwise."
def test_spells_start_early_but_finish_no_sooner_than_fast() -> None:
    tl = PhaseTimeline()
    cast = tl.place("mage", "shield", "S", span=5, spell=True)  # S .. 0
    assert cast.actions[0].end == "0"
    with pytest.raises(RuleError, match="before the Fast phase"):
        tl.place("mage", "shield", "S", span=4, spell=True)
    # a side that rolled 10 (shift -1) may finish one phase sooner
    assert tl.place("mage", "shield", "S", span=4, spell=True, shift=-1).actions[0].end == "-1"


# Seed 001: "If an action would take longer than this and would normally be moved after it,
# it is moved to the Fast Phase of the next round, Speed Rank 0. If the action is not a
# spell and the character has a higher Base Speed, it is moved to their Base Speed instead."
def test_actions_past_final_carry_into_the_next_round() -> None:
    tl = PhaseTimeline()
    tl = tl.place("mage", "fireball", "4", span=5, spell=True, base_speed=-1)
    tl = tl.place("elf", "sprint", "3", span=6, base_speed=-1)
    tl = tl.place("dwarf", "sprint", "3", span=6, base_speed=1)
    spans = [(a.actor, a.round, a.start, a.end, a.continued) for a in tl.actions]
    assert spans == [
        ("mage", 1, "4", "F", False),
        ("mage", 2, "0", "1", True),  # spells go to Fast even for a fast caster
        ("elf", 1, "3", "F", False),
        ("elf", 2, "-1", "0", True),  # not a spell, base speed faster than 0
        ("dwarf", 1, "3", "F", False),
        ("dwarf", 2, "0", "1", True),  # slower base speed: still Fast
    ]
    assert [a.actor for a in tl.spanning("5")] == ["mage", "elf", "dwarf"]
    for _ in SPEED_PHASES:
        tl = tl.advance()
    assert (tl.round, tl.current) == (2, "S")
    assert all(a.round == 2 and a.continued for a in tl.actions)
    assert [a.actor for a in tl.actions_at("0")] == ["mage", "dwarf"]
    assert [a.actor for a in tl.actions_at(-1)] == ["elf"]
    assert [a.actor for a in tl.spanning("0")] == ["mage", "elf", "dwarf"]
    assert [a.actor for a in tl.ending_at("1")] == ["mage", "dwarf"]
    cut = tl.cancel("elf", "sprint")
    assert [a.actor for a in cut.actions] == ["mage", "dwarf"]
    with pytest.raises(RuleError, match="no action 'sprint'"):
        cut.cancel("elf", "sprint")


def test_long_spell_runs_over_several_rounds() -> None:
    tl = PhaseTimeline().place("mage", "ritual", "0", span=20, spell=True)
    assert [(a.round, a.start, a.end) for a in tl.actions] == [
        (1, "0", "F"),
        (2, "0", "F"),
        (3, "0", "5"),
    ]


def test_timeline_walks_every_phase_then_wraps() -> None:
    tl = PhaseTimeline()
    seen = [tl.current]
    for _ in range(len(SPEED_PHASES)):
        tl = tl.advance()
        seen.append(tl.current)
    assert tuple(seen[:-1]) == SPEED_PHASES
    assert (tl.round, tl.current) == (2, "S")


# --------------------------------------------------------------------------- FixedPhases


# Seed 002: "Regdar rolls 15, while the orc rolls 18. The orc goes first, and pushes Regdar
# out of melee range."
def test_regdar_and_the_orc() -> None:
    ph = FixedPhases.start()
    assert ph.phases == SIX_PHASES and ph.phase == "Declare spells"
    ph = ph.next_phase().next_phase().next_phase().next_phase().next_phase()
    assert ph.phase == "Melee and miscellaneous"
    ph = ph.declare("regdar", "hit the orc with his sword").declare("orc", "shove Regdar")
    assert ph.current is None  # nothing resolves before the roll
    ph, rolls = ph.roll(FixedDice([15, 18]))
    assert [(who, r.faces) for who, _, r in rolls] == [("regdar", (15,)), ("orc", (18,))]
    assert ph.order == ("orc", "regdar")
    assert ph.current == "orc"
    ph = ph.resolve_next()
    assert ph.current == "regdar" and ph.entry("orc").resolved
    ph = ph.resolve_next()
    assert ph.current is None
    nxt = ph.next_phase()  # past the last phase: next round, first phase
    assert (nxt.round, nxt.phase, nxt.step, nxt.entries) == (2, "Declare spells", "declare", ())


def test_fixed_phase_ties_keep_declaration_order() -> None:
    ph = FixedPhases.start(("Only",)).declare("b", "x").declare("a", "y").declare("c", "z")
    ph, rolls = ph.roll(FixedDice([11, 11, 4]))
    assert ph.order == ("b", "a", "c")
    assert len(rolls) == 3


# Seed 002: "It's not possible to redeclare actions."
def test_fixed_phase_illegal_moves() -> None:
    ph = FixedPhases.start().declare("regdar", "attack")
    with pytest.raises(RuleError, match="not possible to redeclare"):
        ph.declare("regdar", "flee")
    with pytest.raises(RuleError, match="Roll the d20s"):
        ph.resolve_next()
    with pytest.raises(RuleError, match="Roll the d20s"):
        ph.next_phase()
    rolled, _ = ph.roll(FixedDice([9]))
    with pytest.raises(RuleError, match="declarations are over"):
        rolled.declare("orc", "shove")
    with pytest.raises(RuleError, match="already rolled"):
        rolled.roll(FixedDice([3]))
    with pytest.raises(RuleError, match="unresolved"):
        rolled.next_phase()
    assert rolled.next_phase(force=True).phase == "Monster morale"
    with pytest.raises(RuleError, match="Every action"):
        rolled.resolve_next().resolve_next()
    with pytest.raises(RuleError, match="at least one phase"):
        FixedPhases.start(())


# Seed 002: "If an action by an earlier combatant confers advantage or disadvantage on a later
# roll, that combatant rolls a second d20 when their action is being resolved, and uses that
# result."
def test_second_d20_replaces_the_result_but_not_the_place() -> None:
    ph = FixedPhases.start().declare("regdar", "sword").declare("orc", "shove")
    ph, _ = ph.roll(FixedDice([15, 18]))
    with pytest.raises(RuleError, match="only when their action resolves"):
        ph.reroll("regdar", FixedDice([19]))
    ph = ph.resolve_next()
    ph, rolls = ph.reroll("regdar", FixedDice([19]))
    e = ph.entry("regdar")
    assert (e.roll, e.result, e.faces) == (15, 19, (15, 19))
    assert rolls[0][0] == "regdar" and "second d20" in rolls[0][1]
    assert ph.order == ("orc", "regdar")
    with pytest.raises(RuleError, match="already rolled a second d20"):
        ph.reroll("regdar", FixedDice([2]))


def test_empty_phase_moves_on() -> None:
    ph, rolls = FixedPhases.start(("A", "B")).roll(no_dice())
    assert rolls == () and ph.current is None
    assert ph.next_phase().phase == "B"
    assert FixedPhases.start(("A", "B")).next_phase().next_phase().round == 2


# --------------------------------------------------------------------------- JSON


def _samples() -> list[Any]:
    turns = OrderedTurns.start(("ana", "brak")).spend()
    dta, _ = DeclareThenAct.start((("a", 5), ("b", 5), ("c", 2)), FixedDice([3, 3, 6, 1]))
    dta = dta.declare("c", "run").declare("b", "slash")
    init, _ = SideInitiative.start(("x", "y"), FixedDice([10, 10, 1, 4]))
    tl = PhaseTimeline().place("m", "fireball", "4", span=5, spell=True).advance()
    ph, _ = (
        FixedPhases.start().declare("r", "sword").declare("o", "shove").roll(FixedDice([15, 18]))
    )
    ph, _ = ph.resolve_next().reroll("r", FixedDice([19]))
    return [
        turns,
        dta,
        init,
        init.sides[0],
        tl,
        tl.actions[1],
        ph,
        ph.entries[0],
        PhaseAction("x", "wait"),
        SideRoll("s", 4),
        TimedAction("a", "b", 1, "S", "F"),
    ]


@pytest.mark.parametrize("state", _samples(), ids=lambda s: type(s).__name__)
def test_encode_decode_round_trip(state: Any) -> None:
    data = json.loads(records.encode(state))
    assert data["type"] == records.name_of(state)
    back = records.convert(data, type(state))
    assert back == state and type(back) is type(state)


def test_every_record_is_sampled_frozen_and_documented() -> None:
    classes = {type(s) for s in _samples()}
    assert classes == {
        OrderedTurns, DeclareThenAct, SideInitiative, SideRoll,
        PhaseTimeline, TimedAction, FixedPhases, PhaseAction,
    }  # fmt: skip
    tree = ast.parse(inspect.getsource(schedule))
    defs = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for cls in classes:
        assert cls.__struct_config__.frozen, cls
        body = defs[cls.__name__].body
        for i, node in enumerate(body):
            if isinstance(node, ast.AnnAssign):
                doc = body[i + 1] if i + 1 < len(body) else None
                assert isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant), (
                    f"{cls.__name__}.{ast.unparse(node.target)} has no docstring"
                )


def test_decoding_a_broken_state_is_an_input_error() -> None:
    data = records.plain(OrderedTurns.start(("ana", "brak")))
    data["index"] = 5
    with pytest.raises(InputError, match="outside the turn order"):
        records.convert(data, OrderedTurns)
    bad = records.plain(PhaseTimeline())
    bad["current"] = "7"
    with pytest.raises(InputError, match="no phase"):
        records.convert(bad, PhaseTimeline)
    dta = records.plain(DeclareThenAct(keys=(("a", 1),)))
    dta["acted"] = ["a"]
    with pytest.raises(InputError, match="without declaring"):
        records.convert(dta, DeclareThenAct)
