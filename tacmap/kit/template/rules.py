"""The rules: a d20 attack. The turns come from the engine (``TurnRuleset``, [turn]).

Change these to your game's; each method says when the engine calls it.
"""

from __future__ import annotations

from tacmap.api import (
    ConditionChanged,
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
    odds,
)

from .data import Data


class Rules(TurnRuleset[Data]):
    """Turns as [turn] declares them; on its turn a combatant moves and attacks."""

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest, Data)
        self.stat_block.need("atk", "int")
        self.stat_block.need("ac", "int")

    def attack(self, ctx: Resolution, token: Token, target: Token, weapon: str) -> None:
        """d20 + ATK against AC; a hit rolls damage; at 0 HP the target is out (``dead``)."""
        if target.side == token.side:
            raise RuleError(f"{target.name} is on your side")
        if self.out_of_fight(target):
            raise RuleError(f"{target.name} is already out of the fight")
        self.spend(ctx, token, 1, f"attacks {target.name}")
        gap = self.gap(ctx.state, token, target)
        if gap > self.reach(ctx.state, token):
            raise RuleError(f"{target.name} is {self.manifest.units.of(gap)} away, out of reach")
        roll = ctx.roll(token.id, 1, self.data.attack.die, f"attack on {target.name}")
        total = roll.total + self.stat(token, "atk")
        if total < self.stat(target, "ac"):
            ctx.emit(Said(f"the attack misses ({total})", token.id))
            return
        damage = ctx.roll(token.id, 1, self.data.attack.damage_die, "damage")
        hp = max(0, target.hp - damage.total)
        ctx.emit(HpChanged(target.id, target.hp, hp, "damage"))
        if hp == 0:
            ctx.emit(ConditionChanged(target.id, "dead", True))

    def attack_odds(self, state: Encounter, token: Token, target: Token,
                    weapon: str) -> Odds | None:
        """The odds card of an Attack (and what the forecast and the autopilot weigh it by:
        an attack without odds is never chosen): the chance to hit, the damage on a hit,
        the chance the target drops."""
        a = self.data.attack
        hit = odds.reach(odds.die(a.die), self.stat(target, "ac"), self.stat(token, "atk"))
        damage = odds.die(a.damage_die).items()
        drop = hit * sum(p for d, p in damage if d >= target.hp)
        return Odds(hit, damage, drop, (), (f"d{a.die} + ATK against AC; d{a.damage_die} "
                                            "damage",))


def create(manifest: Manifest) -> Ruleset:
    """The ruleset the registry loads."""
    return Rules(manifest)
