"""Issue 22 item 11: End turn stops only where a side has something to do.

A side whose combatants are not ready yet, or have spent what they could act with,
is passed over with a log line; a side that could act and waits ends its phase with
one End turn."""

from __future__ import annotations

from tacmap.engine.model.commands import Act, Attack, EndTurn, SetHouseRule, StartCombat
from tacmap.engine.model.state import Token
from tacmap.engine.rules.ruleset import Registry
from tests.rulesets.speed_rank.helpers import next_round, referee, rules_of, run, to_phase


def duel() -> list[Token]:
    """Two longswords (speed 0) toe to toe, and a greatsword (speed 3) on Blue's side."""
    return [
        Token("ana", "Ana", "Red", 5, 5, hp=20, max_hp=20, stats={"weapon": "longsword"}),
        Token("bo", "Bo", "Blue", 6, 5, hp=20, max_hp=20, stats={"weapon": "longsword"}),
        Token("gus", "Gus", "Blue", 6, 6, hp=20, max_hp=20, stats={"weapon": "greatsword"}),
    ]


def turns(ref: object) -> tuple[str, str]:
    rnd = ref.state.schedule  # type: ignore[attr-defined]
    return rnd.phase, rnd.current_side


def test_a_side_that_spent_its_actions_is_passed_over_with_a_log_line(
        registry: Registry) -> None:
    ref = referee(registry, duel())
    # House rule move_only_phase = "skip": a lone move action holds no phase.
    ref.execute(SetHouseRule("move_only_phase", "skip"))
    out = run(ref, StartCombat(), [6, 3])  # Red first
    assert turns(ref) == ("0", "Red")
    assert out[-1] == "phases S, -3, -2, -1 pass; phase 0 (Fast): Red's turn"
    run(ref, Attack("ana", "bo"), [1])  # a miss spends Ana's standard action
    run(ref, EndTurn())
    assert turns(ref) == ("0", "Blue")
    run(ref, Attack("bo", "ana"), [1])
    out = run(ref, EndTurn())
    # Ana has only a move left and Gus waits for his greatsword: phases 1 and 2 pass,
    # and the turn stops where the greatsword may first strike.
    assert turns(ref) == ("3", "Blue")
    assert out == ["phases 1, 2 pass; phase 3: nothing to do for Red; "
                   "phase 3 (Very Slow): Blue's turn"]


def test_a_side_that_waits_ends_its_phase_with_one_key(registry: Registry) -> None:
    ref = referee(registry, duel())
    run(ref, StartCombat(), [6, 3])
    presses = 0
    seen = []
    while ref.state.round == 1:
        seen.append(turns(ref))
        run(ref, EndTurn(), [2, 5] if turns(ref) == ("F", "Blue") else [])
        presses += 1
    # Nobody acts: each side is asked once in every phase from 0 on (both may still
    # attack there), and never in S, -3 … -1, where nobody is ready yet.
    assert seen == [(p, s) for p in ("0", "1", "2", "3", "4", "5", "F") for s in ("Red", "Blue")]
    assert presses == 14


def test_once_everyone_has_struck_the_round_ends_at_one_key(registry: Registry) -> None:
    ref = referee(registry, duel())
    # House rule move_only_phase = "skip": a lone move action holds no phase.
    ref.execute(SetHouseRule("move_only_phase", "skip"))
    run(ref, StartCombat(), [6, 3])
    run(ref, Attack("ana", "bo"), [1])
    run(ref, EndTurn())
    run(ref, Attack("bo", "ana"), [1])
    run(ref, EndTurn())
    run(ref, Attack("gus", "ana"), [1])
    out = run(ref, EndTurn(), [6, 3])
    assert out[0] == "phases 4, 5, F pass; round 1 ends"
    assert "round 2 begins" in out


def test_a_spell_lands_on_the_way_when_its_side_has_nothing_else_to_do(
        registry: Registry) -> None:
    mage = Token("mage", "Mage", "Red", 2, 2, stats={"spells": ("magic_missile",)})
    ref = referee(registry, [mage, *duel()[1:]])
    run(ref, StartCombat(), [6, 3])
    assert turns(ref) == ("S", "Red")
    run(ref, Act("mage", "cast", "bo", "magic_missile"))  # lands at the end of phase 0
    out = run(ref, EndTurn(), [3])
    assert "Mage's Magic Missile takes effect" in out
    assert out[-1] == "phase 0: nothing more to do for Red; phase 0 (Fast): Blue's turn"
    assert ref.state.tokens["bo"].hp < 20


def test_the_timeline_marks_when_a_slow_weapon_first_strikes(registry: Registry) -> None:
    ref = referee(registry, duel())
    run(ref, StartCombat(), [6, 3])
    view = rules_of(registry).timeline(ref.state)
    gus = [(i.label, i.start) for i in view.items if i.actor == "gus"]
    assert gus == [("ready", 4), ("⚔ greatsword", 7)]  # phase 0, then phase 3
    to_phase(ref, "3", "Blue")  # Blue holds phase 3 for Gus's first swing


def test_magic_missiles_card_names_its_damage_dice(registry: Registry) -> None:
    mage = Token("mage", "Mage", "Red", 2, 2, stats={"spells": ("magic_missile", "sleep")})
    ref = referee(registry, [mage, *duel()[1:]])
    run(ref, StartCombat(), [6, 3])
    rules = rules_of(registry)
    card = rules.preview(ref.state, Act("mage", "cast", "bo", "magic_missile"))
    assert card.legal and card.odds is not None  # not "No dice decide this"
    assert card.odds.success == 1.0
    assert [d for d, _ in card.odds.damage] == [2, 3, 4, 5]  # 1d4+1
    assert "Magic Missile: 1d4+1 damage, rolled when the spell takes effect" in card.odds.lines
    assert "No save: it always takes effect" in card.odds.lines
    sleep = rules.preview(ref.state, Act("mage", "cast", "bo", "sleep"))
    assert sleep.odds is not None and 0 < sleep.odds.success < 1  # Bo may save


def test_ending_the_turn_without_sustaining_cancels_the_carried_action(
        registry: Registry) -> None:
    ref = referee(registry, duel())
    run(ref, StartCombat(), [6, 3])
    to_phase(ref, "5", "Red")
    run(ref, Act("ana", "sprint"))  # phases 5, F and on into round 2
    next_round(ref, [6, 3])
    assert turns(ref) == ("S", "Red")  # the sprint waits for a decision
    out = run(ref, EndTurn())
    assert "Ana's sprint ends: Ana ends the turn without sustaining it" in out
    assert not ref.state.schedule.plans


def test_a_lone_move_is_still_offered_in_its_sides_turn(registry: Registry) -> None:
    ref = referee(registry, duel())
    run(ref, StartCombat(), [6, 3])
    run(ref, Attack("ana", "bo"), [1])  # Ana's standard action is spent; her move is not
    rules = rules_of(registry)
    rows = {r.id: r for r in rules.turn_order(ref.state).rows}
    assert rows["ana"].state == "acting"
    move = next(o for o in rules.actions_for(ref.state, "ana") if o.key == "move")
    assert move.enabled
