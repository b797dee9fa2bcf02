"""The demo encounter: it loads, and two scripted rounds print the same readable story twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.model.events import DiceRolled
from tacmap.engine.rules.ruleset import Registry, Ruleset
from tacmap.engine.rules.views import Preview

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "resources" / "demo.tacmap"
SCRIPT = ROOT / "resources" / "demo-two-rounds.jsonl"


def play(capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code = main(["play", str(DEMO), "--script", str(SCRIPT), "--seed", "7", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_tacmap_check_accepts_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(DEMO)]) == 0
    assert "ruleset action_pool" in capsys.readouterr().out


def test_the_demo_has_named_tokens_on_both_sides(registry: Registry) -> None:
    loaded = storage.load(DEMO, registry)
    state = loaded.state
    sides: dict[str, list[str]] = {}
    for t in state.tokens.values():
        sides.setdefault(t.side, []).append(t.name)
        assert {"weapon", "proficiency", "con", "ac"} <= set(t.stats), t.name
    assert sorted(len(names) for names in sides.values()) == [3, 4]
    assert (state.map.width, state.map.height) == (30, 20)
    assert len(state.map.walls) >= 3
    assert loaded.log == [] and state.schedule is None


def test_two_rounds_print_the_same_readable_lines_twice(
        capsys: pytest.CaptureFixture[str]) -> None:
    first = play(capsys)
    second = play(capsys)
    assert first == second
    lines = first.splitlines()
    # Who rolled which faces, which dice left the pool, damage, the refill.
    assert any(" rolls 6d6 [" in line and "for attack on Pip" in line for line in lines)
    assert any("failures leave the pool" in line for line in lines)
    assert any(" takes " in line and " damage (" in line for line in lines)
    assert any("end of turn: CON 2 dice come back" in line for line in lines)
    # "they also replenish their pool at that point": Mott's Opportunist refills at once.
    assert "  Mott pool: 1 → 3 (reaction roll: CON 2 dice come back)" in lines
    assert any("prepared action fires" in line for line in lines)
    # Two full rounds: the script ends as the third begins.
    assert "  round 2 begins" in lines
    assert lines[-2:] == ["  round 3 begins", "  Ser Aldric's turn (round 3)"]


def test_the_played_demo_saves_and_checks(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path, registry: Registry) -> None:
    out = tmp_path / "after.tacmap"
    play(capsys, "--out", str(out))
    loaded = storage.load(out, registry)
    commands = [line for line in SCRIPT.read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    assert len(loaded.log) == len(commands)
    assert loaded.state.round == 3
    assert main(["check", str(out)]) == 0


def test_bench_figures_time_real_work(rules: Ruleset) -> None:
    figures = rules.bench()  # type: ignore[attr-defined]
    assert [(name, budget) for name, _, budget in figures] == [
        ("execute one attack, command to events", 5.0),
        ("exact odds for one attack preview", 20.0),
    ]
    (_, attack, _), (_, odds, _) = figures
    # Timing is judged by `tacmap bench`, not here; this proves each run does the real work.
    for _ in range(5):
        events = attack()
        assert any(isinstance(e, DiceRolled) for e in events)
        preview = odds()
        assert isinstance(preview, Preview) and preview.legal and preview.odds is not None
