"""What a ruleset tells the forecast (``Hints``), and the conditions that take a token out
of a forecast fight in every ruleset (``DOWN``).

Apart from the forecast itself so that a ruleset, which names ``Hints`` through
``tacmap.api``, does not load the forecast's worker pool and policy as it loads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tacmap.engine.model.state import Token

#: Conditions that take a token out of the fight in every ruleset that uses them: the
#: turn order still lists an unconscious or sleeping combatant, but it fights no more.
DOWN = frozenset({"dead", "unconscious", "incapacitated", "asleep", "dying", "helpless",
                  "stable", "down", "out"})


@dataclass
class Hints:
    """What a ruleset tells the forecast's policy where a generic choice is poor.

    A ruleset offers them as ``forecast_hints()`` (each one explained in its README).
    """

    avoid: frozenset[str] = frozenset()
    """Option keys the policy never takes (a GM-only switch, a free shout)."""
    down: frozenset[str] = frozenset()
    """More conditions that take a token out of the fight in this ruleset."""
    prefer: tuple[str, ...] = ()
    """Option keys, best first, taken when nothing can be attacked and no move helps
    (a declaration that still does something, a defence)."""
    rollouts: bool = True
    """Whether the autopilot weighs its best plans by playing on from each (the manual's "The
    autopilot"); off where its exact odds already choose as well."""
    wait_rounds: int = 0
    """Rounds from the start of combat in which the autopilot stands and lets the enemy
    come rather than walk to where it can strike nobody this turn (where a first strike
    decides fights); from the round after, it walks in."""
    hold_rounds: int = 0
    """Rounds from the start of combat in which the autopilot's throws weigh ending the
    turn against walking in (elsewhere only against an attack), so that it may wait for
    an enemy that walks in; from the round after, it never holds back to wait."""
    weigh: tuple[str, ...] = ()
    """Option keys aimed at nobody (a declared defence) that the autopilot weighs by playing
    on from each, beside its best attacks: whether a defence beats an attack shows only in
    what the enemy does next, which the odds card does not tell."""
    ruleset_out: Callable[[Token], bool] | None = None
    """The ruleset's own ``out_of_fight`` (set by ``hints_of``)."""
    all_down: frozenset[str] = field(init=False, repr=False, default=frozenset())
    """``DOWN`` and ``down`` together (an out-of-fight check runs many times a step)."""

    def out(self, token: Token) -> bool:
        """Out of the fight: the ruleset's ``out_of_fight`` says so, or a ``DOWN`` or ``down``
        condition; 0 HP only when the ruleset gives no ``out_of_fight`` (in some games a
        combatant at 0 HP fights on)."""
        if token.conditions and not self.all_down.isdisjoint(token.conditions):
            return True
        if self.ruleset_out is None:
            return token.hp <= 0
        return self.ruleset_out(token)

    def __post_init__(self) -> None:
        self.all_down = DOWN | self.down
