"""The kit's worked example (rulesets/examples/example_skirmish): checked as an author would
check it, loaded only where a user adds it, and its odds card."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.model.commands import Act, Attack, EndTurn, Move, StartCombat
from tacmap.engine.model.state import Encounter, MapSpec, Token
from tacmap.engine.play.narrate import reactions
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry, builtin_folders

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "rulesets" / "examples" / "example_skirmish"


@pytest.fixture(scope="module")
def added() -> Registry:
    """The registry of a GM who added the examples folder."""
    return Registry([FOLDER.parent], warn=lambda message: None)


def duel(registry: Registry) -> Referee:
    """Ana (+5, longsword 1d8+3) beside Grul (AC 13, 9 HP); Ana's turn."""
    rules = registry.get("example_skirmish")
    state: Encounter = rules.new_encounter("duel")
    state.map = MapSpec(8, 6)
    state.tokens["ana"] = Token("ana", "Ana", "heroes", 1, 1, stats={
        "dex": 5, "atk": 5, "dmg": 3, "weapon": "longsword"})
    state.tokens["grul"] = Token("grul", "Grul", "raiders", 2, 1, hp=9, max_hp=9,
                                 stats={"ac": 13})
    referee = Referee(state, rules)
    referee.execute(StartCombat(), FixedDice([20, 1]))
    return referee


def test_the_worked_example_passes_ruleset_check(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--trust-rulesets", "ruleset", "check", str(FOLDER)])
    out = re.sub(r" \(\d+\.\d s\)$", "", capsys.readouterr().out, flags=re.M)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("shape: ok — example_skirmish (Example: d20 skirmish) 1.0")
    assert lines[1] == "scenarios: ok — 5 files, 66 steps as written"
    assert lines[2].startswith("contract: ok — 3 seeds × 20 rounds on demo.tacmap")
    assert "0 refused" in lines[2] and "the newcomer acted in 3 of 3" in lines[2]


def test_it_is_not_listed_among_the_built_in_rulesets() -> None:
    assert "example_skirmish" not in Registry(warn=lambda message: None).ids()
    assert all(FOLDER.parent != folder for folder in builtin_folders())


def test_its_python_stays_within_the_kit_target_of_250_lines() -> None:
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in FOLDER.glob("*.py"))
    assert lines <= 250


def test_the_odds_card_counts_criticals_and_fumbles(added: Registry) -> None:
    referee = duel(added)
    odds = referee.preview(Attack("ana", "grul")).odds
    assert odds is not None
    # d20 + 5 against AC 13: 8 to 19 hit, 20 always (12 faces); 1 always misses.
    assert odds.success == pytest.approx(13 / 20)
    assert dict(odds.chances)["Chance of a critical"] == pytest.approx(1 / 20)
    # 9 HP: a hit drops Grul on 6+ of 1d8 (+3); a critical on 6+ of 2d8 (54 of 64).
    assert odds.drop == pytest.approx(12 / 20 * 3 / 8 + 1 / 20 * 54 / 64)
    assert min(d for d, _ in odds.damage) == 4 and max(d for d, _ in odds.damage) == 19


def test_the_odds_card_of_an_attack_on_a_dodging_target_keeps_the_lower_die(
        added: Registry) -> None:
    referee = duel(added)
    referee.execute(Act("ana", "dodge"))
    referee.execute(EndTurn())
    odds = referee.preview(Attack("grul", "ana")).odds
    assert odds is not None
    # Grul: d20 + 3 against AC 12 hits on 9+; at disadvantage both dice must: (12/20)².
    assert odds.success == pytest.approx((12 / 20) ** 2)
    assert dict(odds.chances)["Chance of a critical"] == pytest.approx(1 / 400)
    assert any("disadvantage" in line for line in odds.lines)


def test_an_opportunity_attack_is_called_out_as_a_reaction(added: Registry) -> None:
    referee = duel(added)
    command = Move("ana", ((1, 4),))
    events = referee.execute(command, FixedDice([2]))
    said = reactions(referee.state, command, events)
    assert [(r.token, r.short) for r in said] == [("grul", "Opportunity attack!")]
    assert said[0].text == ("Grul reacts with Opportunity attack: Ana leaves its reach — "
                            "Grul misses Ana (5)")
