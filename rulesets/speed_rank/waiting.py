"""Which phases a combatant's actions left hold: house rules ``move_only_phase`` and
``idle_phase`` (issues 36 and 37).

The text lets a side act in a phase "until each side that can act in a phase has
acted". Under ``idle_phase = "hold"`` (encounters saved before version 1.1) a combatant
with its standard action left holds its first phase and every phase from its weapon's
strike on, and a lone move action holds each phase from the first on
(``move_only_phase = "holds"``): the GM ends many such turns by hand, for sides with
nothing to do. Under ``"pass"`` (the default) a combatant holds its first phase, and
later phases only while its standard action could strike an enemy from where it stands
or after the move it has left (its weapon's reach, or range and sight); what it has
left otherwise rides along in any turn its side takes. Spells, sprints, carried
actions and conditions to deal with are decided in ``Rules.can_act`` before this.
"""

from __future__ import annotations

from typing import Protocol

from tacmap.api import Encounter, Space, Token, grid, line_of_sight

from .data import Data, Weapon


class Rules(Protocol):
    """What this module asks of the ruleset."""

    data: Data
    space: Space

    def house_rule(self, state: Encounter, key: str) -> str: ...
    def usable(self, token: Token) -> Weapon: ...
    def dropped(self, token: Token) -> tuple[str, ...]: ...


def holds(rules: Rules, state: Encounter, token: Token, at: int,
          phases: tuple[int, int], std: int, moves: int) -> bool:
    """Whether ``token`` holds phase ``at`` for its side, given its (first, strike)
    phases and its standard and move actions left."""
    first, strike = phases
    passing = rules.house_rule(state, "idle_phase") == "pass"
    if std <= 0:
        # move_only_phase: a move action to spare holds its phases too ("providing they
        # have the actions to spare"); under idle_phase "pass" only the first.
        return (moves > 0 and at >= first
                and rules.house_rule(state, "move_only_phase") == "holds"
                and (at == first or not passing))
    if at == first:
        return True
    return at >= strike and (not passing or not waits(rules, state, token, moves))


def waits(rules: Rules, state: Encounter, token: Token, moves: int) -> bool:
    """Whether ``token``, its standard action left, has nothing to mend and no enemy to
    strike, from where it stands or after the move it has left."""
    if rules.dropped(token) or any(c in token.conditions for c in
                                   ("prone", "weapon stuck", "grappled")):
        return False  # standing up, freeing a weapon, breaking free: something to do
    weapon = rules.usable(token)
    # As the crow flies: a path round a wall is longer, so this never passes a phase in
    # which a step and a strike were possible.
    step = rules.data.actions.move_cells if moves > 0 else 0.0
    walls = None
    for other in state.tokens.values():
        if other.side == token.side or not other.alive:
            continue
        gap = grid.edge_distance(state.diagonal, token.cell, token.size, other.cell,
                                 other.size)
        if not weapon.ranged:
            if gap <= weapon.reach + step:
                return False
        elif gap <= weapon.range + step:
            walls = rules.space.walls(state) if walls is None else walls
            if line_of_sight(walls, token, other):
                return False
    return True
