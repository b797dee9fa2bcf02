"""Fixtures for the action_pool tests: the ruleset and small encounters built in code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tacmap.engine.model.commands import StartCombat
from tacmap.engine.model.state import Encounter, MapSpec, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry, Ruleset

#: Ana: STR 3 + longsword proficiency 2 = a pool of 5; CON 2; AC 3.
ANA: dict[str, Any] = {"str": 3, "dex": 2, "con": 2, "ac": 3, "weapon": "longsword",
                       "proficiency": {"longsword": 2}}
#: Brak: STR 2 + axe proficiency 1 = a pool of 3; CON 2; AC 3.
BRAK: dict[str, Any] = {"str": 2, "dex": 1, "con": 2, "ac": 3, "weapon": "axe",
                        "proficiency": {"axe": 1}}


@pytest.fixture(scope="session")
def rules(registry: Registry) -> Ruleset:
    """The action_pool ruleset."""
    return registry.get("action_pool")


def token(tid: str, side: str, x: int, y: int, hp: int = 20, **stats: Any) -> Token:
    """A 1×1 token at full health."""
    return Token(tid, tid.capitalize(), side, x, y, hp=hp, max_hp=max(hp, 1), stats=stats)


Build = Callable[..., Referee]


@pytest.fixture
def fight(rules: Ruleset) -> Build:
    """``fight(token, token, …, start=True)``: a referee on a 12×8 map, combat started."""

    def build(*tokens: Token, start: bool = True, size: tuple[int, int] = (12, 8),
              seed: int = 1) -> Referee:
        state: Encounter = rules.new_encounter("test", seed=seed)
        state.map = MapSpec(*size)
        for t in tokens:
            rules.check_token(t)
            state.tokens[t.id] = t
        referee = Referee(state, rules)
        if start:
            referee.execute(StartCombat(tuple(t.id for t in tokens)))
        return referee

    return build
