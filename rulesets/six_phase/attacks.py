"""Attacks: melee, ranged and spell, with attack types, hit locations and exact odds.

"When you attack someone, the target number is your relevant attack target plus
the enemy's Defense. If the roll is equal or higher than the target, it's a
hit. Damage is equal to the margin of success, plus any modifiers. A
successful attack always does at least 1 damage."
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from tacmap.api import Encounter, Odds, Resolution, RuleError, Said, Token, ValueChanged, odds

from .data import Data, Weapon
from .round import Plan

#: The stat each kind of attack is made with: "Melee attacks are made using Dexterity",
#: "Ranged attacks are made using Instinct", "Spell attacks are made using Intelligence".
STAT = {"melee": "dex", "shoot": "ins", "cast": "int"}
KIND = {"melee": "melee", "shoot": "ranged", "cast": "spell"}


class Rules(Protocol):
    """What attacks need of the ruleset."""

    data: Data

    def stat(self, token: Token, key: str) -> Any: ...
    def dist(self, cells: float) -> str: ...
    def target_of(self, state: Encounter, plan: Plan) -> Token: ...
    def melee_weapon(self, token: Token) -> Weapon: ...
    def ranged_weapon(self, token: Token) -> Weapon | None: ...
    def melee_defense(self, token: Token) -> int: ...
    def ranged_defense(self, token: Token) -> int: ...
    def gap(self, state: Encounter, a: Token, b: Token) -> float: ...
    def sees(self, state: Encounter, a: Token, b: Token) -> bool: ...
    def disadvantages(self, state: Encounter, token: Token, against: Token | None,
                      kind: str) -> list[str]: ...
    def notches(self, token: Token) -> dict[str, int]: ...
    def add_notch(self, ctx: Resolution, token: Token, item: str, why: str) -> None: ...
    def hurt(self, ctx: Resolution, token: Token, amount: int, location: str,
             why: str) -> None: ...
    def wound(self, ctx: Resolution, token: Token, location: str, until: int,
              why: str) -> None: ...


@dataclass(frozen=True)
class AttackSpec:
    """An attack worked out before the die is read."""

    key: str
    """``melee``, ``shoot`` or ``cast``."""
    weapon: Weapon
    """The weapon or spell."""
    item: str
    """What takes a Notch on a fumble (the weapon, or the caster's focus)."""
    kind: str
    """``melee``, ``ranged`` or ``spell`` (the attack-type list it draws from)."""
    type: str
    location: str
    target_number: int
    """Attack target plus Defense (plus the range band), or the attack target alone."""
    bonus: int
    """Damage modifiers: melee damage bonus, the weapon's own, less its Notches."""
    notes: tuple[str, ...]
    disadvantage: tuple[str, ...]
    """Why the roll has disadvantage (empty: it has none)."""


def split_detail(detail: str, parts: int) -> list[str]:
    """``"swing/head"`` → ``["swing", "head"]``; missing parts are ``""``."""
    bits = [b.strip() for b in detail.split("/")] if detail else []
    return (bits + [""] * parts)[:parts]


def spec(rules: Rules, state: Encounter, plan: Plan) -> AttackSpec:
    """The numbers of ``plan``'s attack now; RuleError when it cannot be made."""
    token = state.token(plan.who)
    target = rules.target_of(state, plan)
    d = rules.data
    kind = KIND[plan.key]
    if plan.key == "cast":
        spell_key, atype, loc = split_detail(plan.detail, 3)
        if spell_key not in d.spells:
            raise RuleError(f"{token.name} knows no spell {spell_key!r}")
        known = tuple(rules.stat(token, "spells"))
        if spell_key not in known:
            raise RuleError(f"{token.name} does not know {d.spells[spell_key].name}")
        weapon: Weapon = d.spells[spell_key]
        item = "focus"
    else:
        atype, loc = split_detail(plan.detail, 2)
        if plan.key == "melee":
            weapon = rules.melee_weapon(token)
        else:
            ranged = rules.ranged_weapon(token)
            if ranged is None:
                raise RuleError(f"{token.name} has no ranged weapon")
            weapon = ranged
        item = weapon.key
    types = getattr(d.attack_types, kind)
    atype = atype or types[0]
    loc = loc or d.locations.default
    if atype not in types:
        raise RuleError(f"{atype!r} is not a {kind} attack type ({', '.join(types)})")
    if loc not in d.locations.names:
        raise RuleError(f"{loc!r} is not a hit location ({', '.join(d.locations.names)})")
    gap = rules.gap(state, token, target)
    notes: list[str] = []
    stat_key = STAT[plan.key]
    attack_target = int(rules.stat(token, stat_key))
    if kind == "melee":
        if gap > weapon.reach:
            raise RuleError(f"{token.name} is out of melee range of {target.name}")
        defense = rules.melee_defense(target)
        notes.append(f"Dexterity {attack_target} + {target.name}'s melee Defense {defense}")
    else:
        if not rules.sees(state, token, target):
            raise RuleError(f"{token.name} cannot see {target.name}")
        if gap > weapon.long:
            raise RuleError(f"{target.name} is beyond long range of the {weapon.name} "
                            f"({rules.dist(gap)}, long range {rules.dist(weapon.long)})")
        band, mod = (("short", d.attack.short) if gap <= weapon.short else
                     ("medium", d.attack.medium) if gap <= weapon.medium else
                     ("long", d.attack.long))
        base = rules.ranged_defense(target)
        defense = base + mod
        stat_name = "Intelligence" if kind == "spell" else "Instinct"
        notes.append(f"{stat_name} {attack_target} + {target.name}'s Defense {base} "
                     f"{mod:+d} at {band} range ({rules.dist(gap)})")
    if target.values.get("feinted"):
        defense = 0
        notes.append(f"{target.name} fell for a feint: its Defense is ignored")
    bonus = weapon.bonus
    if kind == "melee":
        bonus += int(rules.stat(token, "str_bonus"))
    bonus -= rules.notches(token).get(item, 0) * d.notches.damage
    dis = rules.disadvantages(state, token, target, kind)
    if token.values.get("last_type") == atype:
        dis.append(f"{atype} twice in a row")
    return AttackSpec(plan.key, weapon, item, kind, atype, loc, attack_target + defense, bonus,
                      tuple(notes), tuple(dis))


def face_chances(sides: int, disadvantage: bool) -> dict[int, Fraction]:
    """Chance of each face used: one die, or the lower of two under disadvantage."""
    if not disadvantage:
        return {f: Fraction(1, sides) for f in range(1, sides + 1)}
    # P(min = f) = ((sides - f + 1)^2 - (sides - f)^2) / sides^2
    return {f: Fraction((sides - f + 1) ** 2 - (sides - f) ** 2, sides * sides)
            for f in range(1, sides + 1)}


def hits(face: int, sides: int, target_number: int) -> bool:
    """A natural 20 always hits, a natural 1 always misses; else the face must reach the number."""
    if face == sides:
        return True
    if face == 1:
        return False
    return face >= target_number


def damage_of(rules: Rules, s: AttackSpec, face: int, rolled: int = 0) -> int:
    """Margin of success (or the damage dice) plus modifiers, at least the minimum."""
    base = rolled if s.weapon.dice_count else face - s.target_number
    return max(rules.data.attack.min_damage, base + s.bonus)


def attack_odds(rules: Rules, s: AttackSpec, target: Token) -> Odds:
    """Exact chance to hit, the damage distribution on a hit, and the chance of 0 HP."""
    sides = rules.data.round.die
    faces = face_chances(sides, bool(s.disadvantage))
    dice = (odds.dice(s.weapon.dice_count, s.weapon.dice_sides).items()
            if s.weapon.dice_count else ())
    success = Fraction(0)
    table: dict[int, Fraction] = {}
    for face, p in faces.items():
        if not hits(face, sides, s.target_number):
            continue
        success += p
        if dice:
            for rolled, q in dice:
                dmg = damage_of(rules, s, face, rolled)
                table[dmg] = table.get(dmg, Fraction(0)) + p * Fraction(q).limit_denominator(10**9)
        else:
            dmg = damage_of(rules, s, face)
            table[dmg] = table.get(dmg, Fraction(0)) + p
    if success == 0:
        return Odds(0.0)
    drop = sum((p for dmg, p in table.items() if dmg >= target.hp), Fraction(0))
    damage = tuple((dmg, float(p / success)) for dmg, p in sorted(table.items()))
    return Odds(float(success), damage, float(drop))


def perform(rules: Rules, ctx: Resolution, plan: Plan, s: AttackSpec, face: int) -> None:
    """Resolve the attack with the d20 ``face``: hit or miss, damage, crits and fumbles."""
    state = ctx.state
    token, target = state.token(plan.who), rules.target_of(state, plan)
    sides = rules.data.round.die
    ctx.emit(ValueChanged(token.id, "last_type", token.values.get("last_type"), s.type,
                          "attack type"))
    if target.values.get("feinted"):
        ctx.emit(ValueChanged(target.id, "feinted", True, None, "the feint is spent"))
    what = f"{token.name}'s {s.type} at {target.name}'s {s.location}"
    if face == 1:
        ctx.emit(Said(f"{what}: natural 1, a fumble: a mishap, and the {s.item} takes a Notch",
                      token.id))
        rules.add_notch(ctx, token, s.item, "fumble")
        return
    if not hits(face, sides, s.target_number):
        ctx.emit(Said(f"{what} misses ({face} against {s.target_number})", token.id))
        return
    rolled = 0
    if s.weapon.dice_count:
        rolled = ctx.roll(token.id, s.weapon.dice_count, s.weapon.dice_sides,
                          f"{s.weapon.name} damage").total
    amount = damage_of(rules, s, face, rolled)
    crit = face == sides
    how = "natural 20, a critical hit" if crit else f"{face} against {s.target_number}"
    ctx.emit(Said(f"{what} hits ({how}): {amount} damage", token.id))
    rules.hurt(ctx, target, amount, s.location, s.weapon.name)
    if crit and target.alive:
        until = state.round + rules.data.death.critical_wound_rounds
        rules.wound(ctx, target, s.location, until, "critical hit")
        armour = str(rules.stat(target, "armour"))
        if armour != "none":
            rules.add_notch(ctx, target, armour, "critical hit")
