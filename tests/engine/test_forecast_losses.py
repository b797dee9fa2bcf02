"""Issue 39 item 1: a forecast tells losses, not only winners: how many of each side end
the fight out, the HP each side loses, and a side that flees (a retreat) rather than
fights to the last."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.play.forecast import forecast
from tacmap.engine.play.retreat import Retreat
from tacmap.engine.rules.ruleset import Registry

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo.tacmap"


def test_losses_per_side_add_up_and_agree_with_each_combatants_drops(
        registry: Registry) -> None:
    state = storage.load(DEMO, registry).state
    result = forecast(state, registry.get(state.ruleset), 40, seed=3)
    for side in result.sides:
        losses = result.losses(side)
        members = [k for k, s in enumerate(result.token_sides) if s == side]
        assert list(losses) == list(range(len(members) + 1))
        assert sum(losses.values()) == pytest.approx(1.0)
        # The mean number down is the sum of each member's chance to drop.
        mean = sum(k * p for k, p in losses.items())
        assert mean == pytest.approx(sum(result.drop(k) for k in members))
        spent, of = result.hp_spent(side)
        assert of == sum(result.start_hp[k] for k in members)
        assert spent == pytest.approx(of - sum(result.mean_hp(k) for k in members))
        assert 0 < spent <= of


def test_a_side_that_flees_at_half_ends_the_fight_as_a_retreat(registry: Registry) -> None:
    state = storage.load(DEMO, registry).state
    rules = registry.get(state.ruleset)
    plain = forecast(state, rules, 40, seed=3)
    fleeing = forecast(state, rules, 40, seed=3, retreat=Retreat("bandits"))
    p, lo, hi = fleeing.retreat_chance("bandits")
    assert p > 0.5 and lo <= p <= hi
    assert fleeing.fights == 40
    total = sum(fleeing.win(s)[0] for s in fleeing.sides) + p + fleeing.undecided_chance()[0]
    assert total == pytest.approx(1.0)
    # They leave with half or more down, never all: no fled fight is a wipe-out.
    assert fleeing.losses("bandits")[4] < plain.losses("bandits")[4]
    # After round 1 they flee at once: no fight of theirs lasts into round 2.
    early = forecast(state, rules, 20, seed=3, retreat=Retreat("bandits", after=1))
    assert max(early.rounds) <= 2 and early.retreat_chance("bandits")[0] > 0.5


def test_the_command_line_prints_losses_and_a_retreat(
        capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DEMO)
    assert main(["forecast", path, "--fights", "20", "--jobs", "1", "--retreat",
                 "bandits=half"]) == 0
    out = capsys.readouterr().out
    assert "bandits flee when half are down: 20 fights" in out
    assert "  bandits flee " in out and "Losses (combatants out at the end of the fight):" in out
    assert "HP lost" in out
    assert main(["forecast", path, "--fights", "20", "--jobs", "1", "--json", "--retreat",
                 "bandits=2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["losses"]) == {"heroes", "bandits"}
    assert sum(data["losses"]["heroes"].values()) == pytest.approx(1.0)
    assert data["hp_spent"]["heroes"]["of"] == 68
    assert "bandits" in data["retreats"]


@pytest.mark.parametrize(("given", "said"), [
    ("orcs=half", "--retreat names no side of this encounter: 'orcs' (its sides: heroes, "
                  "bandits)"),
    ("bandits=soon", "--retreat bandits=WHEN takes half or a round from 1 to 1,000, not "
                     "'soon'"),
    ("bandits=0", "not '0'"),
])
def test_a_bad_retreat_is_one_sentence(capsys: pytest.CaptureFixture[str], given: str,
                                       said: str) -> None:
    assert main(["forecast", str(DEMO), "--fights", "5", "--retreat", given]) == 2
    assert said in capsys.readouterr().err
