"""Prepared actions and reaction abilities: what waits for someone else's action, and fires.

A prepared action ("if Brak attacks me, I will dodge") lives in
``token.values["prepared"]`` until it fires or lapses as its owner's next turn
begins; a reaction ability fires by itself, at most ``per_round`` times a
round (``token.values["used"]``). Reactions make attacks, and attacks set off
reactions, so this module asks the ruleset (``Rules``, which rules.py's
``ActionPool`` is) for the attack and the turn, rather than importing rules.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from tacmap.api import (
    Act,
    Cell,
    ConditionChanged,
    Encounter,
    OrderedTurns,
    Resolution,
    RuleError,
    Said,
    Token,
    ValueChanged,
    article,
    condition_change,
    plural,
    reach_crossing,
)

from .data import ANY, Ability, Data, Weapon

PREPARED = "prepared"


@dataclass(frozen=True)
class Prepared:
    """One prepared action: "if <by> <trigger> [with <weapon>], I will <do>"."""

    do: str
    """"dodge", "attack" or an action ability's key."""
    trigger: str
    by: str
    """Token id whose action sets it off."""
    weapon: str = ANY
    """For a dodge: only an attack with this weapon (``ANY`` for any)."""
    uses: int = 1
    detail: str = ""
    """What an action past the attack needs (readied.py): whom, where, the words."""

    def value(self) -> tuple[str, str, str, str, int] | tuple[str, str, str, str, int, str]:
        """The entry kept in ``values["prepared"]`` (a sixth item only when there is a detail,
        so files saved before it read the same)."""
        head = (self.do, self.trigger, self.by, self.weapon, self.uses)
        return (*head, self.detail) if self.detail else head


@dataclass(frozen=True)
class Dodge:
    """AC a defender gains against one attack, and where it comes from."""

    ac: int
    prepared: int
    """Index in the defender's prepared actions, or -1 for a reaction ability."""
    ability: Ability | None
    label: str


@dataclass(frozen=True)
class Strike:
    """An attack worked out before any die is thrown (shared by execute and preview)."""

    attacker: str
    defender: str
    weapon: Weapon
    ability: Ability | None
    pool: int
    proficiency: int
    ac: int
    dodge: Dodge | None
    dt: int
    dt_text: str
    damage_dice: int
    """Damage dice on top of the margin: weapon proficiency plus any ability's."""
    flat: int
    flat_text: str
    discard: int


class Rules(Protocol):
    """What reactions ask of the ruleset: its tables, a token's numbers, the turn, attacks."""

    data: Data
    triggers: dict[str, str]

    def stat(self, token: Token, name: str) -> int: ...
    def weapon_in_hand(self, token: Token) -> Weapon: ...
    def abilities_of(self, token: Token, kind: str = "") -> list[Ability]: ...
    def pool_size(self, token: Token) -> int: ...
    def reach_rule(self, state: Encounter) -> str: ...
    def refill_pool(self, ctx: Resolution, token: Token, why: str) -> None: ...
    def turns(self, state: Encounter) -> OrderedTurns: ...
    def who(self, state: Encounter, token_id: str | None) -> str: ...
    def acting(self, state: Encounter, actor: str) -> Token: ...
    def spend(self, ctx: Resolution, token: Token, n: int, what: str) -> None: ...
    def strike(self, state: Encounter, attacker: Token, defender: Token, weapon_key: str,
               ability: Ability | None, check_reach: bool = True) -> Strike: ...
    def do_strike(self, ctx: Resolution, s: Strike, reaction: bool) -> None: ...
    def readied_entry(self, state: Encounter, token: Token, by: Token, tail: str,
                      detail: str) -> Prepared: ...
    def readied_text(self, state: Encounter, p: Prepared) -> str: ...
    def readied_fire(self, ctx: Resolution, reactor: Token, other: Token, index: int) -> None: ...


def strikes(rules: Rules, p: Prepared) -> bool:
    """Whether the prepared action is an attack: a basic one, or an attacking ability."""
    ability = rules.data.abilities.get(p.do)
    return p.do == "attack" or (ability is not None and ability.kind == "action"
                                and ability.effect == "attack")


def prepared_of(token: Token) -> list[Prepared]:
    """The prepared actions in ``token.values``, oldest first."""
    # Entries the GM mangled by hand are skipped rather than crashing every action.
    out = []
    entries = token.values.get(PREPARED)
    for entry in entries if isinstance(entries, tuple) else ():
        if isinstance(entry, tuple) and len(entry) in (5, 6) and isinstance(entry[4], int):
            out.append(Prepared(str(entry[0]), str(entry[1]), str(entry[2]), str(entry[3]),
                                entry[4], str(entry[5]) if len(entry) == 6 else ""))
    return out


def used_of(token: Token) -> list[tuple[str, int, int]]:
    """Reaction abilities ``token`` used: (ability, round, times)."""
    entries = token.values.get("used")
    return [(str(e[0]), int(e[1]), int(e[2]))
            for e in (entries if isinstance(entries, tuple) else ())
            if isinstance(e, tuple) and len(e) == 3
            and isinstance(e[1], int) and isinstance(e[2], int)]


def prepared_text(rules: Rules, state: Encounter, p: Prepared) -> str:
    """"if Brak attacks me with an axe, I will dodge": the log's and the panels' words."""
    by = state.tokens[p.by].name if p.by in state.tokens else p.by
    what = rules.triggers.get(p.trigger, p.trigger)
    weapon = rules.data.weapons.get(p.weapon)
    with_ = f" with {article(weapon.name)}" if weapon else ""
    if p.do == "dodge":
        response = "dodge"
    elif p.do == "attack":
        response = f"attack {by}"
    elif strikes(rules, p):
        response = f"use {rules.data.abilities[p.do].name} on {by}"
    else:
        response = rules.readied_text(state, p)
    return f"if {by} {what}{with_}, I will {response}"


def lapse(rules: Rules, ctx: Resolution, token: Token, why: str = "") -> None:
    """Prepared actions last "until your next turn": they lapse as it begins.

    ``why`` names another reason they lapse (their owner dropped out of the fight).
    """
    prepared = prepared_of(token)
    if not prepared:
        return
    texts = "; ".join(f'"{prepared_text(rules, ctx.state, p)}"' for p in prepared)
    reason = why or f"as {token.name}'s turn begins"
    ctx.emit(ValueChanged(token.id, PREPARED, token.values[PREPARED], None,
                          f"lapses {reason}: {texts}"))
    if PREPARED in token.conditions:
        ctx.emit(condition_change(token, PREPARED, False))


def movement_reactions(rules: Rules, ctx: Resolution, mover_id: str,
                       cells: Sequence[Cell]) -> None:
    """Prepared attacks and reaction abilities set off by a move, in path order."""
    state = ctx.state
    mover = state.tokens[mover_id]
    rule = rules.reach_rule(state)
    found: list[tuple[int, int, str, str]] = []
    for order, other in enumerate(state.tokens.values()):
        if other.side == mover.side or not other.alive:
            continue
        waiting = {p.trigger for p in prepared_of(other) if p.by == mover_id}
        waiting |= {a.trigger for a in rules.abilities_of(other, "reaction")}
        if not waiting & {"leaves_reach", "enters_reach"}:
            continue
        reach = rules.weapon_in_hand(other).reach
        # A path may come within reach and leave it again: both are triggers. The
        # engine's reach_crossing is the one the move preview warns by.
        entered, left = reach_crossing(rule, cells, mover, other, reach)
        if entered is None:
            continue
        if entered > 0 and "enters_reach" in waiting:
            found.append((entered, order, other.id, "enters_reach"))
        if left is not None and "leaves_reach" in waiting:
            found.append((left, order, other.id, "leaves_reach"))
    for _, _, other_id, trigger in sorted(found):
        # The mover was within reach at that step of the path: no reach check.
        react(rules, ctx, other_id, mover_id, trigger, check_reach=False)


def find_dodge(rules: Rules, state: Encounter, defender: Token, attacker: Token,
               weapon: Weapon) -> Dodge | None:
    """The dodge ``defender`` has ready against this attack: a prepared one first."""
    for i, p in enumerate(prepared_of(defender)):
        if p.do == "dodge" and p.by == attacker.id and p.weapon in (ANY, weapon.key):
            prep = rules.data.prepare
            stat = rules.stat(defender, prep.dodge_stat)
            ac = stat // prep.dodge_divisor
            how = f"{prep.dodge_stat.upper()} {stat} ÷ {prep.dodge_divisor}"
            return Dodge(ac, i, None, f"(prepared dodge: {how})")
    for ability in rules.abilities_of(defender, "reaction"):
        if ability.effect == "dodge" and ready(state, defender, ability):
            return Dodge(ability.ac, -1, ability, ability.name)
    return None


def ready(state: Encounter, token: Token, ability: Ability) -> bool:
    """Whether ``token`` may still use the reaction ``ability`` this round."""
    if ability.per_round == 0:
        return True
    for key, rnd, times in used_of(token):
        if key == ability.key and rnd == state.round:
            return times < ability.per_round
    return True


def mark_reacted(rules: Rules, ctx: Resolution, token: Token) -> None:
    """A reaction roll drained the pool: it refills "at that point" (``pool.reaction_refill``).

    "at_once": CON dice come back now. "end_of_turn": the token is marked and
    refills when the current turn ends.
    """
    if rules.data.pool.reaction_refill == "at_once":
        rules.refill_pool(ctx, token, "reaction roll")
        return
    if not token.values.get("reacted"):
        current = rules.who(ctx.state, rules.turns(ctx.state).current)
        ctx.emit(ValueChanged(token.id, "reacted", token.values.get("reacted"), True,
                              f"rolled as a reaction: the pool refills when {current}'s "
                              "turn ends"))


def mark_used(ctx: Resolution, token: Token, ability: Ability) -> None:
    """Count one use of a reaction ability this round."""
    rnd = ctx.state.round
    others = [u for u in used_of(token) if u[0] != ability.key]
    times = next((t for k, r, t in used_of(token)
                  if k == ability.key and r == rnd), 0) + 1
    new = (*others, (ability.key, rnd, times))
    limit = f", {times} of {ability.per_round} this round" if ability.per_round else ""
    ctx.emit(ValueChanged(token.id, "used", token.values.get("used"), tuple(new),
                          f"{ability.name} used{limit}"))


def fire_dodge(rules: Rules, ctx: Resolution, defender: Token, attacker: Token,
               dodge: Dodge) -> None:
    """Say the dodge answers this attack; a reaction ability's is used up.

    A prepared dodge is not spent: it holds against every attack matching the
    declaration "until your next turn", when it lapses.
    """
    if dodge.ability is None:
        p = prepared_of(defender)[dodge.prepared]
        text = prepared_text(rules, ctx.state, p)
        ctx.emit(Said(f'{defender.name}\'s prepared action fires: "{text}": '
                      f"+{dodge.ac} AC against this attack (until "
                      f"{defender.name}'s next turn)", defender.id))
        return
    ability = dodge.ability
    ctx.emit(Said(f"{defender.name} reacts with {ability.name}: +{dodge.ac} AC against "
                  f"{attacker.name}'s attack", defender.id))
    mark_used(ctx, defender, ability)
    if ability.discard:
        old = rules.pool_size(defender)
        new = max(0, old - ability.discard)
        if new != old:
            ctx.emit(ValueChanged(defender.id, "pool", defender.values.get("pool"), new,
                                  f"{plural(old - new, 'die', 'dice')} discarded for "
                                  f"{ability.name}"))


def spend_prepared(ctx: Resolution, token: Token, prepared: list[Prepared],
                   index: int, what: str) -> None:
    """One use of ``prepared[index]`` is spent; the last use removes it."""
    p = prepared[index]
    rest = [*prepared[:index], *([replace(p, uses=p.uses - 1)] if p.uses > 1 else []),
            *prepared[index + 1:]]
    new = tuple(x.value() for x in rest) or None
    ctx.emit(ValueChanged(token.id, PREPARED, token.values.get(PREPARED), new,
                          f"{what} is used"))
    if new is None and PREPARED in token.conditions:
        ctx.emit(condition_change(token, PREPARED, False))


def react(rules: Rules, ctx: Resolution, reactor_id: str, trigger_id: str, trigger: str,
          check_reach: bool) -> None:
    """One reaction by ``reactor_id`` to ``trigger_id`` doing ``trigger``, if any waits.

    Reactions never set off further reactions, so a chain cannot run away;
    a dodge still applies to a reaction attack.
    """
    state = ctx.state
    reactor, mover = state.tokens.get(reactor_id), state.tokens.get(trigger_id)
    if reactor is None or mover is None or not reactor.alive or not mover.alive:
        return
    prepared = prepared_of(reactor)
    for i, p in enumerate(prepared):
        if p.do == "dodge" or p.trigger != trigger or p.by != trigger_id:
            continue
        if not strikes(rules, p):
            rules.readied_fire(ctx, reactor, mover, i)
            return
        ability = rules.data.abilities.get(p.do)
        text = prepared_text(rules, state, p)
        try:
            strike = rules.strike(state, reactor, mover, "", ability, check_reach)
        except RuleError as err:
            ctx.emit(Said(f'{reactor.name} cannot follow through on "{text}": {err}',
                          reactor.id))
            return
        ctx.emit(Said(f'{reactor.name}\'s prepared action fires: "{text}"', reactor.id))
        spend_prepared(ctx, reactor, prepared, i, "the prepared action")
        rules.do_strike(ctx, strike, reaction=True)
        return
    for ability in rules.abilities_of(reactor, "reaction"):
        if ability.effect != "attack" or ability.trigger != trigger \
                or not ready(state, reactor, ability):
            continue
        try:
            strike = rules.strike(state, reactor, mover, "", ability, check_reach)
        except RuleError:
            continue  # a reflex that cannot land (out of reach, no sight) simply does not fire
        ctx.emit(Said(f'{reactor.name} reacts with {ability.name}: "when '
                      f'{mover.name} {rules.triggers[trigger]}"', reactor.id))
        mark_used(ctx, reactor, ability)
        rules.do_strike(ctx, strike, reaction=True)
        return


def prepare(rules: Rules, ctx: Resolution, cmd: Act, tail: str) -> None:
    """The prepare action: "if <target> <trigger>, I will <do>" (``tail``: do[:trigger])."""
    state = ctx.state
    token = rules.acting(state, cmd.actor)
    spec = tail or cmd.detail
    parts = [p.strip() for p in spec.split(":")] if spec.strip() else []
    if not parts:
        raise RuleError("say what to prepare: prepare:dodge, prepare:attack:TRIGGER, "
                        "prepare:ABILITY:TRIGGER, prepare:move:TRIGGER, prepare:skill:TRIGGER, "
                        "prepare:generic:TRIGGER or prepare:wield:WEAPON:TRIGGER (triggers: "
                        f"{', '.join(rules.triggers)})")
    do = parts[0]
    if not cmd.target:
        raise RuleError("a prepared action waits for someone: name them as the target")
    by = state.token(cmd.target)
    if by.id == token.id:
        raise RuleError(f"{token.name} cannot prepare against their own actions")
    if not by.alive:
        raise RuleError(f"{by.name} is down")
    if by.side == token.side:
        raise RuleError(f"{by.name} is on {token.name}'s side")
    uses = rules.data.prepare.uses
    if do == "dodge":
        weapon = (parts[1] if len(parts) > 1 else (cmd.detail.strip() if tail else "")) or ANY
        if weapon != ANY and weapon not in rules.data.weapons:
            raise RuleError(f"there is no weapon {weapon!r} to dodge")
        entry = Prepared(do, "attacks", by.id, weapon, uses)
    elif strikes(rules, Prepared(do, "", by.id)):
        ability = rules.data.abilities.get(do)
        if ability is not None and ability not in rules.abilities_of(token):
            raise RuleError(f"{token.name} does not have {ability.name}")
        trigger = parts[1] if len(parts) > 1 else (cmd.detail.strip() if tail else "")
        if trigger not in rules.triggers:
            raise RuleError(f"say what sets it off: {', '.join(rules.triggers)}")
        entry = Prepared(do, trigger, by.id, ANY, uses)
    else:
        # "Other actions can be prepared": any action of the turn (readied.py).
        entry = rules.readied_entry(state, token, by, spec, cmd.detail if tail else "")
    prepared = prepared_of(token)
    if any(replace(p, uses=entry.uses) == entry for p in prepared):
        raise RuleError(f'{token.name} has already prepared "'
                        f'{prepared_text(rules, state, entry)}"')
    rules.spend(ctx, token, rules.data.costs.prepare, "preparing")
    text = prepared_text(rules, state, entry)
    ctx.emit(ValueChanged(token.id, PREPARED, token.values.get(PREPARED),
                          tuple(p.value() for p in (*prepared, entry)), text))
    if PREPARED not in token.conditions:
        ctx.emit(ConditionChanged(token.id, PREPARED, True))

