"""Getting back into the fight: stand up, pick up, free a stuck weapon, break a grapple.

Each is one action of [action_costs] placed on the timeline like any other; the
Combat Events put a combatant in the state these undo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from tacmap.api import Act, Encounter, Resolution, RuleError, Token, ValueChanged

from .data import ActionCosts, CheckLevel, Cost, Data, Weapon
from .round import Round


class Rules(Protocol):
    """What these actions ask of the ruleset (rules.py's ``SpeedRank``)."""

    data: Data
    costs: ActionCosts

    def held_weapon(self, token: Token) -> Weapon: ...
    def item_name(self, key: str) -> str: ...
    def dropped(self, token: Token) -> tuple[str, ...]: ...
    def ready(self, state: Encounter, token: Token, what: str, *, cost: Sequence[Cost] = ()
              ) -> Round: ...
    def place(self, ctx: Resolution, token: Token, label: str, span: int, note: str,
              cost: Sequence[Cost]) -> Round: ...
    def condition(self, ctx: Resolution, token: Token, cond: str, on: bool = True) -> None: ...
    def check(self, ctx: Resolution, token: Token, level: CheckLevel, stat: str,
              what: str) -> bool: ...
    def harmed(self, ctx: Resolution, target: Token) -> None: ...


def stand(rules: Rules, ctx: Resolution, token: Token, cmd: Act) -> None:
    if "prone" not in token.conditions:
        raise RuleError(f"{token.name} is not prone")
    rules.ready(ctx.state, token, "stand up", cost=rules.costs.stand)
    rules.place(ctx, token, "stand up", 1, f"{token.name} stands up", rules.costs.stand)
    rules.condition(ctx, token, "prone", False)


def pick_up(rules: Rules, ctx: Resolution, token: Token, cmd: Act) -> None:
    dropped = rules.dropped(token)
    if not dropped:
        raise RuleError(f"{token.name} has dropped nothing")
    item = cmd.detail.strip() or dropped[0]
    if item not in dropped:
        names = ", ".join(dropped)
        raise RuleError(f"{token.name} has not dropped {item!r} (dropped: {names})")
    rules.ready(ctx.state, token, "pick anything up", cost=rules.costs.pick_up)
    name = rules.item_name(item)
    rules.place(ctx, token, f"pick up {name}", 1, f"{token.name} picks up the {name}",
               rules.costs.pick_up)
    rest = list(dropped)
    rest.remove(item)
    ctx.emit(ValueChanged(token.id, "dropped", dropped, tuple(rest) or None,
                          f"{name} back in hand"))
    if item == rules.held_weapon(token).key:
        rules.condition(ctx, token, "disarmed", False)


def free_weapon(rules: Rules, ctx: Resolution, token: Token, cmd: Act) -> None:
    if "weapon stuck" not in token.conditions:
        raise RuleError(f"{token.name}'s weapon is not stuck")
    rules.ready(ctx.state, token, "free the weapon", cost=rules.costs.free_weapon)
    w = rules.held_weapon(token)
    rules.place(ctx, token, f"free {w.name}", 1,
               f"{token.name} tries to wrench the {w.name} free", rules.costs.free_weapon)
    level = rules.data.events.weapon_trouble.free_check
    if rules.check(ctx, token, level, "strength_bonus", "Advanced Strength Feat"):
        ctx.emit(ValueChanged(token.id, "stuck_in", token.values.get("stuck_in"), None,
                              f"the {w.name} comes free"))
        rules.condition(ctx, token, "weapon stuck", False)


def break_free(rules: Rules, ctx: Resolution, token: Token, cmd: Act) -> None:
    if "grappled" not in token.conditions:
        raise RuleError(f"{token.name} is not grappled")
    rules.ready(ctx.state, token, "break free", cost=rules.costs.break_free)
    rules.place(ctx, token, "break free", 1, f"{token.name} struggles to break free",
               rules.costs.break_free)
    if not rules.check(ctx, token, "normal", "strength_bonus", "Strength Feat to break free"):
        return
    other = ctx.state.tokens.get(str(token.values.get("grappled_with", "")))
    for t in (token, other):
        if t is None:
            continue
        ctx.emit(ValueChanged(t.id, "grappled_with", t.values.get("grappled_with"), None,
                              "the grapple is broken"))
        rules.condition(ctx, t, "grappled", False)


#: The ``act`` actions of this module, by name.
ACTIONS: dict[str, Callable[[Rules, Resolution, Token, Act], None]] = {
    "stand": stand, "pick_up": pick_up, "free_weapon": free_weapon, "break_free": break_free,
}


def hp_set(rules: Rules, ctx: Resolution, token: Token) -> None:
    """GM damage wakes a sleeper and kills at the dead-at line, as a blow does."""
    if token.hp < ctx.hp_before(token):
        rules.harmed(ctx, token)
    elif token.hp <= rules.data.attack.dead_at and token.alive:
        rules.condition(ctx, token, "dead", True)


def harmed(rules: Rules, ctx: Resolution, target: Token) -> None:
    """``target`` just lost hit points: a sleeper wakes; at the dead-at line it dies."""
    if "asleep" in target.conditions:
        rules.condition(ctx, target, "asleep", False)
        if "asleep_until" in target.values:
            ctx.emit(ValueChanged(target.id, "asleep_until", target.values["asleep_until"],
                                  None, "woken by the blow"))
    if target.hp <= rules.data.attack.dead_at and target.alive:
        rules.condition(ctx, target, "dead", True)
