"""The kit's second example (rulesets/examples/example_saves), written from `tacmap ruleset
new` with tacmap.api's helpers: it passes its check, its odds card is exact, and a
combatant at 0 HP still fights (the forecast counts the ruleset's own `out_of_fight`)."""

from __future__ import annotations

import json
import re
from itertools import product
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.model.commands import Attack, StartCombat
from tacmap.engine.model.state import Encounter, MapSpec, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "rulesets" / "examples" / "example_saves"


@pytest.fixture(scope="module")
def added() -> Registry:
    """The registry of a GM who added the examples folder."""
    return Registry([FOLDER.parent], warn=lambda message: None)


def duel(registry: Registry, hp: int, strength: int, armour: int) -> Referee:
    """Ana (sword d8, dagger d6 in the off hand) beside Grul; Ana's turn."""
    rules = registry.get("example_saves")
    state: Encounter = rules.new_encounter("duel")
    state.map = MapSpec(8, 6)
    state.tokens["ana"] = Token("ana", "Ana", "heroes", 1, 1, stats={
        "dex": 18, "weapon": "sword", "offhand": "dagger"})
    state.tokens["grul"] = Token("grul", "Grul", "raiders", 2, 1, hp=hp, max_hp=max(hp, 1),
                                 stats={"str": strength, "dex": 1, "armour": armour})
    referee = Referee(state, rules)
    referee.execute(StartCombat(), FixedDice([20, 1]))
    return referee


def test_the_example_passes_ruleset_check(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--trust-rulesets", "ruleset", "check", str(FOLDER)])
    out = re.sub(r" \(\d+\.\d s\)$", "", capsys.readouterr().out, flags=re.M)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("shape: ok — example_saves (Example: roll-under saves) 1.0")
    assert lines[1] == "scenarios: ok — 3 files, 26 steps as written"
    assert lines[2].startswith("contract: ok — 3 seeds × 20 rounds on demo.tacmap")


@pytest.mark.parametrize(("hp", "strength", "armour"), [(3, 8, 1), (0, 5, 0), (6, 12, 2)])
def test_the_odds_card_is_the_count_of_every_throw(added: Registry, hp: int, strength: int,
                                                    armour: int) -> None:
    referee = duel(added, hp, strength, armour)
    odds = referee.preview(Attack("ana", "grul")).odds
    assert odds is not None and odds.success == 1.0  # every attack hits
    drop = 0.0
    damage: dict[int, float] = {}
    for d8, d6, save in product(range(1, 9), range(1, 7), range(1, 21)):
        p = 1 / (8 * 6 * 20)
        dealt = max(0, max(d8, d6) - armour)
        damage[dealt] = damage.get(dealt, 0) + p
        left = strength - (dealt - hp) if dealt > hp else strength
        if dealt > hp and (left <= 0 or save > left):
            drop += p
    assert odds.drop == pytest.approx(drop)
    assert dict(odds.damage) == pytest.approx(damage)


def test_a_combatant_at_0_hp_fights_on_and_a_failed_save_takes_it_out(added: Registry) -> None:
    referee = duel(added, 1, 10, 0)
    # d8 3, d6 1: 3 damage, 2 past 1 HP: STR 10 - 2 = 8; the save rolls 8: it holds.
    referee.execute(Attack("ana", "grul"), FixedDice([3, 1, 8]))
    grul = referee.state.tokens["grul"]
    assert grul.hp == 0 and not referee.ruleset.out_of_fight(grul)
    assert referee.ruleset.stat(grul, "str") == 8


def test_its_demo_forecast_has_no_corner_stand_offs(capsys: pytest.CaptureFixture[str]) -> None:
    # Reach counts a corner as 2 m here: the forecast's tokens step round to a side of their
    # enemy rather than stand at its corner for 30 rounds (a fifth of the fights did).
    assert main(["--rulesets-dir", str(FOLDER.parent), "--trust-rulesets", "forecast",
                 str(FOLDER / "demo.tacmap"), "--fights", "100", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["undecided"]["chance"] < 0.05, result["undecided"]
