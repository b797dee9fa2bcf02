"""Common actions (dodge, feint, grapple, rally, shove), standing up, picking up, breaking free.

Each action has a check (``check_<key>``: RuleError when it cannot be taken now,
at declaration and again when it resolves) and a resolution (``do_<key>``)
that reads the action's d20.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

from tacmap.api import (
    Cell,
    Encounter,
    HpChanged,
    Resolution,
    RuleError,
    Said,
    Token,
    TokenMoved,
    ValueChanged,
)

from .attacks import split_detail
from .data import Data
from .round import Plan

SHOVES = ("away", "prone")


class Rules(Protocol):
    """What the common actions need of the ruleset."""

    data: Data

    def stat(self, token: Token, key: str) -> Any: ...
    def house_rule(self, state: Encounter, key: str) -> str: ...
    def target_of(self, state: Encounter, plan: Plan) -> Token: ...
    def melee_defense(self, token: Token) -> int: ...
    def in_melee(self, state: Encounter, a: Token, b: Token) -> bool: ...
    def enemies(self, state: Encounter, token: Token) -> list[Token]: ...
    def hurt(self, ctx: Resolution, token: Token, amount: int, location: str,
             why: str) -> None: ...
    def condition(self, ctx: Resolution, token: Token, cond: str, on: bool) -> None: ...
    def opportunity(self, ctx: Resolution, token: Token, what: str) -> None: ...
    def free(self, state: Encounter, token: Token, cell: Cell,
             start: Cell | None = None) -> bool: ...


def _target(rules: Rules, state: Encounter, plan: Plan) -> tuple[Token, Token]:
    token, target = state.token(plan.who), rules.target_of(state, plan)
    if not rules.in_melee(state, token, target):
        raise RuleError(f"{token.name} is out of melee range of {target.name}")
    return token, target


def _stat(rules: Rules, token: Token, key: str) -> int:
    return int(rules.stat(token, key))


def contest(rules: Rules, state: Encounter, plan: Plan, stat: str) -> int:
    """The number the d20 must reach: the stat's target plus the target's Defense."""
    token, target = _target(rules, state, plan)
    return _stat(rules, token, stat) + rules.melee_defense(target)


def _self_hit(rules: Rules, ctx: Resolution, token: Token, face: int, what: str) -> None:
    """"Failure means you get hit, damage equals 10 minus your result.\""""
    base = rules.data.attack.self_hit_base
    # The text's own arithmetic, with no floor: a result of 10 or more leaves nothing to hit
    # for (the attack minimum of 1 is for "a successful attack", which this is not).
    amount = max(0, base - face)
    floor = rules.data.attack.min_damage
    if amount < floor and rules.house_rule(ctx.state, "self_hit_floor") == "minimum":
        ctx.emit(Said(f"{token.name}'s {what} fails ({face}): {base} minus {face} is raised to "
                      f"the minimum, {token.name} is hit for {floor}", token.id))
        rules.hurt(ctx, token, floor, rules.data.locations.default, f"failed {what}")
        return
    if amount == 0:
        ctx.emit(Said(f"{token.name}'s {what} fails ({face}): {base} minus {face} is no "
                      f"damage, {token.name} comes to no harm", token.id))
        return
    ctx.emit(Said(f"{token.name}'s {what} fails ({face}): {token.name} is hit for {base} "
                  f"minus {face}, {amount}", token.id))
    rules.hurt(ctx, token, amount, rules.data.locations.default, f"failed {what}")


# --- checks (declaration and resolution) ---------------------------------------------------

def check_shove(rules: Rules, state: Encounter, plan: Plan) -> None:
    _target(rules, state, plan)
    if (split_detail(plan.detail, 1)[0] or "away") not in SHOVES:
        raise RuleError(f"a shove sends the target {' or '.join(SHOVES)}, not {plan.detail!r}")


def check_melee_target(rules: Rules, state: Encounter, plan: Plan) -> None:
    _target(rules, state, plan)


def check_self(rules: Rules, state: Encounter, plan: Plan) -> None:
    """Dodge: nothing to check but that the combatant stands."""


def check_rally(rules: Rules, state: Encounter, plan: Plan) -> None:
    token = state.token(plan.who)
    if token.values.get("advanced") != state.round:
        raise RuleError(f"{token.name} has not moved towards the enemy this round; "
                        "a rally is made while moving towards the enemy")
    if not rules.enemies(state, token):
        raise RuleError("there is no enemy to rally against")


def check_stand_up(rules: Rules, state: Encounter, plan: Plan) -> None:
    token = state.token(plan.who)
    if "prone" not in token.conditions:
        raise RuleError(f"{token.name} is not prone")


def check_pick_up(rules: Rules, state: Encounter, plan: Plan) -> None:
    token = state.token(plan.who)
    dropped = tuple(token.values.get("dropped", ()) or ())
    if not dropped:
        raise RuleError(f"{token.name} has nothing on the ground to pick up")
    if plan.detail and plan.detail not in dropped:
        raise RuleError(f"{token.name} has not dropped {plan.detail!r}")


def check_break_free(rules: Rules, state: Encounter, plan: Plan) -> None:
    token = state.token(plan.who)
    if not token.values.get("grappled_by"):
        raise RuleError(f"{token.name} is not held in a grapple")


# --- resolutions ---------------------------------------------------------------------------

def do_shove(rules: Rules, ctx: Resolution, plan: Plan, face: int) -> None:
    state = ctx.state
    token, target = _target(rules, state, plan)
    need = contest(rules, state, plan, "str")
    if face < need:
        _self_hit(rules, ctx, token, face, "shove")
        return
    margin = face - need
    if (split_detail(plan.detail, 1)[0] or "away") == "prone":
        ctx.emit(Said(f"{token.name} shoves {target.name} prone ({face} against {need})",
                      token.id))
        rules.condition(ctx, target, "prone", True)
        return
    feet = rules.data.grid.cell_size
    # "a number of feet equal to the margin of success", in whole squares: rounded down.
    squares = math.floor(margin / feet)
    dx = (target.x > token.x) - (target.x < token.x)
    dy = (target.y > token.y) - (target.y < token.y)
    path: list[Cell] = [target.cell]
    for _ in range(squares):
        nxt = (path[-1][0] + dx, path[-1][1] + dy)
        if (dx, dy) == (0, 0) or not rules.free(state, target, nxt, path[-1]):
            break
        path.append(nxt)
    moved = len(path) - 1
    said = f"{token.name} shoves {target.name} {margin} feet away ({face} against {need})"
    if squares == 0:
        said += f": less than one {feet:g}-foot square, {target.name} stays where it is"
    elif moved == squares:
        said += f": {_squares(moved, feet)}"
    elif moved:
        said += (f": {_squares(squares, feet)}, stopped after {_squares(moved, feet)} "
                 "by a wall, a token or the map edge")
    else:
        said += (f": {_squares(squares, feet)}, but a wall, a token or the map edge keeps "
                 f"{target.name} where it is")
    ctx.emit(Said(said, token.id))
    if moved:
        ctx.emit(TokenMoved(target.id, tuple(path), 0.0))


def _squares(n: int, feet: float) -> str:
    """``"1 square (5 ft)"``, ``"2 squares (10 ft)"``."""
    return f"{n} square{'' if n == 1 else 's'} ({n * feet:g} ft)"


def do_grapple(rules: Rules, ctx: Resolution, plan: Plan, face: int) -> None:
    state = ctx.state
    token, target = _target(rules, state, plan)
    need = contest(rules, state, plan, "str")
    if face < need:
        _self_hit(rules, ctx, token, face, "grapple")
        return
    ctx.emit(Said(f"{token.name} grapples {target.name} ({face} against {need})", token.id))
    ctx.emit(ValueChanged(token.id, "grappling", token.values.get("grappling"), target.id,
                          "holds on"))
    ctx.emit(ValueChanged(target.id, "grappled_by", target.values.get("grappled_by"),
                          token.id, "held"))
    rules.condition(ctx, token, "grappling", True)
    rules.condition(ctx, target, "grappling", True)


def do_feint(rules: Rules, ctx: Resolution, plan: Plan, face: int) -> None:
    state = ctx.state
    token, target = _target(rules, state, plan)
    need = contest(rules, state, plan, "cun")
    if face < need:
        ctx.emit(Said(f"{target.name} does not fall for {token.name}'s feint ({face} against "
                      f"{need})", token.id))
        return
    ctx.emit(Said(f"{token.name} feints; the next attack against {target.name} ignores its "
                  f"Defense ({face} against {need})", token.id))
    ctx.emit(ValueChanged(target.id, "feinted", target.values.get("feinted"), True, "feint"))


def do_dodge(rules: Rules, ctx: Resolution, plan: Plan, face: int) -> None:
    token = ctx.state.token(plan.who)
    ctx.emit(Said(f"{token.name} dodges: attacks it sees coming have disadvantage until its "
                  "next turn", token.id))
    ctx.emit(ValueChanged(token.id, "dodging", token.values.get("dodging"), ctx.state.round,
                          "dodge"))


def do_rally(rules: Rules, ctx: Resolution, plan: Plan, face: int) -> None:
    state = ctx.state
    token = state.token(plan.who)
    hd = max(_stat(rules, e, "hd") for e in rules.enemies(state, token))
    need = _stat(rules, token, "cou") + hd
    if face < need:
        ctx.emit(Said(f"{token.name}'s rally falls flat ({face} against Courage + HD {hd} "
                      f"= {need})", token.id))
        return
    heal = face - need
    ctx.emit(Said(f"{token.name} rallies the party ({face} against {need}): {heal} HP to "
                  "share, lowest HP first", token.id))
    party = sorted((t for t in state.tokens.values() if t.side == token.side and t.alive
                    and t.hp < t.max_hp), key=lambda t: t.hp)
    for t in party:
        if heal <= 0:
            break
        gain = min(heal, t.max_hp - t.hp)
        ctx.emit(HpChanged(t.id, t.hp, t.hp + gain, "rally"))
        heal -= gain


def do_stand_up(rules: Rules, ctx: Resolution, plan: Plan, face: int) -> None:
    token = ctx.state.token(plan.who)
    rules.opportunity(ctx, token, "stands up")
    if token.alive:
        rules.condition(ctx, token, "prone", False)


def do_pick_up(rules: Rules, ctx: Resolution, plan: Plan, face: int) -> None:
    token = ctx.state.token(plan.who)
    dropped = tuple(token.values.get("dropped", ()) or ())
    item = plan.detail or dropped[0]
    rules.opportunity(ctx, token, f"picks up the {item}")
    if token.alive:
        rest = list(dropped)
        rest.remove(item)
        ctx.emit(ValueChanged(token.id, "dropped", dropped, tuple(rest) or None,
                              f"{item} back in hand"))


def do_break_free(rules: Rules, ctx: Resolution, plan: Plan, face: int) -> None:
    state = ctx.state
    token = state.token(plan.who)
    need = _stat(rules, token, "str")
    if face < need:
        ctx.emit(Said(f"{token.name} fails to break free ({face} against Strength {need})",
                      token.id))
        return
    ctx.emit(Said(f"{token.name} breaks free ({face} against Strength {need})", token.id))
    release(rules, ctx, token)


def release(rules: Rules, ctx: Resolution, token: Token) -> None:
    """End the grapple ``token`` is part of, for both."""
    state = ctx.state
    other_id = str(token.values.get("grappled_by") or token.values.get("grappling") or "")
    for t in (token, state.tokens.get(other_id)):
        if t is None:
            continue
        for key in ("grappled_by", "grappling"):
            if key in t.values:
                ctx.emit(ValueChanged(t.id, key, t.values[key], None, "the grapple ends"))
        rules.condition(ctx, t, "grappling", False)


Check = Callable[[Rules, Encounter, Plan], None]
Do = Callable[[Rules, Resolution, Plan, int], None]

#: key → (label, target kind, choices, check, resolution)
ACTIONS: dict[str, tuple[str, str, tuple[tuple[str, tuple[str, ...]], ...], Check, Do]] = {
    "shove": ("Shove", "token", (("Shove", SHOVES),), check_shove, do_shove),
    "grapple": ("Grapple", "token", (), check_melee_target, do_grapple),
    "feint": ("Feint", "token", (), check_melee_target, do_feint),
    "dodge": ("Dodge", "none", (), check_self, do_dodge),
    "rally": ("Rally", "none", (), check_rally, do_rally),
    "stand_up": ("Stand up", "none", (), check_stand_up, do_stand_up),
    "pick_up": ("Pick up", "none", (), check_pick_up, do_pick_up),
    "break_free": ("Break free", "none", (), check_break_free, do_break_free),
}
#: The actions that are a d20 against a stat plus the target's Defense: (stat, its name).
CONTESTS = {"shove": ("str", "Strength"), "grapple": ("str", "Strength"),
            "feint": ("cun", "Cunning")}
#: The common actions that are aimed at an enemy in melee.
AIMED = tuple(k for k, v in ACTIONS.items() if v[1] == "token")
