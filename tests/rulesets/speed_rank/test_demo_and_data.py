"""The three-side demo (issue 4's "Show"), and the numbers in ruleset.toml."""

from __future__ import annotations

import copy
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import get_args

import pytest

from tacmap.cli import main
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Token
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.schedule import PHASE_NAMES, SPEED_PHASES
from tests.rulesets.speed_rank.helpers import rules_of

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "resources" / "speed_rank_demo.tacmap"
SCRIPT = ROOT / "resources" / "speed_rank_demo-three-rounds.jsonl"
PHASE = re.compile(r"phase (S|-?\d|F) \(")


def play(capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["play", str(DEMO), "--script", str(SCRIPT), "--seed", "3"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out


def test_the_demo_plays_three_rounds_the_same_way_twice(
        capsys: pytest.CaptureFixture[str]) -> None:
    first = play(capsys)
    assert play(capsys) == first
    # The initiative rolls of all three sides, every round.
    for side in ("Red Company", "Blue Company", "Adventurers"):
        assert first.count(f"for initiative for {side}\n") == 3
    assert re.findall(r"^  (round \d) begins$", first, re.M) == ["round 1", "round 2", "round 3"]
    assert "round 3 initiative:" in first and "2 Combat Events" in first
    assert first.count("Combat Event: ") == 2
    # Every action in phase order: within each round the phases never go back.
    for text in first.split("round ")[1:]:
        phases = [SPEED_PHASES.index(m) for m in PHASE.findall(text)]
        assert phases == sorted(phases)
    assert "Mira's Fireball takes effect" in first
    assert "phase 3 (Very Slow): Grob attacks Captain Varga with the greatsword" in first


def test_the_demo_file_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(DEMO)]) == 0
    out = capsys.readouterr().out
    # 30×20 five-foot squares.
    assert "ruleset speed_rank" in out and "9 tokens" in out and "150×100 ft" in out


def test_the_data_follows_the_seed(registry: Registry) -> None:
    rules = rules_of(registry)
    data = rules.manifest.data
    assert tuple(data["phases"]["order"]) == SPEED_PHASES
    assert tuple(zip(SPEED_PHASES, data["phases"]["names"], strict=True)) == PHASE_NAMES
    assert data["initiative"]["die"] == 10 and rules.manifest.diagonal == "alternating"
    assert rules.races["human"] == 0
    assert (rules.speed_modifier(18), rules.speed_modifier(10), rules.speed_modifier(5)) \
        == (1, 0, -1)
    human = Token("h", "H", "S", 0, 0, stats={"dex": 18})
    assert rules.base_speed(human) == -1


def test_a_broken_table_is_refused_when_loading(registry: Registry) -> None:
    rules = rules_of(registry)
    data = copy.deepcopy(rules.manifest.data)
    data["combat_events"]["table"][2]["to"] = 6  # 5 Battlefield Shifts now overlaps 6
    with pytest.raises(InputError, match=r"combat_events\.table: must cover 1 to 20 once"):
        type(rules)(replace(rules.manifest, data=data))
    data = copy.deepcopy(rules.manifest.data)
    data["phases"]["order"] = ["S", "F"]
    with pytest.raises(InputError, match=r"phases\.order: must be"):
        type(rules)(replace(rules.manifest, data=data))


def test_every_combat_event_the_data_may_name_has_a_rule(registry: Registry) -> None:
    package = type(rules_of(registry)).__module__.rpartition(".")[0]
    data, table = sys.modules[f"{package}.data"], sys.modules[f"{package}.events_table"]
    assert set(table.HANDLERS) == set(get_args(data.EventKey))


def test_measure_counts_feet_on_five_foot_squares(capsys: pytest.CaptureFixture[str]) -> None:
    # [grid] unit = "ft", cell_size = 5: "moved 5 feet" is one square; diagonals 5, 10, 5 ft.
    assert main(["measure", "--ruleset", "speed_rank", "0,0", "6,0"]) == 0
    assert main(["measure", "--ruleset", "speed_rank", "0,0", "3,3"]) == 0
    assert main(["measure", "--ruleset", "action_pool", "0,0", "6,0"]) == 0
    assert capsys.readouterr().out == "30 ft\n20 ft\n6 m\n"
