"""What the panels show besides the engine's turn order, Move and End turn: Attack."""

from __future__ import annotations

from typing import Any

from tacmap.api import ActionOption, Encounter, Token, TurnRuleset


def options(rules: TurnRuleset[Any], state: Encounter, token: Token) -> list[ActionOption]:
    """Attack, greyed with the reason when no enemy is within reach."""
    near = any(rules.in_reach(state, token, t) for t in rules.enemies(state, token))
    return [rules.option(state, "attack", "Attack", "token",
                         "" if near else "no enemy within reach")]
