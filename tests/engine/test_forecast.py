"""The forecast (issue 28): fights played out under the encounter's own rules."""

from __future__ import annotations

import io
import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import msgspec
import pytest

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.model.state import Encounter, Token, Wall
from tacmap.engine.play.forecast import (
    BATCH,
    MAX_ROUNDS,
    Forecast,
    _at_grips,
    _ring,
    fight_pool,
    fight_seed,
    forecast,
    hints_of,
    out_of_fight,
    wilson,
    worth,
)
from tacmap.engine.play.hints import Hints
from tacmap.engine.rules.options import acting_token
from tacmap.engine.rules.ruleset import Registry
from tacmap.forecast_cli import Bar
from tests.engine.forecast_exact import Side, duel, odds_of, summed, win_chance

DEMOS = Path(__file__).resolve().parents[2] / "resources"
RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
#: z of a two-sided 99.9% interval.
Z999 = 3.2905


def load(registry: Registry, name: str) -> Encounter:
    return storage.load(DEMOS / name, registry).state


def test_a_token_is_out_when_dead_at_zero_hp_or_down() -> None:
    def token(hp: int = 5, *conditions: str) -> Token:
        return Token("a", "A", "x", 0, 0, hp=hp, conditions=conditions)

    assert not out_of_fight(token())
    assert not out_of_fight(token(5, "prone", "stunned"))
    assert out_of_fight(token(0))
    assert out_of_fight(token(5, "dead"))
    assert out_of_fight(token(5, "unconscious"))
    assert out_of_fight(token(5, "asleep"))


def test_the_forecast_counts_as_down_what_the_rulesets_out_of_fight_says(
        registry: Registry) -> None:
    # six_phase: at 0 HP a character takes a Wound and fights on; out only when marked dead.
    hints = hints_of(registry.get("six_phase"))
    assert not hints.out(Token("a", "A", "x", 0, 0, hp=0))
    assert hints.out(Token("a", "A", "x", 0, 0, hp=3, conditions=("dead",)))
    # Hints saying more: a condition of the ruleset's own takes the token out too.
    more = replace(hints, down=frozenset({"routed"}))
    assert more.out(Token("a", "A", "x", 0, 0, hp=3, conditions=("routed",)))
    # No out_of_fight given (a bare Hints): 0 HP is down, as before.
    assert Hints().out(Token("a", "A", "x", 0, 0, hp=0))


def test_wilson_interval_holds_the_chance_and_stays_in_0_1() -> None:
    lo, hi = wilson(50, 100)
    assert lo < 0.5 < hi
    assert hi - lo == pytest.approx(0.19, abs=0.01)
    assert wilson(0, 40)[0] == 0.0 and wilson(40, 40)[1] == 1.0


def test_fight_seeds_differ_by_fight_and_by_seed() -> None:
    seeds = {fight_seed(s, i) for s in (1, 2) for i in range(100)}
    assert len(seeds) == 200


def test_every_demo_is_played_to_an_end_with_chances_that_add_up(registry: Registry) -> None:
    for name in ("demo.tacmap", "opposed_demo.tacmap", "reflex_demo.tacmap",
                 "six_phase_demo.tacmap", "speed_rank_demo.tacmap"):
        state = load(registry, name)
        before = storage.encode(state, [])
        result = forecast(state, registry.get(state.ruleset), 10, seed=4)
        assert storage.encode(state, []) == before, "the encounter itself is untouched"
        assert result.fights == 10
        total = sum(result.win(s)[0] for s in result.sides) + result.undecided_chance()[0]
        assert total == pytest.approx(1.0)
        assert sum(result.wins.values()) > 0, f"{name}: no fight was won"
        assert any(result.drop(k) > 0 for k in range(len(result.ids))), name
        assert sum(result.rounds.values()) == 10


def test_the_same_seed_gives_the_same_forecast_whatever_the_workers(registry: Registry
                                                                    ) -> None:
    state = load(registry, "demo.tacmap")
    ruleset = registry.get(state.ruleset)
    fights = 2 * BATCH + 3  # a short last batch too
    alone = forecast(state, ruleset, fights, seed=9)
    shared = forecast(state, ruleset, fights, seed=9, jobs=2)
    assert alone.to_json() == shared.to_json()
    with fight_pool(2) as workers:  # one pool kept for many forecasts, as a balance does
        kept = [forecast(state, ruleset, fights, seed=9, workers=workers) for _ in range(2)]
    assert [k.to_json() for k in kept] == [alone.to_json()] * 2
    other = forecast(state, ruleset, fights, seed=10)
    assert other.to_json() != alone.to_json()


def test_progress_is_told_and_cancel_stops_early(registry: Registry) -> None:
    state = load(registry, "demo.tacmap")
    seen: list[int] = []
    result = forecast(state, registry.get(state.ruleset), 4 * BATCH, seed=1,
                      progress=lambda r: seen.append(r.fights),
                      cancelled=lambda: len(seen) >= BATCH + 2)
    assert seen == list(range(1, BATCH + 3))
    assert result.fights == BATCH + 2


def test_a_fight_already_won_ends_at_once(registry: Registry) -> None:
    state = load(registry, "demo.tacmap")
    for t in state.tokens.values():
        if t.side == "bandits":
            # Out as the ruleset says: 0 HP and marked dead.
            t.hp, t.conditions = 0, (*t.conditions, "dead")
    result = forecast(state, registry.get(state.ruleset), 10, seed=1)
    assert result.win("heroes")[0] == 1.0
    assert result.rounds == {0: 10}
    fallen, chance = result.likely_fallen()
    assert chance == 1.0 and set(fallen) == {"barry", "grell", "pip", "mott"}


@pytest.mark.slow
def test_opposed_duel_agrees_with_the_exact_chain_over_hp(registry: Registry) -> None:
    """opposed: one attack a turn, odds fixed by the stat blocks: the chain is exact."""
    state = load(registry, "opposed_demo.tacmap")
    ruleset = registry.get(state.ruleset)
    state, first, second = duel(state, ruleset, "kara", "brak")
    mine = odds_of(state, ruleset, first, second)
    theirs = odds_of(state, ruleset, second, first, turns_first=1)
    assert all(summed(o.damage) == pytest.approx(1.0) for o in (*mine, *theirs))
    exact = win_chance(Side(state.tokens[first].hp, mine),
                       Side(state.tokens[second].hp, theirs), MAX_ROUNDS)
    fights = 600
    result = forecast(state, ruleset, fights, seed=3)
    agrees(result.wins[state.tokens[first].side], fights, exact)


def agrees(result_wins: int, fights: int, exact: float) -> None:
    """The simulated win chance's 99.9% interval holds the exact one."""
    lo, hi = wilson(result_wins, fights, Z999)
    assert lo <= exact <= hi, (result_wins / fights, exact, lo, hi)


@pytest.mark.slow
def test_action_pool_duel_agrees_with_the_exact_chain_over_hp(registry: Registry,
                                                              tmp_path: Path) -> None:
    """action_pool with one action a turn and CON that refills the pool every turn: each
    attack is then thrown with the whole pool, so the odds card's odds are fixed and the
    chain over HP is exact (with two actions the second attack's pool depends on the
    first's failures, which the odds card does not give)."""
    folder = tmp_path / "action_pool_one"
    shutil.copytree(RULESETS / "action_pool", folder)
    toml = (folder / "ruleset.toml").read_text(encoding="utf-8")
    toml = toml.replace('id = "action_pool"', 'id = "action_pool_one"', 1)
    toml = re.sub(r"(?m)^actions = 2$", "actions = 1", toml)
    (folder / "ruleset.toml").write_text(toml, encoding="utf-8")
    one = Registry([folder], warn=lambda message: None)
    ruleset = one.get("action_pool_one")
    state = load(registry, "demo.tacmap")
    state.ruleset = "action_pool_one"
    for tid, con in (("aldric", 6), ("barry", 4)):  # CON = STR + proficiency: a full pool
        state.tokens[tid].stats["abilities"] = ()
        state.tokens[tid].stats["con"] = con
    state.tokens["aldric"].hp = 12  # an even fight tests more than a foregone one
    state, first, second = duel(state, ruleset, "aldric", "barry")
    mine = odds_of(state, ruleset, first, second)
    theirs = odds_of(state, ruleset, second, first, turns_first=1)
    exact = win_chance(Side(state.tokens[first].hp, mine),
                       Side(state.tokens[second].hp, theirs), MAX_ROUNDS)
    assert 0.3 < exact < 0.9
    fights = 1000
    result = forecast(state, ruleset, fights, seed=3)
    agrees(result.wins[state.tokens[first].side], fights, exact)


@pytest.mark.parametrize(("demo", "attacker", "target", "hp"), [
    ("reflex_demo.tacmap", "bram", "gorm", 8),
    ("speed_rank_demo.tacmap", "hask", "varga", 8),
    ("opposed_demo.tacmap", "kara", "brak", 8),
])
def test_the_first_round_drops_as_often_as_the_odds_card_says(
        registry: Registry, demo: str, attacker: str, target: str, hp: int) -> None:
    """Where the turn structure makes a chain over HP awkward (reflex: injuries strike
    dice from the later attacker's kept pool; six_phase: phases and wounds; speed_rank:
    initiative rolled each round), the first round still is exact: the attacker, acting
    first and too tough to drop, wins within one round exactly when its attack drops the
    target, which the odds card gives as the chance to drop. Not six_phase: at 0 HP its
    combatants take a Wound and fight on, so a drop on the odds card ends no fight."""
    state = load(registry, demo)
    ruleset = registry.get(state.ruleset)
    state, first, _ = duel(state, ruleset, attacker, target)
    state.tokens[attacker].hp = state.tokens[attacker].max_hp = 500
    state.tokens[target].hp = hp
    turns_first = 0 if first == attacker else 1
    if ruleset.id == "reflex":  # declared lowest RFX first, but acts first: no turn to end
        turns_first = 0
    options = odds_of(state, ruleset, attacker, target, turns_first)
    exact = max(options, key=lambda o: worth(o, hp)).drop
    assert 0.05 < exact < 0.95
    fights = 800
    result = forecast(state, ruleset, fights, seed=5, max_rounds=1)
    agrees(result.wins[state.tokens[attacker].side], fights, exact)


def test_forecast_prints_a_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DEMOS / "demo.tacmap")
    assert main(["forecast", path, "--fights", "20", "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    assert "heroes" in out and "bandits" in out and "undecided" in out
    assert "Most likely fallen:" in out and "Ser Aldric" in out
    assert err == "", "no progress bar when stderr is not a terminal"
    assert main(["forecast", path, "--fights", "20", "--jobs", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr()[0])
    assert data["fights"] == 20
    assert set(data["sides"]) == {"heroes", "bandits"}
    assert len(data["combatants"]) == 7


def test_forecast_refuses_bad_numbers_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["forecast", str(DEMOS / "demo.tacmap"), "--fights", "0"]) == 2
    assert "--fights" in capsys.readouterr()[1]



def test_the_progress_bar_redraws_in_place_and_clears_its_line() -> None:
    out = io.StringIO()
    bar = Bar(out, 200)
    partial = Forecast.empty(Encounter(ruleset="x"))
    partial.fights = 50
    bar.update(partial)
    assert out.getvalue() == "\r[" + "#" * 8 + "." * 22 + "] 50/200 fights"
    bar.close()
    assert out.getvalue().endswith("\r" + " " * 60 + "\r")


def test_speed_rank_tells_the_policy_to_break_free_when_nothing_is_in_reach(
        registry: Registry) -> None:
    assert hints_of(registry.get("speed_rank")).prefer == ("break_free", "pick_up")
    assert hints_of(registry.get("opposed")).prefer == ()


def test_the_acting_token_a_fight_asks_for_is_the_turn_orders_every_step(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    """speed_rank answers ``whose_turn`` without writing its turn order's rows (speed): at
    every step of a played fight it names the token the Actions panel would offer."""
    state = load(registry, "speed_rank_demo.tacmap")
    ruleset = registry.get(state.ruleset)
    fast = type(ruleset).whose_turn
    checked: list[str | None] = []

    def acting(self: object, now: Encounter) -> str | None:
        named = fast(ruleset, now)
        assert named == acting_token(now, ruleset.turn_order(now)), now.schedule
        checked.append(named)
        return named

    monkeypatch.setattr(type(ruleset), "whose_turn", acting)
    forecast(state, ruleset, 3, seed=2)
    assert len(checked) > 100 and len(set(checked)) > 4


def test_two_foes_across_a_wall_corner_step_round_it_and_fight(registry: Registry) -> None:
    # Seen in the mirror bench: two combatants diagonal across the corner of two walls took
    # each other for "at grips" (next to and within reach), so neither walked, and neither
    # could strike across the wall: they ended their turns for 30 rounds.
    state = load(registry, "demo.tacmap")
    ruleset = registry.get(state.ruleset)
    keep = {"aldric": (5, 5), "barry": (6, 4)}
    state.tokens = {i: msgspec.structs.replace(t, x=keep[i][0], y=keep[i][1])
                    for i, t in state.tokens.items() if i in keep}
    state.map.walls = (Wall(((6, 5), (6, 9))), Wall(((2, 5), (6, 5))))
    aldric, barry = state.tokens["aldric"], state.tokens["barry"]
    assert not _at_grips(state, ruleset, aldric, barry)
    assert (5, 4) in _ring(state, aldric, barry, ruleset)  # beside Barry, past the wall
    result = forecast(state, ruleset, 6, seed=2)
    assert result.undecided == 0 and sum(result.wins.values()) == 6
