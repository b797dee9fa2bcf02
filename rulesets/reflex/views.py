"""What the Reflex panels show: the RFX order, the two phases, the kept pools, the actions.

Plain view-models (tacmap.engine.rules.views) built from the state; nothing here
changes it. rules.py's ``Reflex`` delegates to these functions and hands itself
over as ``Rules``. An option is offered disabled with the reason the rules
would give.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from tacmap.api import (
    ActionOption,
    Aim,
    DeclareThenAct,
    Encounter,
    OrderRow,
    PoolView,
    RowState,
    RuleError,
    Timeline,
    TimelineItem,
    Token,
    TurnOrder,
    faces,
)

from . import strike
from .data import Data, Weapon
from .round import ROLLING, Plan, Round


class Rules(Protocol):
    """What the panels ask of the ruleset."""

    data: Data

    def stat(self, token: Token, key: str) -> int: ...
    def who(self, state: Encounter, token_id: str | None) -> str: ...
    def weapons_of(self, token: Token) -> list[Weapon]: ...
    def pool_stat(self, plan: Plan) -> str: ...
    def declaring(self, state: Encounter, actor: str) -> tuple[Round, Token]: ...
    def acting(self, state: Encounter, actor: str) -> tuple[Round, Token]: ...
    def plan_for(self, state: Encounter, token: Token, kind: str, target: str,
                 detail: str) -> Plan: ...
    def move_check(self, state: Encounter, token: Token) -> float | None: ...
    def duty(self, state: Encounter, rnd: Round, token: Token) -> tuple[str, str]: ...
    def shout_check(self, state: Encounter, actor: str,
                    target: str) -> tuple[Token, Token | None]: ...


def _key(order: DeclareThenAct, who: str) -> str:
    rfx, rolls = dict(order.keys), dict(order.rolloffs)
    key = f"RFX {rfx[who]}"
    if rolls.get(who):
        key += f" · roll-off {', '.join(map(str, rolls[who]))}"
    return key


def _pool_words(rules: Rules, rnd: Round, who: str) -> str:
    pool = rnd.main_pool(who)
    if pool is None:
        return ""
    vl = strike.vl(rules.data, rnd, pool)
    return f"{pool.stat} [{faces(pool.kept)}] {vl} VL"


def turn_order(rules: Rules, state: Encounter) -> TurnOrder | None:
    """The RFX order as it runs now: up for declaring, down for acting."""
    if not isinstance(state.schedule, Round):
        return None
    rnd = state.schedule
    order = rnd.order
    declaring = order.phase == "declare"
    ids = order.declare_order if declaring else order.act_order
    rows: list[OrderRow] = []
    for who in ids:
        t = state.tokens.get(who)
        said = order.action_of(who)
        status: RowState
        if t is None or not t.alive:
            status = "out"
        elif who == order.current:
            status = "acting"
        elif who in order.acted:
            status = "done"
        elif said is not None:
            status = "declared"
        else:
            status = "waiting"
        parts = [f"declared: {said}" if said is not None else
                 "declares next round" if not declaring else "not declared yet"]
        pool = _pool_words(rules, rnd, who)
        if pool:
            parts.append(pool)
        edges = rnd.edges_of(who)
        if edges:
            parts.append("; ".join(f"{e.kind}: {e.why}" for e in edges))
        if t is not None and t.conditions:
            parts.append(", ".join(t.conditions))
        rows.append(OrderRow(who, rules.who(state, who), t.side if t else "",
                             _key(order, who), status, " · ".join(parts)))
    for t in state.tokens.values():
        if t.id not in ids:
            rows.append(OrderRow(t.id, t.name, t.side, "—", "out",
                                 "down" if not t.alive else "not in the fight"))
    phase = ("declaration phase (lowest RFX declares first)" if declaring else
             "action phase (highest RFX acts first)")
    return TurnOrder(f"Round {order.round} — {phase}", tuple(rows))


def timeline(rules: Rules, state: Encounter) -> Timeline | None:
    """The round's two phases: a column per place, each character in its two places."""
    if not isinstance(state.schedule, Round):
        return None
    rnd = state.schedule
    order = rnd.order
    up, down = order.declare_order, order.act_order
    n = len(up)
    phases = (*(f"declare {i + 1}" for i in range(n)), *(f"act {i + 1}" for i in range(n)))
    items: list[TimelineItem] = []
    for i, who in enumerate(up):
        said = order.action_of(who)
        items.append(TimelineItem(who, said if said is not None else "declares", i, i))
    for j, who in enumerate(down):
        if order.phase == "act" and order.action_of(who) is None:
            continue  # joined after the declarations: acts from the next round
        label = "acted" if who in order.acted else "acts"
        pool = _pool_words(rules, rnd, who)
        items.append(TimelineItem(who, f"{label}: {pool}" if pool else label, n + j, n + j))
    current: int | None = None
    if order.current is not None:
        current = up.index(order.current) if order.phase == "declare" \
            else n + down.index(order.current)
    return Timeline(phases, current, tuple(items))


def dice_pools(rules: Rules, state: Encounter) -> list[PoolView]:
    """Kept pools face by face, wins marked, lost dice struck out, flipped dice ringed."""
    if not isinstance(state.schedule, Round):
        return []
    rnd = state.schedule
    data = rules.data
    out: list[PoolView] = []
    if not rnd.rolled:
        for plan in rnd.plans:
            t = state.tokens.get(plan.actor)
            if t is None or plan.action not in ROLLING:
                continue
            stat = rules.pool_stat(plan)
            out.append(PoolView(t.id, t.name, (), (), rules.stat(t, stat), data.dice.sides,
                                note=f"{stat} pool for: {plan.words}; rolled at the start of "
                                     "the action phase"))
        return out
    for pool in rnd.pools:
        t = state.tokens.get(pool.owner)
        name = rules.who(state, pool.owner)
        edges = rnd.edges_of(pool.owner)
        at = strike.win_at(data, edges)
        base = data.dice.win_at
        wins = tuple(i >= pool.lost and f >= at for i, f in enumerate(pool.faces))
        flipped = tuple(i >= pool.lost and (f >= at) != (f >= base)
                        for i, f in enumerate(pool.faces))
        notes = [f"{pool.stat} pool for: {pool.label}", f"{strike.wins(pool, at)} VL"]
        if at != base:
            notes.append(f"wins on {at}+ ({'; '.join(f'{e.kind}: {e.why}' for e in edges)})")
        if pool.lost:
            notes.append(f"{pool.lost} lost to injury")
        if t is not None and not t.alive:
            notes.append("down")
        out.append(PoolView(pool.owner, f"{name} (extra roll)" if pool.extra else name,
                            pool.faces, wins, len(pool.kept), data.dice.sides,
                            note="; ".join(notes),
                            removed=tuple(i < pool.lost for i in range(len(pool.faces))),
                            flipped=flipped))
    return out


def actions_for(rules: Rules, state: Encounter, actor: str) -> list[ActionOption]:
    """What ``actor`` may do now; each is tried, so a disabled one says why."""
    token = state.tokens.get(actor)
    if token is None:
        return []
    if not isinstance(state.schedule, Round):
        return [ActionOption("move", "Move", "cell")]
    rnd = state.schedule

    def option(key: str, label: str, aim: Aim, test: Callable[[], object],
               detail: str = "", at: str = "") -> ActionOption:
        try:
            test()
        except RuleError as err:
            return ActionOption(key, label, aim, False, str(err), detail, at=at)
        return ActionOption(key, label, aim, detail=detail, at=at)

    def declare(kind: str, detail: str = "") -> Callable[[], object]:
        def test() -> object:
            rules.declaring(state, actor)
            if kind in ("dodge", "stand", "other"):
                rules.plan_for(state, token, kind, "", detail)
            return None
        return test

    move = option("move", f"Move ({rules.data.round.move_metres:g} m a round)", "cell",
                  lambda: rules.move_check(state, token))
    shout = option("shout", "Shout to someone (free)", "token",
                   lambda: rules.shout_check(state, actor, ""))
    if rnd.order.phase == "declare":
        out = [option("declare:attack", f"Declare: attack with the {w.name}", "token",
                      declare("attack"), w.key) for w in rules.weapons_of(token)]
        out += [option("declare:knock_down", "Declare: knock down", "token",
                       declare("knock_down")),
                option("declare:dodge", "Declare: defend (dodge)", "none", declare("dodge")),
                option("declare:assist", "Declare: assist an ally", "token",
                       declare("assist"))]
        if "prone" in token.conditions:
            out.append(option("declare:stand", "Declare: stand up", "none", declare("stand")))
        out += [option("declare:other", "Declare: something else (no combat roll)", "none",
                       declare("other")),
                move, shout,
                option("end_turn", "Declare nothing", "none",
                       lambda: rules.declaring(state, actor))]
        return out
    out = [move, shout]
    plan = rnd.plan(actor)

    def acting() -> object:
        return rules.acting(state, actor)

    if plan is not None and plan.action == "attack":
        weapon = rules.data.weapons[plan.weapon]
        engaged = rnd.targets_of(actor)
        target = state.tokens.get(plan.target)

        def can_attack() -> object:
            acting()
            if not engaged and (target is None or not target.alive):
                raise RuleError(f"{rules.who(state, plan.target)} is down: the declared attack "
                                "has no target left")
            if engaged and weapon.kind != "melee":
                raise RuleError(f"{token.name} has made the declared attack")
            if len(engaged) >= rules.data.attack.melee_targets:
                raise RuleError(f"{token.name} has engaged every target a melee attack may")
            return None

        label = (f"Attack {rules.who(state, plan.target)} ({weapon.name})" if not engaged else
                 f"Attack a second target ({weapon.name})")
        # The declared target is known: the button aims there, no click needed.
        out.append(option("attack", label, "token", can_attack, weapon.key,
                          "" if engaged else plan.target))
    elif plan is not None and plan.action == "knock_down":
        def can_knock() -> object:
            acting()
            if rnd.targets_of(actor):
                raise RuleError(f"{token.name} has made the declared knock-down")
            target = state.tokens.get(plan.target)
            if target is None or not target.alive:
                raise RuleError(f"{rules.who(state, plan.target)} is down")
            return None

        out.append(option("knock_down", f"Knock {rules.who(state, plan.target)} down",
                          "token", can_knock, at=plan.target))
    elif plan is not None and plan.action == "stand":
        def can_stand() -> object:
            acting()
            if "prone" not in token.conditions:
                raise RuleError(f"{token.name} is not prone")
            return None

        out.append(option("stand", "Stand up", "none", can_stand))
    extra = rnd.extra_left(actor, rules.data.round.combat_rolls - 1)
    if extra > 0:
        out += [option("extra:attack", f"Extra combat roll: attack with the {w.name}", "token",
                       acting, w.key) for w in rules.weapons_of(token)]
        out.append(option("extra:knock_down", "Extra combat roll: knock down", "token", acting))
    out.append(option("allow_roll", "GM: allow one more combat roll", "none", acting))
    def can_end() -> object:
        acting()
        owed, _ = rules.duty(state, rnd, token)
        if owed:
            raise RuleError(owed)
        return None

    out.append(option("end_turn", "End turn", "none", can_end))
    return out
