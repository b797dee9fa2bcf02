"""How the log and the Last result word opposed's attacks (issue 36 item 18): as the GM
chose them, a sentence, not the action's key."""

from __future__ import annotations

from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.model.commands import Act
from tacmap.engine.play.narrate import sentence
from tacmap.engine.rules.ruleset import Registry

DEMO = Path(__file__).resolve().parents[3] / "resources" / "opposed_demo.tacmap"


def test_an_attack_with_a_critical_choice_reads_as_an_attack(registry: Registry) -> None:
    state = storage.load(DEMO, registry).state
    assert sentence(state, Act("grell", "strike", "kara", "next-tier dice (2d8)")) == \
        "Grell attacks Kara (a critical rolls next-tier dice (2d8))"
    # A flourish is named by its name; with no critical choice, no bracket.
    assert sentence(state, Act("grell", "flourish:power_strike", "kara")) == \
        "Grell attacks Kara with Power strike"
    # Another ruleset's Act of the same key keeps the generic sentence.
    state.ruleset = "reflex"
    assert sentence(state, Act("grell", "strike", "kara", "x")) == "Grell uses strike on Kara: x"
