"""A rules-light game of roll-under saves: every attack hits, armour takes off damage,
damage past 0 HP comes off STR and a STR save keeps the target standing, and a side
that has lost half its number checks morale. The turns are the engine's; the saves,
sides, range and sight come from tacmap.api's helpers."""

from __future__ import annotations

from collections import defaultdict

from tacmap.api import (
    DataChanged,
    Encounter,
    HpChanged,
    Manifest,
    Odds,
    Resolution,
    RuleError,
    Ruleset,
    Said,
    Token,
    TurnRuleset,
    ValueChanged,
    condition_change,
    odds,
)

from .data import Data, Weapon

#: The conditions that take a combatant out of the fight (0 HP does not: it fights on).
OUT = ("dead", "down", "fled")


class Rules(TurnRuleset[Data]):
    """Attacks that always hit, STR saves past 0 HP, and morale."""

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest, Data)
        for key in ("str", "dex", "wil", "armour"):
            self.stat_block.need(key, "int")
        for key in ("weapon", "offhand"):
            self.stat_block.need(key, "choice", among=self.data.weapons)

    def out_of_fight(self, token: Token) -> bool:
        """Dead, down (a failed STR save) or fled (a failed morale save)."""
        return any(c in token.conditions for c in OUT)

    def weapon(self, token: Token, key: str = "weapon") -> Weapon:
        """The weapon in ``token``'s hand (``offhand``: the other one)."""
        return self.data.weapons[str(self.stat_block.value(token.stats, key))]

    def dice(self, token: Token) -> tuple[int, ...]:
        """The damage dice of an attack: the weapon's, and a melee off-hand weapon's."""
        main, off = self.weapon(token), self.weapon(token, "offhand")
        return (main.die,) if main.range or off.range or off.die < 2 else (main.die, off.die)

    def aim(self, state: Encounter, token: Token, target: Token) -> str:
        """Why ``token`` cannot attack ``target`` now; "" when it can."""
        weapon = self.weapon(token)
        if weapon.range:
            cells = weapon.range / self.manifest.units.cell_size
            return self.aim_problem(state, token, target, cells, f"the {weapon.name}")
        return self.aim_problem(state, token, target, self.reach(state, token),
                                f"the {weapon.name}", ranged=False)

    def attack(self, ctx: Resolution, token: Token, target: Token, weapon: str) -> None:
        """Attack: it hits; the highest damage die, less the target's armour."""
        if target.side == token.side or self.out_of_fight(target):
            raise RuleError(f"{target.name} is not an enemy in the fight")
        problem = self.aim(ctx.state, token, target)
        if problem:
            raise RuleError(problem)
        self.spend(ctx, token, 1, f"attacks {target.name}")
        rolled = max(ctx.roll(token.id, 1, die, f"damage d{die}").total
                     for die in self.dice(token))
        self.hurt(ctx, target, max(0, rolled - self.stat(target, "armour")))

    def hurt(self, ctx: Resolution, target: Token, damage: int) -> None:
        """HP first; what is left comes off STR, then a STR save or the target is down."""
        before = max(0, target.hp)
        past = damage - before
        ctx.emit(HpChanged(target.id, target.hp, max(0, before - damage), "damage"))
        if past <= 0:
            return
        strength = max(0, self.stat(target, "str") - past)
        ctx.emit(ValueChanged(target.id, "str_lost", target.values.get("str_lost"),
                              int(str(target.values.get("str_lost", 0))) + past,
                              f"{past} STR"))
        if strength == 0:
            ctx.emit(condition_change(target, "dead", True))
        elif not ctx.save(target.id, strength, "STR save", sides=self.data.save.die):
            ctx.emit(condition_change(target, "down", True))
        if self.out_of_fight(target):
            self.morale(ctx, target.side)

    def stat(self, token: Token, key: str) -> int:
        """STR less what damage took off it; every other stat as written."""
        lost = int(str(token.values.get("str_lost", 0))) if key == "str" else 0
        return super().stat(token, key) - lost

    def morale(self, ctx: Resolution, side: str) -> None:
        """Once a fight, when a share of ``side`` is out: the rest save against WIL or flee."""
        state, key = ctx.state, f"morale:{side}"
        standing = [t for t in state.tokens.values()
                    if t.side == side and not self.out_of_fight(t)]
        fallen = self.fallen(state, side)
        if state.data.get(key) or not standing or \
                len(fallen) < self.data.morale.share * (len(fallen) + len(standing)):
            return
        ctx.emit(DataChanged(key, None, True))
        ctx.emit(Said(f"The {side} have lost {len(fallen)} of {len(fallen) + len(standing)}: "
                      "each still standing saves against WIL or flees"))
        for token in standing:
            if not ctx.save(token.id, self.stat(token, "wil"), "WIL save (morale)",
                            sides=self.data.save.die):
                ctx.emit(condition_change(token, "fled", True))

    def attack_odds(self, state: Encounter, token: Token, target: Token,
                    weapon: str) -> Odds | None:
        """The damage after armour, and the chance the target drops (a failed STR save)."""
        dice, armour = self.dice(token), self.stat(target, "armour")
        damage: defaultdict[int, float] = defaultdict(float)
        drop = 0.0
        for face, p in odds.highest_of(*dice).items():
            dealt = max(0, face - armour)
            damage[dealt] += p
            past = dealt - max(0, target.hp)
            if past > 0:
                strength = self.stat(target, "str") - past
                drop += p * (1.0 if strength <= 0 else
                             1 - odds.save_chance(strength, sides=self.data.save.die))
        kept = " and ".join(f"d{d}" for d in dice)
        lines = (f"{kept}{', the higher' if len(dice) > 1 else ''}, less armour {armour}",
                 f"past 0 HP: STR save at STR {self.stat(target, 'str')} or under")
        return Odds(1.0, tuple(sorted(damage.items())), drop, (), lines)


def create(manifest: Manifest) -> Ruleset:
    """The ruleset the registry loads."""
    return Rules(manifest)
