"""The opposed roll: attack dice + SL against defence dice + SL (+ a shield's die), damage,
armour, and the exact odds of all of it.

``Strike`` is an attack worked out before any die is thrown; execute and preview share
it, so the odds card and the dice always agree. Rolling it needs the ruleset only for
the health rules (``Rules.harm``), declared below as a Protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from tacmap.api import ConditionChanged, Odds, Resolution, Said, Token, odds

from .data import Flourish, Weapon

STUNNED = "stunned"

#: Dice as (count, sides); (0, 0) is no dice.
DiceSet = tuple[int, int]


def dice_text(d: DiceSet) -> str:
    """``2d6``; no dice: ``0``."""
    return f"{d[0]}d{d[1]}" if d[0] else "0"


def plus(n: int) -> str:
    """`` + 2`` / `` − 1`` / ``""``."""
    return f" + {n}" if n > 0 else f" − {-n}" if n < 0 else ""


@dataclass(frozen=True)
class Strike:
    """An attack worked out before any die is thrown."""

    attacker: str
    defender: str
    weapon: Weapon
    flourish: Flourish | None
    attack: DiceSet
    attack_flat: int
    attack_text: str
    """How the attack adds up: "2d6 + 1 (Novice sword SL 1)"."""
    defends: bool
    """False: the defender cannot roll defence (stunned, a surprise ranged attack)."""
    why_not: str
    defence: DiceSet
    defence_flat: int
    shield: DiceSet
    defence_text: str
    can_crit: bool
    damage: DiceSet
    crit_damage: DiceSet
    damage_flat: int
    damage_text: str
    crit_text: str
    crit_said: str
    """What the log says a critical's damage rolls ("damage rolls the next tier's dice")."""
    armour: DiceSet
    armour_text: str
    stun: bool
    bonus: int
    bonus_why: str
    crit_roll: bool = False
    """The defender cannot defend, yet its defence is rolled to judge a critical (house rule
    ``surprise_criticals = "allowed"``): the hit stands, double the defence is a critical."""


class Rules(Protocol):
    """What rolling a strike asks of the ruleset: the health rules."""

    def harm(self, ctx: Resolution, token: Token, amount: int, why: str) -> None: ...


def roll_strike(rules: Rules, ctx: Resolution, s: Strike, label: str) -> bool:
    """Roll ``s``: attack against defence, damage less armour. Returns True on a hit."""
    state = ctx.state
    attacker, defender = state.tokens[s.attacker], state.tokens[s.defender]
    a = ctx.roll(attacker.id, s.attack[0], s.attack[1],
                 f"{label} on {defender.name}: {s.attack_text}")
    atk = a.total + s.attack_flat
    if s.defends:
        d = ctx.roll(defender.id, s.defence[0], s.defence[1],
                     f"defence against {attacker.name}: {s.defence_text}")
        dfn = d.total + s.defence_flat
        if s.shield[0]:
            dfn += ctx.roll(defender.id, s.shield[0], s.shield[1],
                            f"shield die {dice_text(s.shield)}").total
        hit = atk > dfn
        crit = hit and s.can_crit and atk >= 2 * dfn
        tally = f"attack {atk} against defence {dfn}"
        if not hit:
            why = " (a tie goes to the defender)" if atk == dfn else ""
            ctx.emit(Said(f"{defender.name} defends: {tally}{why}", defender.id))
            return False
    elif s.crit_roll:
        d = ctx.roll(defender.id, s.defence[0], s.defence[1],
                     f"defence, for a critical only: {s.defence_text}")
        dfn = d.total + s.defence_flat
        crit, tally = atk >= 2 * dfn, f"attack {atk} against defence {dfn}, {s.why_not}"
    else:
        crit, tally = False, f"attack {atk}, {s.why_not}"
    if crit:
        ctx.emit(Said(f"critical: {tally}, at least double: {s.crit_said}", attacker.id))
    else:
        ctx.emit(Said(f"{label} hits: {tally}", attacker.id))
    dice = s.crit_damage if crit else s.damage
    dmg = ctx.roll(attacker.id, dice[0], dice[1],
                   f"damage: {s.crit_text if crit else s.damage_text}")
    total = max(0, dmg.total + s.damage_flat)
    soak = 0
    if s.armour[0]:
        soak = ctx.roll(defender.id, s.armour[0], s.armour[1],
                        f"armour: {s.armour_text}").total
    taken = max(0, total - soak)
    sums = f"{total} damage − {soak} armour = {taken}" if s.armour[0] else f"{total} damage"
    if taken:
        rules.harm(ctx, defender, taken, f"{attacker.name}'s {s.weapon.name}: {sums}")
    else:
        ctx.emit(Said(f"{defender.name}'s armour takes it all: {sums}", defender.id))
    if s.stun and STUNNED not in defender.conditions and defender.alive:
        ctx.emit(ConditionChanged(defender.id, STUNNED, True))
        ctx.emit(Said(f"{defender.name} is stunned for the rest of the round: "
                      "no defence rolls", defender.id))
    return True


def _sum(d: DiceSet, flat: int = 0) -> odds.Distribution:
    return odds.dice(d[0], d[1]) + flat


def strike_odds(s: Strike, health: int) -> Odds:
    """Exact chances: the opposed roll won (a critical among them), damage after armour,
    the target falls (Health 0 or below)."""
    # Only the dice and numbers count: the same strike's odds are worked out once (a
    # forecast asks for them thousands of times; each costs a millisecond of icepool).
    key = (s.attack, s.attack_flat, s.defends, s.defence, s.defence_flat, s.shield,
           s.can_crit, s.damage, s.crit_damage, s.damage_flat, s.armour, s.crit_roll, health)
    found = _ODDS.get(key)
    if found is None:
        if len(_ODDS) >= 4096:
            _ODDS.clear()
        found = _ODDS[key] = _work_out(s, health)
    return found


_ODDS: dict[tuple[object, ...], Odds] = {}


def _work_out(s: Strike, health: int) -> Odds:
    atk = _sum(s.attack, s.attack_flat)
    if s.defends or s.crit_roll:
        dfn = _sum(s.defence, s.defence_flat)
        if s.shield[0] and s.defends:  # no shield die in a defence rolled for a critical
            dfn = dfn + _sum(s.shield)
        a_items = atk.items()
        win = crit = 0.0
        for d, pd in dfn.items():
            # A surprise shot with criticals allowed: the hit stands, the defence rolled
            # only to judge a critical.
            beat = 1.0 if s.crit_roll else sum(p for a, p in a_items if a > d)
            double = sum(p for a, p in a_items if (a > d or s.crit_roll) and a >= 2 * d) \
                if s.can_crit else 0.0
            win += pd * beat
            crit += pd * double
        win = 1.0 if s.crit_roll else win
    else:
        win, crit = 1.0, 0.0
    normal = win - crit
    spread: dict[int, float] = {}
    for weight, dice in ((normal, s.damage), (crit, s.crit_damage)):
        if weight <= 0:
            continue
        for dmg, p in _after_armour(s, dice).items():
            spread[dmg] = spread.get(dmg, 0.0) + weight * p
    table = tuple((d, p / win) for d, p in sorted(spread.items())) if win > 0 else ()
    drop = sum(p for d, p in spread.items() if d >= health)
    return Odds(win, table, drop, chances=(("Chance of a critical (at least double)", crit),))


def _after_armour(s: Strike, dice: DiceSet) -> odds.Distribution:
    dmg = _sum(dice).map(_floor(s.damage_flat))
    if not s.armour[0]:
        return dmg
    armour = _sum(s.armour)
    return dmg.map(lambda x: armour.map(lambda a: max(0, x - a)))


def _floor(flat: int) -> Callable[[int], int]:
    return lambda x: max(0, x + flat)
