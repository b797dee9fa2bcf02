"""The autopilot (issue 35): legal, deterministic, fair, and better than the greedy policy."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.model.commands import Act, Attack, Command, EndTurn, Move, StartCombat
from tacmap.engine.model.state import Encounter, MapSpec, Token, Wall
from tacmap.engine.play.autopilot import (
    Known,
    by_side,
    decide,
    mirror_matches,
    mirrored,
    next_command,
    pilot_for,
    suggest,
)
from tacmap.engine.play.autoplay import Table
from tacmap.engine.play.forecast import Aggressive, OddsKey, forecast, hints_of
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry, Ruleset
from tacmap.engine.rules.views import Odds
from tests.engine.helpers import skirmish_state

DEMOS = Path(__file__).resolve().parents[2] / "resources"
DEMO_FILES = sorted(p.name for p in DEMOS.glob("*.tacmap"))


def started(state: Encounter, ruleset: Ruleset) -> Referee:
    referee = Referee(state, ruleset)
    referee.execute(StartCombat())
    return referee


def until_turn_of(referee: Referee, token: str) -> None:
    """End turns until ``token`` acts."""
    for _ in range(20):
        if referee.ruleset.whose_turn(referee.state) == token:
            return
        referee.execute(EndTurn())
    raise AssertionError(f"{token} never got a turn")


def aimed_at(command: Command) -> str:
    return str(getattr(command, "target", "") or "")


@pytest.mark.parametrize("name", [*DEMO_FILES, "skirmish"])
def test_every_command_the_autopilot_picks_is_accepted(registry: Registry, name: str) -> None:
    if name == "skirmish":
        state, ruleset = skirmish_state(), registry.get("skirmish")
    else:
        state = storage.load(DEMOS / name, registry).state
        ruleset = registry.get(state.ruleset)
    referee = started(state, ruleset)
    pilot, driver = pilot_for(referee, 3)
    acted = 0
    for _ in range(150):
        actor = ruleset.whose_turn(referee.state)
        if actor is None or len({t.side for t in referee.state.tokens.values()
                                 if not pilot.hints.out(t)}) <= 1:
            break
        command = next_command(pilot, driver, actor)
        referee.execute(command)  # a refusal raises RuleError and fails the test
        acted += not isinstance(command, EndTurn)
    assert acted >= 3, "the autopilot only ended turns"


def test_the_same_state_and_seed_give_the_same_choices(registry: Registry) -> None:
    state = storage.load(DEMOS / "demo.tacmap", registry).state
    ruleset = registry.get(state.ruleset)
    referee = started(state, ruleset)
    actor = ruleset.whose_turn(referee.state)
    assert actor is not None
    first = decide(referee.state, ruleset, actor, 11)
    assert decide(referee.state, ruleset, actor, 11) == first
    one = forecast(state, ruleset, 2, seed=4, policy=by_side)
    two = forecast(state, ruleset, 2, seed=4, policy=by_side)
    assert (one.wins, one.rounds, one.hp_total) == (two.wins, two.rounds, two.hp_total)


def fogged_duel(fog: bool) -> Encounter:
    """An orc, and a hero behind a wall it has never seen; the way round is open below."""
    state = Encounter(ruleset="skirmish", ruleset_version="1.0", map=MapSpec(20, 10), seed=3)
    state.map.walls = (Wall(((10, 0), (10, 7))),)
    state.fog = msgspec.structs.replace(state.fog, enabled=fog)
    for t in (Token("grul", "Grul", "orcs", 3, 1, stats={"ac": 12}),
              Token("ana", "Ana", "party", 15, 1, stats={"atk": 4})):
        state.tokens[t.id] = t
    state.party = "party"
    return state


def walk(referee: Referee) -> float:
    """Metres the orc would walk to stand next to the hero, round the wall."""
    cost = referee.preview(Move("grul", ((14, 1),))).cost
    assert cost is not None
    return cost


def test_under_fog_it_does_not_walk_towards_an_enemy_it_has_never_seen(
        registry: Registry) -> None:
    ruleset = registry.get("skirmish")
    # Without fog the orc heads for the hero: the fogged case below is not a dead end.
    open_field = started(fogged_duel(False), ruleset)
    until_turn_of(open_field, "grul")
    seen = decide(open_field.state, ruleset, "grul", 5)
    assert isinstance(seen, Move)
    before = walk(open_field)
    open_field.execute(seen)
    assert walk(open_field) < before

    referee = started(fogged_duel(True), ruleset)
    until_turn_of(referee, "grul")
    known = Known()
    assert known.unseen(referee.state, ruleset, "orcs", hints_of(ruleset)) == {"ana"}
    before = walk(referee)
    for _ in range(5):
        command = decide(referee.state, ruleset, "grul", 5, known)
        assert aimed_at(command) != "ana"
        referee.execute(command)
        assert walk(referee) >= before
        if isinstance(command, EndTurn):
            break


def test_an_enemy_once_seen_is_remembered_when_it_steps_out_of_sight(
        registry: Registry) -> None:
    ruleset = registry.get("skirmish")
    state = fogged_duel(True)
    known = Known()
    hints = hints_of(ruleset)
    hero = state.tokens["ana"]
    state.tokens["ana"] = msgspec.structs.replace(hero, x=11, y=9)  # in sight, past the wall
    assert known.unseen(state, ruleset, "orcs", hints) == set()
    state.tokens["ana"] = hero  # back behind it
    assert known.unseen(state, ruleset, "orcs", hints) == set()
    assert Known().unseen(state, ruleset, "orcs", hints) == {"ana"}


def test_it_finishes_a_wounded_enemy_where_the_greedy_policy_hits_a_fresh_one(
        registry: Registry) -> None:
    state = storage.load(DEMOS / "demo.tacmap", registry).state
    ruleset = registry.get(state.ruleset)
    me = state.tokens["aldric"]
    # Barry down to 2 HP on Ser Aldric's right, Grell fresh on his left.
    state.tokens = {"aldric": me,
                    "barry": msgspec.structs.replace(state.tokens["barry"], x=me.x + 1,
                                                     y=me.y, hp=2),
                    "grell": msgspec.structs.replace(state.tokens["grell"], x=me.x - 1,
                                                     y=me.y)}
    referee = started(state, ruleset)
    until_turn_of(referee, "aldric")
    assert aimed_at(decide(referee.state, ruleset, "aldric", 1)) == "barry"
    # The greedy policy as it plays in a forecast: its odds cache warm from earlier
    # decisions, both attacks priced; it goes for the bigger hit on the fresh enemy.
    cache: dict[OddsKey, Odds | None] = {}
    for _ in range(3):
        greedy = Aggressive(random.Random(1), hints_of(ruleset), cache)
        choice = greedy.choose(Table(referee, random.Random(1)), "aldric",
                               ruleset.actions_for(referee.state, "aldric"))
    assert choice is not None and choice.target == "grell"


def test_suggest_gives_three_plans_priced_by_the_side_s_chance_to_win(
        registry: Registry) -> None:
    state = storage.load(DEMOS / "demo.tacmap", registry).state
    ruleset = registry.get(state.ruleset)
    referee = started(state, ruleset)
    actor = ruleset.whose_turn(referee.state)
    assert actor is not None
    plans = suggest(referee.state, ruleset, actor, 3, fights=4)
    assert 1 <= len(plans) <= 3
    assert plans == sorted(plans, key=lambda s: -s.effect)
    for plan in plans:
        assert plan.commands and "chance to win" in plan.sentence
        assert -1.0 <= plan.effect <= 1.0 and 0.0 <= plan.win <= 1.0
    assert suggest(referee.state, ruleset, actor, 3, fights=4) == plans


def test_a_mirror_match_plays_each_fight_both_ways(registry: Registry) -> None:
    state = storage.load(DEMOS / "opposed_demo.tacmap", registry).state
    ruleset = registry.get(state.ruleset)
    twin = mirrored(state, "Party")
    assert {t.side for t in twin.tokens.values()} == {"Party", "Party (mirror)"}
    assert twin.tokens["kara_mirror"].x == state.map.width - 1 - state.tokens["kara"].x
    result = mirror_matches(state, ruleset, 2)
    assert result.pairs == 2
    assert result.wins + result.losses + result.undecided == 4
    # The bench plays a ruleset's pairs in parts on every core: cut in two, these pairs
    # give the same figures (the greedy side prices every attack, its cache warm or not).
    both = mirror_matches(state, ruleset, 1) + mirror_matches(state, ruleset, 1, first=1)
    assert both == result


def test_play_with_the_autopilot_plays_the_fight_out_and_saves_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], registry: Registry) -> None:
    out = tmp_path / "after.tacmap"
    assert main(["play", str(DEMOS / "opposed_demo.tacmap"), "--autopilot", "all",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr()[0]
    assert "(autopilot: " in printed and "The fight is over" in printed
    assert storage.load(out, registry).log


def test_play_stops_at_a_token_off_autopilot_with_no_script_line_left(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"type": "end_turn"}\n', "utf-8")
    assert main(["play", str(DEMOS / "demo.tacmap"), "--autopilot", "bandits",
                 "--script", str(script), "--rounds", "2"]) == 0
    printed = capsys.readouterr()[0]
    assert "(autopilot: Barry the Guard)" in printed
    assert "not on autopilot, and no script line left" in printed


def test_a_script_that_starts_the_fight_starts_it_with_its_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The manual's turn.jsonl starts with start_combat: with --autopilot it was refused
    # ("combat has already started"), the autopilot having started the fight itself.
    script = tmp_path / "turn.jsonl"
    script.write_text('{"type": "start_combat", "order": ["aldric", "barry", "wren", '
                      '"grell", "tam", "pip", "mott"]}\n'
                      '{"type": "move", "actor": "aldric", "path": [[13, 9]]}\n'
                      '{"type": "end_turn", "actor": "aldric"}\n', "utf-8")
    assert main(["play", str(DEMOS / "demo.tacmap"), "--autopilot", "bandits",
                 "--script", str(script), "--rounds", "1"]) == 0
    printed = capsys.readouterr()[0]
    assert "turn order: Ser Aldric, Barry the Guard, Wren" in printed  # the script's order
    assert printed.index("» move actor=aldric") < printed.index("(autopilot: Barry the Guard)")


def test_play_refuses_a_side_the_encounter_does_not_have_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", str(DEMOS / "demo.tacmap"), "--autopilot", "orcs"]) == 2
    err = capsys.readouterr()[1]
    assert "no side orcs" in err and "bandits, heroes" in err and err.count("\n") == 1
    assert main(["play", str(DEMOS / "demo.tacmap"), "--script", "-", "--rounds", "2"]) == 2


def test_forecast_takes_the_autopilot_as_its_policy(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DEMOS / "opposed_demo.tacmap")
    assert main(["forecast", path, "--fights", "5", "--jobs", "1", "--policy", "autopilot"]) == 0
    assert "autopilot: 5 fights" in capsys.readouterr()[0]
    assert main(["forecast", path, "--fights", "5", "--policy", "clever"]) == 2


def test_in_a_side_s_turn_another_member_acts_before_the_side_ends_it(
        registry: Registry) -> None:
    # speed_rank: End turn ends the whole side's phase. Ana has struck and is at grips
    # (nothing left worth doing); Cy, in the same phase, can still close in on Bo: the
    # autopilot plays Cy rather than ending Red's turn for both.
    from tacmap.engine.model.commands import Attack
    from tacmap.engine.rules.dice import FixedDice
    from tests.rulesets.speed_rank.helpers import referee as speed_rank_referee

    tokens = [
        Token("ana", "Ana", "Red", 5, 5, hp=20, max_hp=20, stats={"weapon": "longsword"}),
        Token("cy", "Cy", "Red", 5, 9, hp=20, max_hp=20, stats={"weapon": "longsword"}),
        Token("bo", "Bo", "Blue", 6, 5, hp=20, max_hp=20, stats={"weapon": "longsword"}),
    ]
    ref = speed_rank_referee(registry, tokens)
    ref.execute(StartCombat(), FixedDice([6, 3]))  # Red first
    ref.execute(Attack("ana", "bo"), FixedDice([1]))  # a miss spends Ana's standard action
    rules = ref.ruleset
    assert rules.whose_turn(ref.state) == "ana"
    command = decide(ref.state, rules, "ana", seed=1)
    assert not isinstance(command, EndTurn)
    assert command.actor == "cy"  # type: ignore[attr-defined]


def _aldric_by_barry(registry: Registry, pool: int) -> tuple[Referee, Ruleset]:
    """Action_pool's demo cut down to Ser Aldric (Mighty Blow: two more damage dice, two
    more pool dice discarded) with ``pool`` dice left, next to Barry, on his turn."""
    state = storage.load(DEMOS / "demo.tacmap", registry).state
    ruleset = registry.get(state.ruleset)
    aldric = state.tokens["aldric"]
    state.tokens = {"aldric": aldric,
                    "barry": msgspec.structs.replace(state.tokens["barry"], x=aldric.x + 1,
                                                     y=aldric.y)}
    referee = Referee(state, ruleset)
    referee.execute(StartCombat(order=("aldric", "barry")))
    me = referee.state.tokens["aldric"]
    referee.state.tokens["aldric"] = msgspec.structs.replace(
        me, values={**me.values, "pool": pool})
    return referee, ruleset


def test_a_knight_short_of_dice_swings_a_plain_blow_not_one_that_drains_his_pool(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    # The odds card prices the Mighty Blow alone (more damage); played on to his next
    # turn, the two dice it discards leave him nothing to attack with.
    referee, ruleset = _aldric_by_barry(registry, pool=2)
    chosen = decide(referee.state, ruleset, "aldric", 1)
    assert isinstance(chosen, Attack) and chosen.target == "barry"
    # From the odds alone (the heuristic the throws start from) it would take the blow.
    from tacmap.engine.play import autopilot

    monkeypatch.setattr(autopilot.Autopilot, "rolled",
                        lambda self, table, me, first, offered: first)
    alone = decide(referee.state, ruleset, "aldric", 1)
    assert isinstance(alone, Act) and alone.action == "mighty_blow"


def test_a_ruleset_can_turn_the_autopilot_s_playing_on_off(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    from tacmap.engine.play import autopilot

    thrown: list[str] = []
    real = autopilot.Autopilot.throw

    def throw(self: autopilot.Autopilot, *args: Any) -> float:
        thrown.append(self.ruleset.id)
        return real(self, *args)

    monkeypatch.setattr(autopilot.Autopilot, "throw", throw)
    for name in ("demo.tacmap", "opposed_demo.tacmap"):
        state = storage.load(DEMOS / name, registry).state
        ruleset = registry.get(state.ruleset)
        referee = started(state, ruleset)
        pilot, driver = pilot_for(referee, 1)
        for _ in range(60):
            actor = ruleset.whose_turn(referee.state)
            if actor is None:
                break
            referee.execute(next_command(pilot, driver, actor))
    # opposed's hint (README "The autopilot"): its exact odds choose alone.
    assert "action_pool" in thrown and "opposed" not in thrown
    assert hints_of(registry.get("opposed")).rollouts is False


def test_two_autopilot_sides_close_in_and_fight_it_out(registry: Registry) -> None:
    # Holding back while the enemy walks in beats the greedy policy, but two sides that
    # both hold back would stand apart all fight: the autopilot ends its turn rather
    # than attack, never rather than close in.
    from functools import partial

    from tacmap.engine.play.autopilot import ALL, main_sides
    from tacmap.engine.play.forecast import MAX_ROUNDS, fight_seed, play_fight

    state = storage.load(DEMOS / "demo.tacmap", registry).state
    ruleset = registry.get(state.ruleset)
    # action_pool's hint lets the throws hold back in the first round only.
    assert hints_of(ruleset).hold_rounds == 1
    start = mirrored(state, main_sides(state)[0])
    for k in range(6):
        fight = play_fight(start, ruleset, fight_seed(5, k), {}, MAX_ROUNDS,
                           partial(by_side, auto=ALL))
        assert fight.winner is not None and fight.rounds < 15


def test_in_opposed_it_lets_the_enemy_come_in_the_first_rounds_then_closes_in(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    # A double move ends an opposed turn beside the enemy with no strike left, and the
    # enemy strikes first: opposed's hint has the autopilot wait for three rounds.
    from functools import partial

    from tacmap.engine.play.autopilot import ALL
    from tacmap.engine.play.forecast import MAX_ROUNDS, fight_seed, play_fight
    from tacmap.engine.play.hints import Hints

    state = storage.load(DEMOS / "opposed_demo.tacmap", registry).state
    ruleset = registry.get(state.ruleset)
    assert hints_of(ruleset).wait_rounds == 3
    referee = started(mirrored(state, "Party"), ruleset)
    until_turn_of(referee, "kara")
    assert referee.state.round == 2
    assert decide(referee.state, ruleset, "kara", 3) == EndTurn()
    # Without the hint Kara walks in, as the greedy policy does.
    monkeypatch.setattr(type(ruleset), "forecast_hints",
                        lambda self: Hints(rollouts=False))
    assert isinstance(decide(referee.state, ruleset, "kara", 3), Move)
    monkeypatch.undo()
    # Two sides on autopilot stand apart three rounds at most, then fight it out.
    start = mirrored(state, "Party")
    for k in range(4):
        fight = play_fight(start, ruleset, fight_seed(5, k), {}, MAX_ROUNDS,
                           partial(by_side, auto=ALL))
        assert fight.winner is not None and fight.rounds < 15


def _reflex_kestrel_declares_last(registry: Registry, aimed_at_her: bool
                                  ) -> tuple[Referee, Ruleset]:
    """The reflex demo's Kestrel (RFX 6, the last to declare) alone among three Reavers
    who have declared: each an attack on her, or nothing."""
    state = storage.load(DEMOS / "reflex_demo.tacmap", registry).state
    ruleset = registry.get("reflex")
    for gone in ("bram", "ilsa", "wren"):
        del state.tokens[gone]
    for tid, (x, y) in {"kestrel": (4, 6), "gorm": (5, 6), "vosk": (5, 7),
                        "skulk": (4, 7)}.items():
        state.tokens[tid] = msgspec.structs.replace(state.tokens[tid], x=x, y=y)
    referee = started(state, ruleset)
    weapons = {"gorm": "axe", "vosk": "spear", "skulk": "dagger"}
    while (who := ruleset.whose_turn(referee.state)) != "kestrel":
        referee.execute(Act(who, "declare:attack", "kestrel", weapons[who]) if aimed_at_her
                        else EndTurn())
    return referee, ruleset


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_in_reflex_a_late_declarer_aimed_at_by_three_dodges_and_else_attacks(
        registry: Registry, seed: int) -> None:
    # reflex's hint: a declared dodge's VL comes off every attack on the dodger, which
    # only the enemy's declarations (seen by a later declarer) make worth more than a shot.
    referee, ruleset = _reflex_kestrel_declares_last(registry, aimed_at_her=True)
    assert decide(referee.state, ruleset, "kestrel", seed) == Act("kestrel", "declare:dodge")
    referee, ruleset = _reflex_kestrel_declares_last(registry, aimed_at_her=False)
    chosen = decide(referee.state, ruleset, "kestrel", seed)
    assert isinstance(chosen, Act) and chosen.action == "declare:attack"


def test_in_six_phase_no_two_members_declare_a_move_into_one_cell(registry: Registry) -> None:
    # Two moves declared into one cell: one is made, the other lost. The demo's party
    # used to send two members into the same cell every round.
    state = storage.load(DEMOS / "six_phase_demo.tacmap", registry).state
    ruleset = registry.get(state.ruleset)
    referee = started(mirrored(state, "Party"), ruleset)
    together = 0
    for step in range(40):
        who = ruleset.whose_turn(referee.state)
        if who is None:
            break
        referee.execute(decide(referee.state, ruleset, who, step))
        ends = [d.to for d in ruleset.declared(referee.state) if d.to is not None]
        assert len(ends) == len(set(ends)), f"step {step}: two moves declared into one cell"
        together = max(together, len(ends))
    assert together >= 2  # the party did declare moves side by side


def test_a_token_beside_its_enemy_stays_there_rather_than_move_0_m_or_step_for_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    # speed_rank's demo: Nell (a crossbow, no reach to be had) walks up beside the enemy.
    # She was then sent to her own cell ("Nell moves (9,5) → (9,5)"), and once that was
    # skipped, on to the next cell beside him, where Grob cut her down.
    assert main(["play", str(DEMOS / "speed_rank_demo.tacmap"), "--autopilot", "all",
                 "--rounds", "2"]) == 0
    printed = capsys.readouterr()[0]
    moves = [line for line in printed.splitlines() if " moves (" in line]
    assert moves
    for line in moves:
        start, end = line.split(" moves ")[1].split(" → ")
        assert end.split(",")[:2] != start.split(",")[:2], line
    assert [line.strip() for line in moves if "Nell" in line] == [
        "Nell moves (5,5) → (9,5), 20 ft"]
