"""speed_rank's demo played as a GM would, rounds 1–3, under both readings of idle_phase
(issue 36 item 4): End turn is pressed fewer times when phases pass by themselves.

"In each phase, the side with the highest Initiative goes first, followed by the lower
Initiatives until each side that can act in a phase has acted."
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tacmap.cli import main

DEMO = Path(__file__).parents[3] / "resources" / "speed_rank_demo.tacmap"


def presses(tmp_path: Path, value: str) -> tuple[Counter[int], Counter[int], str]:
    """Every side on the autopilot for three rounds under ``idle_phase = value``: End
    turns by round, those ending a turn in which nothing was done, and the log text."""
    start = tmp_path / f"{value}.tacmap"
    out = tmp_path / f"{value}-out.tacmap"
    if value == "pass":  # the demo's own reading, the default
        start.write_bytes(DEMO.read_bytes())
    else:
        assert main(["rules", str(DEMO), "--set", f"idle_phase={value}",
                     "--out", str(start)]) == 0
    assert main(["play", str(start), "--autopilot", "all", "--rounds", "3",
                 "--out", str(out)]) == 0
    log = json.loads(out.read_text("utf-8"))["log"]
    ends: Counter[int] = Counter()
    idle: Counter[int] = Counter()
    round_, acted, said = 0, False, []
    for entry in log:
        kind = entry["command"]["type"]
        if kind == "end_turn":
            ends[round_] += 1
            idle[round_] += not acted
            acted = False
        elif kind not in ("set_house_rule", "start_combat"):
            acted = True
        for event in entry["events"]:
            if event["type"] == "round_changed":
                round_ = event["new"]
            elif event["type"] == "said":
                said.append(event["message"])
    return ends, idle, "\n".join(said)


def test_the_demo_asks_for_fewer_end_turns_when_idle_phases_pass(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    passing, passing_idle, log = presses(tmp_path, "pass")
    holding, holding_idle, _ = presses(tmp_path, "hold")
    capsys.readouterr()
    for round_ in (1, 2, 3):
        # The same GM (the autopilot, seeded) presses End turn less often in every round,
        # and far less often for a side with nothing done in its turn.
        assert passing[round_] < holding[round_]
        assert passing_idle[round_] < holding_idle[round_]
    assert "nothing to do for" in log
