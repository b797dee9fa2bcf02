"""Kept pools at work: victory levels, attacks, injury, advantage and disadvantage, odds.

Functions in the style of views.py: each takes the rules first (``Rules``, the
little this module asks of the ruleset) and emits events through a
``Resolution``. A pool is never rolled again in a round: injury strikes dice
out of it from the left, and advantage or disadvantage gained later moves the
face a die must show, so wins turn into fails and back.
"""

from __future__ import annotations

from typing import Literal, Protocol

from msgspec.structs import replace

from tacmap.api import (
    ConditionChanged,
    Encounter,
    HpChanged,
    Odds,
    Reaction,
    Resolution,
    Said,
    Spread,
    Token,
    condition_change,
    faces,
    odds,
    plural,
)

from .data import Data, Weapon
from .round import Edge, Pool, Round

DEAD, PRONE, STAGGERED = "dead", "prone", "staggered"
Kind = Literal["attack", "knock_down"]


class Rules(Protocol):
    """What this module asks of the ruleset."""

    data: Data

    def stat(self, token: Token, key: str) -> int: ...
    def round_of(self, state: Encounter) -> Round: ...
    def set_round(self, ctx: Resolution, new: Round, note: str) -> None: ...
    def leave(self, ctx: Resolution, token: Token, why: str) -> None: ...


# --------------------------------------------------------------------------- counting


def win_at(data: Data, edges: tuple[Edge, ...]) -> int:
    """The face a die must show for a character with these edges (both at once cancel)."""
    adv = any(e.kind == "advantage" for e in edges)
    dis = any(e.kind == "disadvantage" for e in edges)
    if adv and not dis:
        return data.edge.advantage_win_at
    if dis and not adv:
        return data.edge.disadvantage_win_at
    return data.dice.win_at


def wins(pool: Pool, at: int) -> int:
    """Wins among the dice still in the pool when a die wins on ``at``+."""
    return sum(1 for f in pool.kept if f >= at)


def vl(data: Data, rnd: Round, pool: Pool) -> int:
    """Victory levels of a kept pool now: its wins under its owner's edges."""
    return wins(pool, win_at(data, rnd.edges_of(pool.owner)))


def assist_vl(rules: Rules, state: Encounter, rnd: Round, who: str) -> int:
    """VL of the assist rolls of living allies who declared to help ``who``."""
    total = 0
    for plan in rnd.plans:
        helper = state.tokens.get(plan.actor)
        pool = rnd.main_pool(plan.actor)
        if plan.action == "assist" and plan.target == who and pool is not None \
                and helper is not None and helper.alive:
            total += vl(rules.data, rnd, pool)
    return total


def dodge_vl(rules: Rules, state: Encounter, rnd: Round, who: str) -> int:
    """VL of ``who``'s declared dodge, once rolled (0 without one)."""
    plan, pool = rnd.plan(who), rnd.main_pool(who)
    if plan is None or plan.action != "dodge" or pool is None:
        return 0
    return vl(rules.data, rnd, pool)


# --------------------------------------------------------------------------- edges


def gain_edge(rules: Rules, ctx: Resolution, token: Token,
              kind: Literal["advantage", "disadvantage"], why: str) -> None:
    """``token`` gains advantage or disadvantage for the round: its rolled pools change now."""
    data = rules.data
    rnd = rules.round_of(ctx.state)
    new = replace(rnd, edges=(*rnd.edges, Edge(token.id, kind, why)))
    old_at, new_at = win_at(data, rnd.edges_of(token.id)), win_at(data, new.edges_of(token.id))
    note = f"{token.name} gains {kind} ({why})"
    pools = rnd.pools_of(token.id)
    if new_at == old_at:
        other = any(e.kind != kind for e in rnd.edges_of(token.id))
        note += ("; advantage and disadvantage cancel out" if other else
                 f"; a die still wins on {new_at}+") + (": no rolled die changes" if pools else "")
    elif not pools:
        note += f"; a die wins on {new_at}+ this round (no pool rolled)"
    else:
        parts = []
        for pool in pools:
            turned = [f for f in pool.kept if (f >= old_at) != (f >= new_at)]
            up = [f for f in turned if f >= new_at]
            down = [f for f in turned if f < new_at]
            change = []
            if down:
                change.append(f"{plural(len(down), 'win')} turn to fails ({faces(down)})")
            if up:
                change.append(f"{plural(len(up), 'fail')} turn to wins ({faces(up)})")
            parts.append(f"{pool.stat} pool {', '.join(change) or 'no die changes'}: "
                         f"VL {wins(pool, old_at)} → {wins(pool, new_at)}")
        note += f"; a die now wins on {new_at}+: " + "; ".join(parts)
    rules.set_round(ctx, new, note)


# --------------------------------------------------------------------------- injury


def injure(rules: Rules, ctx: Resolution, token: Token, damage: int, why: str) -> None:
    """Damage: hit points, dice struck out of the kept pool from the left, and death."""
    data = rules.data
    new_hp = token.hp - damage
    ctx.emit(HpChanged(token.id, token.hp, new_hp, why))
    lost = damage // data.injury.damage_per_die
    rnd = rules.round_of(ctx.state)
    pools = rnd.pools_of(token.id)
    if lost and pools:
        pool = rnd.main_pool(token.id) or pools[0]
        n = min(lost, len(pool.kept))
        if n:
            out = pool.kept[:n]
            new = replace(pool, lost=pool.lost + n)
            at = win_at(data, rnd.edges_of(token.id))
            rules.set_round(ctx, rnd.with_pool(pool, new),
                            f"{token.name} loses {plural(n, 'die', 'dice')} to injury "
                            f"({damage} damage, one die per {data.injury.damage_per_die}), "
                            f"from the left of the {pool.stat} pool: {faces(out)} struck out; "
                            f"VL {wins(pool, at)} → {wins(new, at)}")
        else:
            ctx.emit(Said(f"{token.name}'s {pool.stat} pool has no dice left to lose",
                          token.id))
    drop(rules, ctx, token)


def drop(rules: Rules, ctx: Resolution, token: Token) -> None:
    """At the dead-at hit points ``token`` dies and, in combat, leaves the RFX order."""
    if token.hp > rules.data.hp.dead_at or not token.alive:
        return
    ctx.emit(ConditionChanged(token.id, DEAD, True))
    why = f"{token.name} drops at {token.hp} HP and is out of the fight"
    if isinstance(ctx.state.schedule, Round):
        rules.leave(ctx, token, why)
    else:
        ctx.emit(Said(why, token.id))


# --------------------------------------------------------------------------- strikes


def second_target(rnd: Round, attacker: Token, target: Token, kind: Kind,
                  weapon: Weapon) -> bool:
    """True when ``target`` is a prone opponent engaged as a later target of a melee attack:
    "you engage a prone opponent as your second target with a melee weapon" (advantage)."""
    return kind == "attack" and weapon.kind == "melee" and PRONE in target.conditions \
        and bool(rnd.targets_of(attacker.id)) and target.id not in rnd.targets_of(attacker.id)


def strike(rules: Rules, ctx: Resolution, attacker: Token, target: Token, pool: Pool,
           kind: Kind, weapon: Weapon, how: str) -> None:
    """One attack or knock-down of ``attacker`` on ``target`` with the kept ``pool``."""
    data, state = rules.data, ctx.state
    rnd = rules.round_of(state)
    own, helps = vl(data, rnd, pool), assist_vl(rules, state, rnd, attacker.id)
    defence, dodge = rules.stat(target, "defence"), dodge_vl(rules, state, rnd, target.id)
    net = own + helps - defence - dodge
    sums = f"VL {own}" + (f" + assist {helps}" if helps else "") + f" − Defence {defence}" \
        + (f" − dodge {dodge}" if dodge else "") + f" = net {net}"
    if kind == "knock_down":
        if net >= data.knock_down.at_vl and PRONE in target.conditions:
            # Already down: nothing to gain (and undo must not lift the old prone).
            ctx.emit(Said(f"{attacker.name} keeps {target.name} down ({sums}): already prone",
                          attacker.id))
        elif net >= data.knock_down.at_vl:
            ctx.emit(Said(f"{attacker.name} knocks {target.name} down ({sums})", attacker.id))
            ctx.emit(condition_change(target, PRONE, True))
            gain_edge(rules, ctx, target, "disadvantage", f"knocked prone by {attacker.name}")
        else:
            ctx.emit(Said(f"{attacker.name} fails to knock {target.name} down ({sums})",
                          attacker.id))
        return
    if net < data.attack.hit_at:
        ctx.emit(Said(f"{attacker.name} {how} misses {target.name} ({sums})", attacker.id))
        return
    damage = net * weapon.damage
    ctx.emit(Said(f"{attacker.name} {how} hits {target.name} ({sums}): {net} × "
                  f"{weapon.damage} = {damage} damage", attacker.id))
    injure(rules, ctx, target, damage, f"{attacker.name}'s {weapon.name}")
    target = state.tokens[target.id]
    if net >= data.attack.stagger_at and target.alive:
        if STAGGERED not in target.conditions:
            ctx.emit(condition_change(target, STAGGERED, True))
        gain_edge(rules, ctx, target, "disadvantage", f"staggered by {attacker.name}")


# --------------------------------------------------------------------------- odds


def strike_odds(rules: Rules, state: Encounter, attacker: Token, target: Token, kind: Kind,
                weapon: Weapon, pool: Pool | None, size: int, prone: bool) -> Odds:
    """Exact chances of a strike: with the kept ``pool`` once rolled, else ``size`` dice.

    Also how a late disadvantage would change them: the VL distribution both ways.
    """
    data = rules.data
    sides = data.dice.sides
    rnd = state.schedule if isinstance(state.schedule, Round) else None
    edges = rnd.edges_of(attacker.id) if rnd is not None else ()
    if pool is None and prone:
        edges = (*edges, Edge(attacker.id, "disadvantage", "prone"))
    if rnd is not None and pool is not None and second_target(rnd, attacker, target, kind,
                                                         weapon):
        edges = (*edges, Edge(attacker.id, "advantage", "prone second melee target"))
    # A late disadvantage cancels an advantage held (win_at), as it would at the table.
    at = win_at(data, edges)
    late_at = win_at(data, (*edges, Edge(attacker.id, "disadvantage", "late")))
    if rnd is not None and pool is not None:
        now = odds.Distribution.constant(wins(pool, at))
        late = odds.Distribution.constant(wins(pool, late_at))
    else:
        now = odds.successes(size, sides, at)
        late = odds.successes(size, sides, late_at)
    helps = assist_vl(rules, state, rnd, attacker.id) if rnd is not None else 0
    dodge = dodge_vl(rules, state, rnd, target.id) if rnd is not None else 0
    against = rules.stat(target, "defence") + dodge - helps
    need = data.knock_down.at_vl if kind == "knock_down" else data.attack.hit_at
    spreads = (Spread(f"VL, a die wins on {at}+", now.items()),
               Spread(f"VL after a late disadvantage ({late_at}+)", late.items()))
    also = (("Chance with a late disadvantage", late.at_least(against + need)),)
    success = now.at_least(against + need)
    drop_at = target.hp - data.hp.dead_at
    miss = -1

    def outcome(against: int) -> tuple[float, tuple[tuple[int, float], ...], float]:
        """Success, damage table on success and chance to drop against ``against``."""
        chance = now.at_least(against + need)
        if kind == "knock_down":
            return chance, (), 0.0

        def damage(v: int) -> int:
            return (v - against) * weapon.damage if v - against >= need else miss

        spread = now.map(damage).items()
        drop = sum(p for d, p in spread if d != miss and d >= drop_at)
        table = tuple((d, p / chance) for d, p in spread if d != miss) if chance else ()
        return chance, table, drop

    success, table, drop = outcome(against)
    said: tuple[Reaction, ...] = ()
    plan = rnd.plan(target.id) if rnd is not None else None
    if plan is not None and plan.action == "dodge":
        if dodge:  # rolled: counted above; without it the defence is lower
            bare, _, bare_drop = outcome(against - dodge)
            said = (Reaction(f"{target.name}'s declared dodge takes {dodge} VL off this "
                             "attack, counted in the odds above", bare,
                             None if kind == "knock_down" else bare_drop),)
        else:
            said = (Reaction(f"{target.name} declared a dodge, not rolled yet: its VL will "
                             "be taken off this attack (not counted above)"),)
    return Odds(success, table, drop, chances=also, spreads=spreads,
                spread_axis="victory levels", reactions=said)
