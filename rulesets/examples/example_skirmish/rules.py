"""A d20 skirmish: initiative each round, a move and one action, criticals, disadvantage and
opportunity attacks. The turns are the engine's (``TurnRuleset``, ``[turn]`` in ruleset.toml);
this file holds only the rules of the game."""

from __future__ import annotations

from collections import defaultdict

from tacmap.api import (
    Act,
    Encounter,
    HpChanged,
    Manifest,
    Odds,
    Resolution,
    RuleError,
    Ruleset,
    Said,
    Token,
    Trigger,
    TurnRuleset,
    condition_change,
    odds,
)

from .data import Data, Weapon

DODGING, DISENGAGED = "dodging", "disengaged"


class Rules(TurnRuleset[Data]):
    """The rules of the example; the turn machinery does the bookkeeping."""

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest, Data)
        for key in ("atk", "dmg", "ac", "speed"):
            self.stat_block.need(key, "int")
        self.stat_block.need("weapon", "choice", among=self.data.weapons)

    def weapon(self, token: Token) -> Weapon:
        """The weapon ``token`` attacks with."""
        return self.data.weapons[str(self.stat_block.value(token.stats, "weapon"))]

    def speed(self, state: Encounter, token: Token) -> float:
        """Squares a turn: the Speed stat, in feet."""
        return self.stat(token, "speed") / self.manifest.units.cell_size

    # --- the actions -------------------------------------------------------------------

    def attack(self, ctx: Resolution, token: Token, target: Token, weapon: str) -> None:
        """Attack: the turn's action, one melee attack on an enemy within reach."""
        state = ctx.state
        if target.side == token.side:
            raise RuleError(f"{target.name} is on {token.name}'s side")
        if self.out_of_fight(target):
            raise RuleError(f"{target.name} is already out of the fight")
        if not self.in_reach(state, token, target):
            gap = self.manifest.units.of(self.gap(state, token, target))
            raise RuleError(f"{target.name} is {gap} away, out of reach")
        self.spend(ctx, token, 1, f"attacks {target.name}")
        self.strike(ctx, token, target, "attack")

    def strike(self, ctx: Resolution, token: Token, target: Token, what: str) -> None:
        """One attack roll: a natural 1 misses, a natural 20 hits with double damage dice;
        against a Dodging target, 2d20 and the lower counts (disadvantage)."""
        rules = self.data.attack
        worse = DODGING in target.conditions
        why = f"{what} on {target.name}" + (" (disadvantage)" if worse else "")
        face = min(ctx.roll(token.id, 2 if worse else 1, rules.die, why).faces)
        total = face + self.stat(token, "atk")
        if face == rules.fumble or (face != rules.critical and total < self.stat(target, "ac")):
            ctx.emit(Said(f"{token.name} misses {target.name} ({total})", token.id))
            return
        weapon, critical = self.weapon(token), face == rules.critical
        dice = weapon.dice * (2 if critical else 1)
        damage = ctx.roll(token.id, dice, weapon.die, "critical damage" if critical else "damage")
        hp = max(0, target.hp - max(0, damage.total + self.stat(token, "dmg")))
        ctx.emit(HpChanged(target.id, target.hp, hp, what))
        if hp == 0:
            ctx.emit(condition_change(target, "dead", True))

    def act(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        """Dash (a second Speed of movement), Dodge, Disengage: each is the turn's action."""
        if cmd.action == "dash":
            self.spend(ctx, token, 1, "dashes")
            self.grant_move(ctx, token, self.speed(ctx.state, token), "dashes")
        elif cmd.action in ("dodge", "disengage"):
            self.spend(ctx, token, 1, f"{cmd.action}s")
            ctx.emit(condition_change(token, DODGING if cmd.action == "dodge" else DISENGAGED,
                                      True))
        else:
            super().act(ctx, token, cmd)

    def hp_set(self, ctx: Resolution, token: Token) -> None:
        """The GM's damage to 0 HP takes a combatant out of the fight, as a blow does."""
        if token.hp <= 0 and token.alive:
            ctx.emit(condition_change(token, "dead", True))

    # --- the hooks of the turn ---------------------------------------------------------

    def turn_started(self, ctx: Resolution, token: Token) -> None:
        """A Dodge lasts until the start of the dodger's next turn."""
        if DODGING in token.conditions:
            ctx.emit(condition_change(token, DODGING, False))

    def turn_ended(self, ctx: Resolution, token: Token) -> None:
        """A Disengage lasts the turn."""
        if DISENGAGED in token.conditions:
            ctx.emit(condition_change(token, DISENGAGED, False))

    def reacts_to(self, state: Encounter, enemy: Token, mover: Token, trigger: Trigger) -> bool:
        """An opportunity attack: a mover leaving reach, unless it Disengaged; once a round."""
        return trigger == "leaves" and DISENGAGED not in mover.conditions \
            and self.has_reaction(state, enemy)

    def react(self, ctx: Resolution, enemy: Token, mover: Token, trigger: Trigger) -> bool:
        """The opportunity attack, before the mover gets away (a drop stops the move)."""
        self.use_reaction(ctx, enemy)
        # "reacts with …:" is how the window knows to call the reaction out on the map.
        ctx.emit(Said(f"{enemy.name} reacts with Opportunity attack: {mover.name} leaves "
                      "its reach", enemy.id))
        self.strike(ctx, enemy, mover, "opportunity attack")
        return False

    # --- the odds card -----------------------------------------------------------------

    def attack_odds(self, state: Encounter, token: Token, target: Token,
                    weapon: str) -> Odds | None:
        """Chance to hit, of a critical, of dropping the target, and the damage on a hit."""
        rules, w = self.data.attack, self.weapon(token)
        worse = DODGING in target.conditions
        d20 = odds.lowest(2, rules.die) if worse else odds.die(rules.die)
        atk, ac, bonus = self.stat(token, "atk"), self.stat(target, "ac"), self.stat(token, "dmg")
        damage: defaultdict[int, float] = defaultdict(float)
        for face, p in d20.items():
            if face == rules.fumble or (face != rules.critical and face + atk < ac):
                continue
            dice = odds.dice(w.dice * (2 if face == rules.critical else 1), w.die)
            for total, q in dice.items():
                damage[max(0, total + bonus)] += p * q
        hit = sum(damage.values())
        drop = sum(p for d, p in damage.items() if d >= target.hp)
        lines: tuple[str, ...] = (f"d20 + {atk} against AC {ac}; a natural {rules.critical} "
                                  "doubles the dice",)
        if worse:
            lines += (f"disadvantage: {target.name} is dodging (2d20, the lower counts)",)
        on_hit = tuple((d, p / hit) for d, p in sorted(damage.items())) if hit else ()
        critical = float(d20.exact(rules.critical))
        return Odds(hit, on_hit, drop, (("Chance of a critical", critical),), lines)


def create(manifest: Manifest) -> Ruleset:
    """The ruleset the registry loads."""
    return Rules(manifest)
