"""The every-action contract, headless: the same driver ``tacmap ruleset check`` runs.

Each built-in ruleset's demo is played through the referee for 20 rounds, every
offered option in turn, with a combatant added mid-combat, under two seeds past
the three ``tacmap ruleset check`` plays by default (tests/kit); the window-driven
test (test_contract.py) walks the window's own code path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.play.autoplay import contract
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
DEMOS = {records.parse(p.read_bytes())["ruleset"]["id"]: p
         for p in sorted(RESOURCES.glob("*.tacmap"), reverse=True)}


@pytest.mark.parametrize("ruleset_id", sorted(DEMOS))
@pytest.mark.parametrize("seed", [3, 4])
def test_every_offered_option_is_taken_without_a_refusal(
        registry: Registry, ruleset_id: str, seed: int) -> None:
    loaded = storage.load(DEMOS[ruleset_id], registry)
    referee = Referee(loaded.state, registry.get(ruleset_id), loaded.log)
    tally = contract(referee, seed, rounds=20)
    assert tally.problems == []
    assert tally.refusals == 0 and tally.rounds == 20
    assert tally.tried > 0 and tally.executed > tally.ended
