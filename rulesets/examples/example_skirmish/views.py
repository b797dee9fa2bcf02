"""The Actions panel's buttons besides the engine's Move and End turn."""

from __future__ import annotations

from typing import Any

from tacmap.api import ActionOption, Encounter, Token, TurnRuleset


def options(rules: TurnRuleset[Any], state: Encounter, token: Token) -> list[ActionOption]:
    """Attack (greyed when no enemy is within reach), Dash, Dodge and Disengage."""
    near = any(rules.in_reach(state, token, t) for t in rules.enemies(state, token))
    return [rules.option(state, "attack", "Attack", "token",
                         "" if near else "no enemy within reach"),
            rules.option(state, "dash", "Dash"),
            rules.option(state, "dodge", "Dodge"),
            rules.option(state, "disengage", "Disengage")]
