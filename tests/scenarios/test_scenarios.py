"""Every scenario file under tests/scenarios/<ruleset id>/ replays to its expected events."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.play.referee import replay
from tacmap.engine.rules.ruleset import Registry
from tacmap.kit.scenarios import run

HERE = Path(__file__).parent
FILES = sorted(HERE.glob("*/*.jsonl"))


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_scenario(path: Path, registry: Registry) -> None:
    referee = run(path, registry)
    # The log the scenario built replays to the same state from its start.
    assert replay(referee.initial_state(), referee.log) == referee.state


def test_every_ruleset_has_scenarios(registry: Registry) -> None:
    folders = {p.parent.name for p in FILES}
    missing = set(registry.ids()) - folders
    assert not missing, f"rulesets without scenarios: {missing}"
