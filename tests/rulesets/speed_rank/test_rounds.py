"""Rounds, phases, the action budget, spells and multi-phase actions, and the two panels."""

from __future__ import annotations

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import (
    Act,
    AddToken,
    Attack,
    EndTurn,
    Move,
    RemoveToken,
    Reorder,
    StartCombat,
)
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.state import Template, Token
from tacmap.engine.play.referee import replay
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.schedule import SPEED_PHASES
from tests.rulesets.speed_rank.helpers import fighters, next_round, referee, rules_of, run, to_phase


def party() -> list[Token]:
    """Three sides from the seed's example: two mercenary companies and the players."""
    return [
        Token("red", "Red sergeant", "Red Company", 5, 5, stats={"weapon": "longsword"}),
        Token("mage", "Mage", "Players", 2, 9, stats={"race": "elf", "dex": 16,
                                                      "spells": ("fireball", "sleep")}),
        Token("hero", "Hero", "Players", 6, 6, stats={"dex": 18, "weapon": "spear"}),
        Token("blue", "Blue sergeant", "Blue Company", 6, 5, hp=30, max_hp=30,
              stats={"weapon": "greatsword"}),
    ]


def fireball_at(ref: object, name: str) -> Act:
    """The Mage's Fireball, its 4-square circle centred on token ``name``'s cell."""
    token = ref.state.tokens[name]  # type: ignore[attr-defined]
    return Act("mage", "cast", "", "fireball", Template("circle", token.cell, 4))


def test_the_worked_example_orders_every_phase(registry: Registry) -> None:
    ref = referee(registry, party())
    out = run(ref, StartCombat(), [3, 4, 6])
    assert "round 1 initiative: Blue Company 6: first; Players 4; Red Company 3" in out
    order = rules_of(registry).turn_order(ref.state)
    assert order is not None
    sides = [r for r in order.rows if r.id in ("Red Company", "Players", "Blue Company")]
    assert [(r.id, r.key) for r in sides] == [
        ("Blue Company", "d10: 6"), ("Players", "d10: 4"), ("Red Company", "d10: 3")]
    # Each side's combatants follow its row.
    ids = [r.id for r in order.rows]
    assert ids == ["Blue Company", "blue", "Players", "mage", "hero", "Red Company", "red"]


def test_the_round_walks_phases_and_rolls_again(registry: Registry) -> None:
    ref = referee(registry, party())
    run(ref, StartCombat(), [3, 4, 6])
    assert ref.state.schedule.phase == "S"  # the elf mage may start a spell
    seen = []
    for _ in range(200):
        rnd = ref.state.schedule
        seen.append((rnd.phase, rnd.current_side))
        if rnd.phase == "F" and rnd.current_side == "Red Company":
            break
        run(ref, EndTurn())
    phases = [SPEED_PHASES.index(p) for p, _ in seen]
    assert phases == sorted(phases)  # phases only ever move on
    assert ("-1", "Players") in seen and ("-1", "Red Company") not in seen
    out = next_round(ref, [2, 9, 5])
    assert "round 2 begins" in out
    assert "round 2 initiative: Players 9: first; Blue Company 5; Red Company 2" in out


def test_end_turn_names_the_side_and_reorder_is_the_gms(registry: Registry) -> None:
    ref = referee(registry, party())
    run(ref, StartCombat(), [3, 4, 6])
    with pytest.raises(RuleError, match="it is Players' turn in phase S"):
        run(ref, EndTurn("Red Company"))
    # Any token's menu offers it, an enemy's too: it names the side whose turn it ends.
    enemy = next(t.id for t in ref.state.tokens.values() if t.side == "Red Company")
    offered = {o.key: o for o in ref.ruleset.actions_for(ref.state, enemy)}
    assert offered["end_turn"].label == "End the side's turn (Players)"
    run(ref, EndTurn("mage"))  # a token of the side may end its turn
    out = run(ref, Reorder(("Red Company", "Players", "Blue Company")))
    assert out == ["GM reorders the sides: Red Company, Players, Blue Company"]
    assert ref.state.schedule.current_side == "Players"


def test_one_standard_and_one_move_action_a_round(registry: Registry) -> None:
    ref = referee(registry, fighters())
    run(ref, StartCombat(), [6, 3])
    run(ref, Move("ana", ((5, 4),)))
    run(ref, Move("ana", ((5, 5),)))  # the standard action spent as a second move
    with pytest.raises(RuleError, match="Ana has no standard action left this round"):
        run(ref, Attack("ana", "bo"))
    with pytest.raises(RuleError, match="Ana has no action left to move with"):
        run(ref, Move("ana", ((5, 4),)))
    assert rules_of(registry).move_budget(ref.state, ref.state.tokens["ana"]) == 0
    next_round(ref, [6, 3])
    run(ref, Attack("ana", "bo"), [1])  # a new round, a new budget


def test_reach_counts_edge_to_edge(registry: Registry) -> None:
    rules = rules_of(registry)
    ref = referee(registry, party())
    state = ref.state
    assert rules.reach(state, state.tokens["hero"]) == 2  # spear
    assert rules.reach(state, state.tokens["mage"]) == 1  # fists
    run(ref, StartCombat(), [3, 4, 6])
    to_phase(ref, "1", "Players")
    run(ref, Attack("hero", "red"), [1])  # 10 ft away, within the spear's reach


def test_spell_speed_is_added_to_the_fast_phase(registry: Registry) -> None:
    ref = referee(registry, party())
    run(ref, StartCombat(), [3, 4, 6])
    # Fireball, Spell Speed 3, started in S: cast through phase 3.
    out = run(ref, fireball_at(ref, "blue"))
    assert ("phase S (Starting Phase): Mage begins casting Fireball at (6,5), to take "
            "effect at the end (phases S to 3)") in out
    assert "Fireball placed: covers Red sergeant, Hero, Blue sergeant" in out
    with pytest.raises(RuleError, match="Mage is casting Fireball through phase 3"):
        run(ref, Move("mage", ((2, 8),)))
    to_phase(ref, "3", "Blue Company")
    # Phase 3, the Players' turn: everyone within 20 ft of Blue's square, the Hero too (a
    # fireball does not choose sides); the Mage, 4 squares across and 4 down, is out.
    # Each saves vs. Spell (15) for half: Red 3, Hero 20, Blue 3.
    out = run(ref, EndTurn(), [3, 1, 1, 1, 20, 2, 2, 2, 3, 6, 6, 6])
    assert "Mage's Fireball takes effect" in out
    assert "Fireball is taken off the map" in out
    assert ref.state.templates == ()
    hp = {t.id: t.hp for t in ref.state.tokens.values()}
    assert hp == {"red": 10 - 3, "mage": 10, "hero": 10 - 6 // 2, "blue": 30 - 18}


def test_a_delayed_spell_lands_later(registry: Registry) -> None:
    rules = rules_of(registry)
    spell = rules.spells["delayed_blast"]
    assert (spell.speed, spell.delay) == (1, 3)
    tokens = party()
    tokens[1] = Token("mage", "Mage", "Players", 2, 9, stats={"spells": ("delayed_blast",)})
    ref = referee(registry, tokens)
    run(ref, StartCombat(), [3, 4, 6])
    out = run(ref, Act("mage", "cast", "blue", "delayed_blast"))
    assert "(phases S to 4)" in out[0]  # cast by phase 1, then 3 phases' delay
    item = next(i for i in rules.timeline(ref.state).items if i.label == "Delayed Blast")
    assert (SPEED_PHASES[item.start], SPEED_PHASES[item.end]) == ("S", "4")


def test_a_caster_who_dies_loses_the_spell(registry: Registry) -> None:
    tokens = party()
    tokens[1] = Token("mage", "Mage", "Players", 7, 5, hp=3, max_hp=3,
                      stats={"spells": ("fireball",)})
    ref = referee(registry, tokens)
    run(ref, StartCombat(), [3, 4, 6])
    run(ref, fireball_at(ref, "red"))
    assert [p.label for p in ref.state.templates] == ["Fireball"]
    to_phase(ref, "3", "Blue Company")
    out = run(ref, Attack("blue", "mage"), [20, 6, 6])
    assert "Mage's Fireball ends: Mage is dead" in out
    assert ref.state.templates == (), "the spell's area goes with it"
    assert not any(p.actor == "mage" for p in ref.state.schedule.plans)


def test_sleep_ends_with_a_blow(registry: Registry) -> None:
    ref = referee(registry, party())
    run(ref, StartCombat(), [3, 4, 6])
    run(ref, Act("mage", "cast", "red", "sleep"))  # Spell Speed 1: lands in phase 1
    to_phase(ref, "0", "Red Company")  # Players hold phase 1: the Sleep lands
    out = run(ref, EndTurn(), [2])  # Red's Save vs. Spell: 2
    assert "Red sergeant is now asleep" in out
    with pytest.raises(RuleError, match="Red sergeant is asleep and cannot act"):
        run(ref, Move("red", ((4, 5),)))
    to_phase(ref, "3", "Blue Company")
    out = run(ref, Attack("blue", "red"), [15, 1, 1])
    assert "Red sergeant is no longer asleep" in out


def test_the_timeline_panel(registry: Registry) -> None:
    rules = rules_of(registry)
    ref = referee(registry, party())
    assert rules.timeline(ref.state) is None and rules.turn_order(ref.state) is None
    run(ref, StartCombat(), [1, 4, 10])  # Red delayed, Blue moved up
    run(ref, fireball_at(ref, "red"))
    view = rules.timeline(ref.state)
    assert view is not None
    assert view.phases == SPEED_PHASES and view.current == 0
    by_actor = [(i.actor, i.label, SPEED_PHASES[i.start], SPEED_PHASES[i.end])
                for i in view.items]
    # Rows come grouped by side in initiative order: Blue, Players, Red.
    assert by_actor == [
        ("blue", "ready (moved up one phase: rolled 10)", "-1", "-1"),
        # The greatsword (speed 3) strikes two phases after its wielder may first act.
        ("blue", "⚔ greatsword", "2", "2"),
        ("mage", "ready", "-2", "-2"),
        ("mage", "Fireball", "S", "3"),
        ("hero", "ready", "-1", "-1"),
        ("hero", "⚔ spear", "0", "0"),
        ("red", "ready (delayed one phase: rolled 1)", "1", "1"),
    ]
    order = rules.turn_order(ref.state)
    assert order is not None
    rows = {r.id: r for r in order.rows}
    assert rows["Blue Company"].detail == "rolled 10: first, actions moved up one phase"
    assert rows["Red Company"].detail == "rolled 1: last, actions delayed one phase"
    assert rows["mage"].state == "declared" and rows["Players"].state == "acting"
    assert order.title == "Round 1 — phase S (Starting Phase): Players' turn"


def test_a_carried_sprint_is_marked_carried(registry: Registry) -> None:
    rules = rules_of(registry)
    ref = referee(registry, fighters())
    run(ref, StartCombat(), [6, 3])
    to_phase(ref, "F", "Red")
    out = run(ref, Act("ana", "sprint"))
    assert "(phase F, then phases 0 to 1 of round 2)" in out[0]
    next_round(ref, [6, 3])
    view = rules.timeline(ref.state)
    assert view is not None
    sprint = next(i for i in view.items if i.label == "sprint")
    assert (sprint.start, sprint.end, sprint.carried) == (4, 5, True)
    options = {o.key: o for o in rules.actions_for(ref.state, "ana")}
    assert options["sustain"].enabled and options["cancel"].enabled
    assert not options["attack"].enabled
    assert "before phase 0" in options["attack"].reason
    out = run(ref, Act("ana", "cancel"))
    assert out == ["Ana's sprint ends: Ana cancels it"]


def test_actions_for_explains_what_is_not_possible(registry: Registry) -> None:
    rules = rules_of(registry)
    ref = referee(registry, party())
    before = {o.key: o for o in rules.actions_for(ref.state, "hero")}
    assert not before["attack"].enabled and "combat has not started" in before["attack"].reason
    run(ref, StartCombat(), [3, 4, 6])
    mage = {o.key: o for o in rules.actions_for(ref.state, "mage")}
    assert mage["cast"].enabled and mage["cast"].target == "token"
    hero = {o.key: o for o in rules.actions_for(ref.state, "hero")}
    # Human, Dexterity 18: base speed -1; the spear (speed 1) less the same +1 is 0.
    assert "before phase 0 (Fast): base speed -1" in hero["attack"].reason
    assert hero["attack"].reason.endswith("spear speed 0 (1, Dexterity +1)")
    assert mage["end_turn"].enabled


def test_tokens_added_mid_round_act_from_the_next(registry: Registry) -> None:
    ref = referee(registry, fighters())
    run(ref, StartCombat(), [6, 3])
    run(ref, AddToken(Token("dan", "Dan", "Green", 1, 1)))
    with pytest.raises(RuleError, match="Green joined after this round's initiative roll"):
        run(ref, Move("dan", ((1, 2),)))
    out = next_round(ref, [6, 3, 8])
    assert "round 2 initiative: Green 8: first; Red 6; Blue 3" in out


@pytest.mark.parametrize(("stats", "message"), [
    ({"race": "centaur"}, "Race must be one of human, elf, .*, not 'centaur'"),
    ({"dex": 40}, "Dexterity must be a whole number from 1 to 25, not 40"),
    ({"dex": "high"}, "Dexterity must be a whole number from 1 to 25, not 'high'"),
    ({"weapon": "banana"}, "Weapon must be one of unarmed, dagger, .*, not 'banana'"),
    ({"spells": ["wish"]}, "Memorized spells names 'wish', which is not one of magic_missile"),
    ({"shield": 1}, "Shield must be yes or no"),
    ({"dexterity": 12}, "unknown stat 'dexterity' \\(this ruleset knows race, dex, weapon"),
    ({"mount_type": "boat"}, "Mount type must be one of mount, open_vehicle, closed_vehicle"),
    ({"mount_speed": -1}, "Mount speed must be a whole number from 0 to 100, not -1"),
    ({"mount": "x" * 61}, "Mount or vehicle must be at most 60 characters long, not 61"),
    ({"dex": 40, "race": "centaur"}, "Race must be .*; Dexterity must be"),
])
def test_a_bad_stat_block_is_refused(registry: Registry, stats: dict[str, object],
                                     message: str) -> None:
    token = Token("x", "X", "Side", 0, 0, stats=stats)
    with pytest.raises(InputError, match=message):
        rules_of(registry).check_token(token)


def test_save_load_and_replay_mid_combat(registry: Registry) -> None:
    ref = referee(registry, party())
    run(ref, StartCombat(), [4, 4, 6, 2, 1, 12, 3])  # a tie, a Lucky Break for the Hero
    run(ref, fireball_at(ref, "red"))
    to_phase(ref, "1", "Players")
    run(ref, Attack("hero", "red"), [12, 4])
    loaded = storage.loads(storage.dumps(ref.state, ref.log), registry)
    assert loaded.state == ref.state
    assert replay(ref.initial_state(), ref.log) == ref.state


def test_the_turn_order_shows_the_phase_each_attack_really_takes(registry: Registry) -> None:
    """Issue 26: a dagger faster than its wielder strikes at base speed, and a crossbow
    past 5 (Dexterity 1: 4 + 2 = 6) strikes in F: the row says so, not "dagger −3"."""
    rules = rules_of(registry)
    ref = referee(registry, [
        Token("slow", "Slowhand", "Party", 5, 5, stats={"dex": 1, "weapon": "crossbow"}),
        Token("quick", "Quick", "Party", 5, 7, stats={"dex": 18, "weapon": "dagger"}),
        Token("ogre", "Ogre", "Foes", 12, 5)])
    run(ref, StartCombat(), [7, 2])
    order = rules.turn_order(ref.state)
    detail = {row.id: row.detail for row in order.rows}
    assert detail["slow"].startswith("base speed 2, attacks with the crossbow from phase F;")
    assert detail["quick"].startswith("base speed -1, attacks with the dagger from phase -1;")
    assert "crossbow 6" not in detail["slow"] and "dagger -3" not in detail["quick"]


def test_a_removed_caster_takes_the_spell_off_the_timeline(registry: Registry) -> None:
    """Issue 34 item 4: a declaration whose token is gone is dropped with a log line."""
    ref = referee(registry, party())
    run(ref, StartCombat(), [3, 4, 6])
    run(ref, fireball_at(ref, "blue"))
    out = run(ref, RemoveToken("mage"))
    assert "Mage's Fireball ends: removed from the map" in out
    assert ref.state.templates == ()
    assert not any(p.actor == "mage" for p in ref.state.schedule.plans)  # type: ignore[union-attr]
    ref.undo()
    assert [p.actor for p in ref.state.schedule.plans] == ["mage"]  # type: ignore[union-attr]
