"""The forecast (issue 28): fights played out under the encounter's own rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine import storage
from tacmap.engine.forecast import (
    BATCH,
    MAX_ROUNDS,
    fight_seed,
    forecast,
    out_of_fight,
    wilson,
)
from tacmap.engine.ruleset import Registry
from tacmap.engine.state import Encounter, Token
from tests.engine.forecast_exact import Side, duel, odds_of, summed, win_chance

DEMOS = Path(__file__).resolve().parents[2] / "resources"
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
            t.hp = 0
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
    p = result.wins[state.tokens[first].side]
    lo, hi = wilson(p, fights, Z999)
    assert lo <= exact <= hi, (p / fights, exact, lo, hi)


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

