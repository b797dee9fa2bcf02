"""The exact answer of a duel, for checking forecasts against (issue 28).

Two adjacent combatants who can only attack each other: the chance one wins
follows from the per-attack odds the odds card shows (``Preview.odds``) by a
Markov chain over their HP, pushed forward attack by attack for as many rounds
as the forecast's cap.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from tacmap.engine.model.commands import EndTurn, SetFog, StartCombat
from tacmap.engine.model.state import Encounter
from tacmap.engine.play.autoplay import Choice
from tacmap.engine.play.forecast import worth
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.options import acting_token
from tacmap.engine.rules.ruleset import Ruleset
from tacmap.engine.rules.views import Odds


@dataclass(frozen=True)
class Side:
    """One duellist as the chain sees it."""

    hp: int
    """HP at the start."""
    options: tuple[Odds, ...]
    """The odds of each attack it may pick (the policy takes the one worth most)."""
    attacks: int = 1
    """Attacks it makes each turn."""


def duel(state: Encounter, ruleset: Ruleset, a: str, b: str) -> tuple[Encounter, str, str]:
    """``state`` with only ``a`` and ``b``, side by side, fog off; and who acts first, second."""
    state = state.copy()
    for tid in list(state.tokens):
        if tid not in (a, b):
            del state.tokens[tid]
    state.tokens[a].x, state.tokens[a].y = 5, 5
    state.tokens[b].x, state.tokens[b].y = 6, 5
    referee = Referee(state, ruleset)
    referee.execute(SetFog(False))
    trial = Referee(state.copy(), ruleset)
    trial.execute(StartCombat())
    first = acting_token(trial.state, ruleset.turn_order(trial.state))
    assert first in (a, b)
    return referee.state, first, b if first == a else a


def odds_of(state: Encounter, ruleset: Ruleset, actor: str, target: str,
            turns_first: int = 0) -> tuple[Odds, ...]:
    """The odds of every attack ``actor`` is offered on ``target`` once combat starts
    (after ``turns_first`` turns are ended, so that it is ``actor``'s turn)."""
    referee = Referee(state.copy(), ruleset)
    referee.execute(StartCombat())
    for _ in range(turns_first):
        acting = acting_token(referee.state, ruleset.turn_order(referee.state))
        assert acting is not None
        referee.execute(EndTurn(acting))
    for _ in range(40):  # phases and sides: wait until the actor may attack
        if any(o.target == "token" and o.enabled for o in ruleset.actions_for(
                referee.state, actor)) and acting_token(
                referee.state, ruleset.turn_order(referee.state)) == actor:
            break
        acting = acting_token(referee.state, ruleset.turn_order(referee.state))
        referee.execute(EndTurn(acting or ""))
    found = []
    for option in ruleset.actions_for(referee.state, actor):
        if option.target != "token" or not option.enabled:
            continue
        preview = referee.preview(Choice(option, target).command(actor))
        if preview.legal and preview.odds is not None:
            found.append(preview.odds)
    return tuple(found)


def win_chance(first: Side, second: Side, rounds: int) -> float:
    """Chance ``first`` (who attacks first) drops ``second`` within ``rounds`` rounds."""
    # Distribution over (first's HP, second's HP) of fights still on.
    live: dict[tuple[int, int], float] = {(first.hp, second.hp): 1.0}
    won = 0.0
    for _ in range(rounds):
        for attacker in (0, 1):
            me = first if attacker == 0 else second
            for _ in range(me.attacks):
                after: dict[tuple[int, int], float] = defaultdict(float)
                for (ha, hb), p in live.items():
                    hp = hb if attacker == 0 else ha
                    odds = max(me.options, key=lambda o: worth(o, hp))
                    after[(ha, hb)] += p * (1 - odds.success)
                    for dmg, q in odds.damage:
                        left = hp - max(0, dmg)
                        w = p * odds.success * q
                        if left <= 0:
                            won += w if attacker == 0 else 0.0
                        else:
                            after[(ha, left) if attacker == 0 else (left, hb)] += w
                live = dict(after)
    return won


def summed(damage: Sequence[tuple[int, float]]) -> float:
    """Total probability of a damage table (1 for a complete one)."""
    return sum(p for _, p in damage)
