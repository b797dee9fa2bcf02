"""Prepared actions past the dodge and the attack: "Other actions can be prepared and then
performed as a reaction" (seed 004; issue 26).

Any action a token could take on its turn can wait for a trigger: an action ability (an
attacking one goes through the prepared attack of reactions.py; a healing one names whom
in ``Prepared.detail``), a move ("away" from the trigger's token, "close" to it, or to a
cell "x,y"), a skill (``"skill"``, or ``"skill:DT"`` with a test; the words in ``detail``),
a quick action (``"generic"``, words in ``detail``) and taking up a carried weapon
(``"wield:<weapon>"``). An action longer than 5 s takes the whole turn and is not a
reaction. This module reads such a preparation from the command, says it in words, and
performs it when it fires; rules.py's ``ActionPool`` is the ``Rules`` it asks.

A command names the action in one of two forms:

* typed: ``prepare:<action>[:<DT or weapon>]:<trigger>`` with the words, whom or where in
  ``detail`` (``prepare:move:enters_reach`` ``detail="away"``);
* picked on the odds card: ``prepare:<kind>`` with ``detail`` the values picked, joined by
  ``/`` (the words last): ``prepare:ability`` ``"Mend on Dora/attacks me"``.
"""

from __future__ import annotations

import math
from typing import Protocol

from tacmap.api import (
    Cell,
    Encounter,
    LeftReach,
    MovePlan,
    Resolution,
    RuleError,
    Said,
    Space,
    Token,
    TokenMoved,
    article,
    grid,
)

from . import reactions
from .data import ANY, Ability, Weapon
from .reactions import Prepared

#: The odds card's words for a prepared move, and the ``detail`` each stands for.
MOVES = {"step back": "away", "close in": "close"}
#: The odds card's word for a prepared skill with no test (the GR sets any).
NO_TEST = "no test"


class Rules(reactions.Rules, Protocol):
    """What a prepared action past the attack asks of the ruleset."""

    space: Space

    def metres_per_action(self, token: Token) -> float: ...
    def plan(self, state: Encounter, token: Token, waypoints: tuple[Cell, ...],
             version: object = None) -> MovePlan: ...
    def heal_check(self, state: Encounter, token: Token, target: Token,
                   ability: Ability) -> None: ...
    def heal(self, ctx: Resolution, token: Token, target: Token, ability: Ability,
             reaction: bool = False) -> None: ...
    def skill_roll(self, ctx: Resolution, token: Token, what: str, dt: int,
                   reaction: bool = False) -> None: ...
    def wield_check(self, token: Token, key: str) -> Weapon: ...
    def wield(self, ctx: Resolution, token: Token, weapon: Weapon) -> None: ...


def trigger_key(rules: Rules, text: str) -> str | None:
    """The trigger named by its key (``leaves_reach``) or its words (``leaves my reach``)."""
    text = text.strip()
    if text in rules.triggers:
        return text
    return next((k for k, words in rules.triggers.items() if words == text), None)


def allies(state: Encounter, token: Token) -> list[Token]:
    """The living tokens on ``token``'s side, itself first."""
    return [token, *(t for t in state.tokens.values()
                     if t.side == token.side and t.id != token.id and t.alive)]


def ability_choices(rules: Rules, state: Encounter, token: Token) -> tuple[str, ...]:
    """The odds card's list of action abilities to prepare: "Mighty Blow" (on the trigger's
    token), "Mend on myself", "Mend on Dora" (a healing one names whom)."""
    out: list[str] = []
    for a in rules.abilities_of(token, "action"):
        if a.effect == "heal":
            out += [f"{a.name} on {'myself' if t.id == token.id else t.name}"
                    for t in allies(state, token)]
        else:
            out.append(a.name)
    return tuple(out)


def _ability(rules: Rules, state: Encounter, token: Token, text: str) -> tuple[Ability, str]:
    """The action ability picked on the card ("Mend on Dora") or typed (its key), and whom."""
    for a in rules.abilities_of(token, "action"):
        if text in (a.key, a.name):
            return a, ""
        if a.effect == "heal" and text.startswith(f"{a.name} on "):
            name = text[len(a.name) + 4:]
            if name == "myself":
                return a, ""
            ally = next((t for t in allies(state, token) if name in (t.name, t.id)), None)
            if ally is None:
                raise RuleError(f"{name} is not a living ally of {token.name}")
            return a, ally.id
    known = rules.data.abilities.get(text)
    if known is not None and known.kind != "action":
        raise RuleError(f"{known.name} is {article(known.kind)}: it "
                        + ("fires by itself" if known.kind == "reaction" else "is always on"))
    raise RuleError(f"{token.name} has no action ability {text!r}")


def _whom(state: Encounter, token: Token, ability: Ability, text: str) -> str:
    """Whom a prepared healing ability heals: "" for the preparer, else an ally's id."""
    text = text.strip()
    if not text or text in ("myself", token.id, token.name):
        return ""
    ally = next((t for t in allies(state, token) if text in (t.id, t.name)), None)
    if ally is None:
        raise RuleError(f"{ability.name} heals an ally: {text} is not a living ally of "
                        f"{token.name}")
    return ally.id


def _cell(state: Encounter, text: str) -> Cell:
    try:
        cell = grid.parse_cell(text)
    except RuleError:
        raise RuleError(f"a prepared move goes away (step back), close (close in) or to a "
                        f"cell \"x,y\", not {text!r}") from None
    if not (0 <= cell[0] < state.map.width and 0 <= cell[1] < state.map.height):
        raise RuleError(f"({cell[0]},{cell[1]}) is off the map")
    return cell


def entry(rules: Rules, state: Encounter, token: Token, by: Token, tail: str,
          detail: str) -> Prepared:
    """The prepared action ``prepare:<tail>`` with ``detail``, checked; RuleError if not."""
    parts = [p.strip() for p in tail.split(":")]
    typed = trigger_key(rules, parts[-1]) if len(parts) > 1 else None
    if typed is not None:
        head, words, values = parts[:-1], detail.strip(), []
    else:
        head, words, values = parts, "", [v.strip() for v in detail.split("/")]
    kind, args = head[0], head[1:]
    layout = {"ability": 1, "move": 1, "skill": 1, "generic": 0, "wield": 1}
    if typed is None:
        if kind not in layout:
            raise RuleError(f"say what sets it off: {', '.join(rules.triggers)}")
        n = layout[kind]
        if len(values) < n + 1 or trigger_key(rules, values[n]) is None:
            raise RuleError(f"say what sets it off: {', '.join(rules.triggers.values())}")
        picked, trigger = values[:n], trigger_key(rules, values[n]) or ""
        words = "/".join(values[n + 1:]).strip()
    else:
        picked, trigger = [], typed
    do, what = kind, words
    if kind == "long_action":
        raise RuleError("an action of more than 5 s takes the whole turn: it cannot be "
                        "performed as a reaction")
    if kind == "ability" or kind in rules.data.abilities:
        ability, whom = _ability(rules, state, token, picked[0] if picked else kind)
        if ability.effect == "heal" and not picked:
            whom = _whom(state, token, ability, words)
        do, what = ability.key, whom
    elif kind == "move":
        how = (picked[0] if picked else words) or "away"
        what = MOVES.get(how, how)
        if what not in MOVES.values():
            cell = _cell(state, what)
            what = f"{cell[0]},{cell[1]}"
    elif kind == "skill":
        test = picked[0] if picked else (args[0] if args else NO_TEST)
        if test != NO_TEST:
            try:
                dt = int(test.removeprefix("DT").strip())
            except ValueError:
                raise RuleError(f"the DT of a skill test is a whole number, not {test!r}"
                                ) from None
            do = f"skill:{dt}"
    elif kind == "wield":
        key = picked[0] if picked else (args[0] if args else "")
        weapon = next((w for w in rules.data.weapons.values() if key in (w.key, w.name)),
                      None)
        do = f"wield:{rules.wield_check(token, weapon.key if weapon else key).key}"
        what = ""
    elif kind != "generic":
        raise RuleError(f"{kind!r} cannot be prepared: prepare a dodge, an attack, an action "
                        "ability, a move, a skill, a quick action (generic) or wield:<weapon>")
    return Prepared(do, trigger, by.id, ANY, rules.data.prepare.uses, what)


def response(rules: Rules, state: Encounter, p: Prepared) -> str:
    """What the preparer will do, in words: "step back from Brak", "use Mend on Dora"."""
    by = state.tokens[p.by].name if p.by in state.tokens else p.by
    head, _, arg = p.do.partition(":")
    ability = rules.data.abilities.get(p.do)
    if ability is not None:
        whom = state.tokens[p.detail].name if p.detail in state.tokens else "myself"
        return f"use {ability.name} on {by if ability.effect == 'attack' else whom}"
    if head == "move":
        return {"away": f"step back from {by}", "close": f"close in on {by}"}.get(
            p.detail, f"move to ({p.detail})")
    if head == "skill":
        test = f"test a skill at DT {arg}" if arg else "use a skill"
        return f"{test}: {p.detail}" if p.detail else test
    if head == "wield":
        weapon = rules.data.weapons.get(arg)
        return f"take up the {weapon.name if weapon else arg}"
    return f"do something quick: {p.detail}" if p.detail else "do something quick"


def _route(rules: Rules, state: Encounter, token: Token, other: Token,
           how: str) -> tuple[Cell, ...]:
    """The waypoints of a prepared move: to the cell one move action away that is farthest
    from (``away``) or nearest to (``close``) ``other``, round walls and other living
    tokens, every step moving away from (towards) them; else to the cell it named."""
    if how not in ("away", "close"):
        return (grid.parse_cell(how),)
    budget = rules.metres_per_action(token)
    rule = rules.reach_rule(state)
    size = token.size
    taken = {c for t in state.tokens.values() if t.alive and t.id != token.id
             for c in grid.footprint(t.cell, t.size)}
    walls = rules.space.walls(state).step_test(size)

    sign = -1 if how == "away" else 1

    def gap(cell: Cell) -> float:
        return grid.edge_distance(rule, cell, size, other.cell, other.size)

    def centre(cell: Cell) -> float:
        # Squared distance between centres: a step round them at the same gap changes it.
        dx = cell[0] + size / 2 - other.x - other.size / 2
        dy = cell[1] + size / 2 - other.y - other.size / 2
        return dx * dx + dy * dy

    def blocked(a: Cell, b: Cell) -> bool:
        # Stepping back never steps towards them, closing in never away: no circling.
        return walls(a, b) or bool(taken & set(grid.footprint(b, size))) \
            or sign * (centre(b) - centre(a)) > 1e-9

    field = grid.distance_field(state.diagonal, token.cell, budget,
                                (state.map.width - size + 1, state.map.height - size + 1),
                                blocked)

    best = min(field.cost, key=lambda c: (sign * gap(c), field.cost[c], c[1], c[0]))
    now = gap(token.cell)
    if (how == "away" and gap(best) <= now) or (how == "close" and gap(best) >= now):
        where = "farther from" if how == "away" else "nearer to"
        raise RuleError(f"no free cell within {budget:g} m is {where} {other.name}")
    path = field.path_to(best) or [token.cell, best]
    return tuple(path[1:])


def _move_plan(rules: Rules, state: Encounter, token: Token, other: Token,
               how: str) -> MovePlan:
    """The prepared move of ``token`` now, within one move action; RuleError if none."""
    route = _route(rules, state, token, other, how)
    cell = route[-1]
    plan = rules.plan(state, token, route)
    budget = rules.metres_per_action(token)
    crowd = [state.tokens[t].name for t in plan.occupants if state.tokens[t].alive]
    if plan.blocked:
        raise RuleError(plan.blocked)
    if crowd:
        raise RuleError(f"({cell[0]},{cell[1]}) is taken by {crowd[0]}")
    if math.isclose(plan.cost, 0):
        raise RuleError(f"{token.name} is already at ({cell[0]},{cell[1]})")
    if plan.cost > budget + 1e-9:
        raise RuleError(f"({cell[0]},{cell[1]}) is {plan.cost:g} m away; one move action "
                        f"is {budget:g} m")
    return plan


def fire(rules: Rules, ctx: Resolution, reactor: Token, other: Token, index: int) -> None:
    """``reactor``'s prepared action ``index`` fires on ``other``'s action: checked, said,
    spent, performed. One that cannot be performed now is said so and stays prepared."""
    state = ctx.state
    prepared = reactions.prepared_of(reactor)
    p = prepared[index]
    text = reactions.prepared_text(rules, state, p)
    head, _, arg = p.do.partition(":")
    ability = rules.data.abilities.get(p.do)
    target, plan, weapon = reactor, None, None
    try:
        if ability is not None:
            target = state.token(p.detail) if p.detail else reactor
            rules.heal_check(state, reactor, target, ability)
        elif head == "move":
            plan = _move_plan(rules, state, reactor, other, p.detail)
        elif head == "wield":
            weapon = rules.wield_check(reactor, arg)
    except RuleError as err:
        ctx.emit(Said(f'{reactor.name} cannot follow through on "{text}": {err}', reactor.id))
        return
    ctx.emit(Said(f'{reactor.name}\'s prepared action fires: "{text}"', reactor.id))
    reactions.spend_prepared(ctx, reactor, prepared, index, "the prepared action")
    if ability is not None:
        rules.heal(ctx, reactor, target, ability, reaction=True)
    elif plan is not None:
        # A reaction never sets off another: the move draws no prepared attack.
        ctx.emit(TokenMoved(reactor.id, plan.cells, plan.cost))
        for enemy, step in plan.leaves:
            ctx.emit(LeftReach(reactor.id, enemy, step))
    elif weapon is not None:
        rules.wield(ctx, reactor, weapon)
    elif head == "skill" and arg:
        rules.skill_roll(ctx, reactor, p.detail or "a skill", int(arg), reaction=True)
    elif head == "skill":
        ctx.emit(Said(f"{reactor.name} uses a skill as a reaction: {p.detail or 'unnamed'} "
                      "(the GR sets any test)", reactor.id))
    else:
        ctx.emit(Said(f"{reactor.name} does something quick as a reaction: "
                      f"{p.detail or 'a generic action'}", reactor.id))
