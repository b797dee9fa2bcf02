"""The Actions panel's button besides the engine's Move and End turn: Attack."""

from __future__ import annotations

from typing import Any, Protocol

from tacmap.api import ActionOption, Aim, Encounter, Token


class Rules(Protocol):
    """What the panel asks of the rules."""

    def weapon(self, token: Token, key: str = "weapon") -> Any: ...
    def aim(self, state: Encounter, token: Token, target: Token) -> str: ...
    def enemies(self, state: Encounter, token: Token) -> list[Token]: ...
    def option(self, state: Encounter, key: str, label: str, target: Aim = "none",
               why_not: str = "", cost: int = 1) -> ActionOption: ...


def options(rules: Rules, state: Encounter, token: Token) -> list[ActionOption]:
    """Attack with the weapon in hand, greyed with the reason when no enemy can be hit."""
    problems = [rules.aim(state, token, t) for t in rules.enemies(state, token)]
    why = "" if "" in problems else problems[0] if problems else "no enemy is left"
    return [rules.option(state, "attack", f"Attack ({rules.weapon(token).name})", "token", why)]
