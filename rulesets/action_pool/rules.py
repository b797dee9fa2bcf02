"""The ``action_pool`` ruleset (seed 004): two actions a turn and a combat dice pool.

README.md gives every rule with the seed's words and each choice made where the
seed is silent; ruleset.toml holds every number. The turn order lives in
``state.schedule`` (an ``OrderedTurns``) and everything else the rules track
lives in ``token.values``, both changed only through events, so undo, redo
and replay are exact. The turn bookkeeping (whose turn, skipping the fallen,
round changes, the GM's order, walking a move) is the engine's ``TurnRuleset``;
this file overrides the hooks where seed 004 differs. The token values:

* ``pool``: dice in the combat pool.
* ``faces``: the last pool roll, left to right.
* ``discarded``: the successes of ``faces`` an ability discarded on top of the
  failures, the leftmost ones (absent when none).
* ``weapon``: the weapon in hand once it differs from the stat block's.
* ``prepared``: prepared actions, each ``(do, trigger, by, weapon, uses)``.
* ``reacted``: True after a reaction roll, when ``pool.reaction_refill`` is
  "end_of_turn"; the pool refills when the turn ends.
* ``used``: reaction abilities used, each ``(ability, round, times)``.
* ``move_mod``: metres added to each move action by a spell or effect (GM-set).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from tacmap.api import (
    MAX_DICE,
    Act,
    Attack,
    Cell,
    Command,
    ConditionChanged,
    Encounter,
    HpChanged,
    Json,
    Manifest,
    Move,
    MovePlan,
    Occasion,
    Odds,
    OrderedTurns,
    Preview,
    Reaction,
    Resolution,
    Roll,
    RoundChanged,
    RuleError,
    Ruleset,
    Said,
    ScheduleChanged,
    Token,
    TurnRuleset,
    ValueChanged,
    article,
    condition_change,
    faces,
    grid,
    line_of_sight,
    odds,
    plural,
    token_error,
)

from . import reactions, readied, views
from .data import Ability, Data, Weapon
from .reactions import PREPARED, Prepared, Strike

DEAD = "dead"
#: Token value: the successes an ability discarded from the last roll, the leftmost ones.
DISCARDED = "discarded"
#: The turn (round:place) a token last moved in, under house rule movement = "per_turn".
MOVED_IN = "moved_in"


# --------------------------------------------------------------------------- small helpers


def _whole(value: Json, what: str) -> int:
    """A value the GM may have set by hand, as a whole number or a clear refusal."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise RuleError(f"{what} is {value!r}, not a whole number; set it again")
    return int(value)


# --------------------------------------------------------------------------- the ruleset


class ActionPool(TurnRuleset[Data]):
    """Seed 004: the GM's turn order, two actions a turn, a pool that drains and refills."""

    # Saved fights and transcripts hold a plain "ordered_turns": the moves of a turn are
    # counted in actions, not metres, so the machinery's counts are not needed.
    schedule: ClassVar[type[OrderedTurns]] = OrderedTurns

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest, Data)
        self.triggers = self.data.prepare.triggers.words()
        self._need_stats()
        self.default_weapon = str(self.stat_block.default("weapon"))
        self.default_armour = str(self.stat_block.default("armour"))

    def secret_conditions(self) -> frozenset[str]:
        # A prepared action is the GM's secret until it fires: the players learn
        # it when it answers them, not from a badge on the enemy.
        return frozenset({PREPARED})

    # --- the stat block ------------------------------------------------------

    def check_token(self, token: Token) -> None:
        # Types, ranges and names come from [stat_block.*] (the base class); what
        # ties one stat to another, or to the token, is checked here.
        super().check_token(token)
        stats = token.stats
        weapon = stats.get("weapon", self.default_weapon)
        carried = stats.get("weapons")
        problems = []
        if "weapon" in stats and carried and weapon not in carried:
            problems.append(f"the weapon in hand, {weapon!r}, is not among the weapons "
                            "carried")
        if token.max_hp < 1:
            problems.append(f"max_hp must be at least 1, not {token.max_hp}")
        if problems:
            raise token_error(token, problems)

    def _need_stats(self) -> None:
        """Say which stats of [stat_block] the rules read, so a missing one stops the load."""
        d, block = self.data, self.stat_block
        for key in ("con", "ac"):
            block.need(key, "int")
        block.need(d.prepare.dodge_stat, "int", where="prepare.dodge_stat")
        for w in d.weapons.values():
            block.need(w.stat, "int", where=f"weapons.{w.key}.stat")
            if w.damage_stat:
                block.need(w.damage_stat, "int", where=f"weapons.{w.key}.damage_stat")
        block.need("weapon", "choice", among=d.weapons, table="weapons")
        block.need("weapons", "choices", among=d.weapons, table="weapons")
        block.need("proficiency", "table", among=d.weapons, table="weapons")
        block.need("armour", "choice", among=d.armour, table="armour")
        block.need("abilities", "choices", among=d.abilities, table="abilities")

    def stat(self, token: Token, name: str) -> int:
        """A whole-number stat of the token, or its default from [stat_block]."""
        value = token.stats.get(name)
        if value is None:
            value = self.stat_block.default(name)
        return _whole(value, f"{token.name}'s {name.upper()}")

    def weapon_in_hand(self, token: Token) -> Weapon:
        """The weapon the token holds now: the one wielded last, else its stat block's."""
        key = token.values.get("weapon") or token.stats.get("weapon") or self.default_weapon
        return self.data.weapons.get(str(key)) or self.data.weapons[self.default_weapon]

    def _proficiency(self, token: Token, weapon: Weapon) -> int:
        table = token.stats.get("proficiency")
        if not isinstance(table, dict):
            return 0
        return _whole(table.get(weapon.key, 0), f"{token.name}'s {weapon.name} proficiency")

    def _pool_base(self, token: Token, weapon: Weapon) -> tuple[int, str]:
        """Dice pool = proficiency stat + weapon proficiency, with the sum in words."""
        stat, prof = self.stat(token, weapon.stat), self._proficiency(token, weapon)
        return stat + prof, f"{weapon.stat.upper()} {stat} + {weapon.name} proficiency {prof}"

    def abilities_of(self, token: Token, kind: str = "") -> list[Ability]:
        """The token's abilities from the table, of one ``kind`` if given."""
        keys = token.stats.get("abilities", ())
        found = [self.data.abilities[k] for k in keys if k in self.data.abilities] \
            if isinstance(keys, tuple) else []
        return [a for a in found if not kind or a.kind == kind]

    def _ac(self, token: Token) -> int:
        return self.stat(token, "ac") + sum(a.ac for a in self.abilities_of(token, "passive"))

    def refill(self, token: Token) -> tuple[int, str]:
        """Dice back at the end of the token's turn, with the sum in words."""
        con = self.stat(token, "con")
        extra = [a for a in self.abilities_of(token, "passive") if a.refill]
        text = f"CON {con}" + "".join(f" + {a.refill} {a.name}" for a in extra)
        return con + sum(a.refill for a in extra), text

    def pool_size(self, token: Token) -> int:
        """Dice in the token's pool now."""
        return max(0, _whole(token.values.get("pool", 0), f"{token.name}'s pool"))

    def metres_per_action(self, token: Token) -> float:
        """Metres one move action takes ``token``: base, less armour, plus effects."""
        d = self.data
        armour = d.armour.get(str(token.stats.get("armour", self.default_armour)),
                              d.armour[self.default_armour])
        bonus = sum(a.move for a in self.abilities_of(token, "passive"))
        mod = token.values.get("move_mod", 0)
        if isinstance(mod, bool) or not isinstance(mod, int | float):
            raise RuleError(f"{token.name}'s move_mod is {mod!r}, not a number of metres")
        return max(0.0, d.turn.metres_per_move_action - armour.move_penalty + bonus + float(mod))

    # --- turns -----------------------------------------------------------------

    def turns(self, state: Encounter) -> OrderedTurns:
        """The turn order, or RuleError before combat."""
        if not self.in_combat(state):
            raise RuleError("combat has not started: the GM starts it and sets the order")
        return super().turns(state)

    @staticmethod
    def who(state: Encounter, token_id: str | None) -> str:
        """A token's name for the log (its id once it is gone)."""
        if token_id is None:
            return "nobody"
        token = state.tokens.get(token_id)
        return token.name if token else token_id

    def not_turn(self, state: Encounter, actor: str) -> str:
        return f"it is {self.who(state, self.turns(state).current)}'s turn, " \
               f"not {self.who(state, actor)}'s"

    def cannot_act(self, token: Token) -> str:
        return f"{token.name} is down and cannot act"

    def _check_actions(self, state: Encounter, token: Token, n: int, what: str) -> None:
        left = self.turns(state).actions_left
        if left == 0:
            raise RuleError(f"{token.name} has no actions left this turn")
        if left < n:
            raise RuleError(f"{token.name} has {plural(left, 'action')} left this turn; "
                            f"{what} needs {n}")

    def spend(self, ctx: Resolution, token: Token, n: int = 1, what: str = "") -> None:
        """Spend ``n`` of the turn's actions on ``what``, or RuleError if too few are left."""
        self._check_actions(ctx.state, token, n, what)
        turns = self.turns(ctx.state)
        new = turns.spend(n, token.id)
        ctx.emit(ScheduleChanged(turns, new, f"{token.name} spends {plural(n, 'action')} on "
                                             f"{what}: {plural(new.actions_left, 'action')} left"))

    # --- judging -----------------------------------------------------------------

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        if isinstance(cmd, Act):
            self._resolve_act(ctx, cmd)
        elif isinstance(cmd, Move):
            # move_refusal says whose turn it is, after a blocked path: and before combat
            # a Move is the GM placing tokens.
            self.move(ctx, ctx.state.token(cmd.actor), cmd.path)
        else:
            super().resolve(ctx, cmd)

    def attack(self, ctx: Resolution, token: Token, target: Token, weapon: str) -> None:
        self._resolve_attack(ctx, token.id, target.id, weapon, None)

    def start_combat(self, ctx: Resolution, order: Sequence[str] = ()) -> None:
        state = ctx.state
        if state.schedule is not None:
            raise RuleError("combat has already started; the GM can change the order (reorder)")
        order = tuple(order) or tuple(t.id for t in state.tokens.values() if t.alive)
        for tid in order:
            if not state.token(tid).alive:
                raise RuleError(f"{state.tokens[tid].name} is down and cannot join the fight")
        super().start_combat(ctx, order)

    def combat_starts(self, ctx: Resolution, order: Sequence[str]) -> None:
        for tid in order:
            token = ctx.state.tokens[tid]
            for key in ("faces", DISCARDED, PREPARED, "reacted", "used", MOVED_IN):
                if key in token.values:
                    ctx.emit(ValueChanged(tid, key, token.values[key], None, "a new fight"))
            if PREPARED in token.conditions:
                ctx.emit(condition_change(token, PREPARED, False))
            self._build_pool(ctx, token)

    def schedule_note(self, state: Encounter, new: OrderedTurns, occasion: Occasion) -> str:
        if occasion == "start":
            names = ", ".join(self.who(state, t) for t in new.order)
            return f"turn order: {names}; {self.who(state, new.current)}'s turn"
        if occasion == "turn":
            return f"{self.who(state, new.current)}'s turn (round {new.round})"
        if occasion == "join":
            return f"{self.who(state, new.order[-1])} joins the fight, last in the order"
        return super().schedule_note(state, new, occasion)

    def _build_pool(self, ctx: Resolution, token: Token) -> None:
        size, how = self._pool_base(token, self.weapon_in_hand(token))
        ctx.emit(ValueChanged(token.id, "pool", token.values.get("pool"), size,
                              f"pool built: {how}"))

    def joined(self, ctx: Resolution, token: Token) -> None:
        """A newcomer mid-combat takes the last place in the order, with a fresh pool."""
        if self.in_combat(ctx.state):
            super().joined(ctx, token)
            self._build_pool(ctx, token)

    def reorder(self, ctx: Resolution, order: Sequence[str]) -> None:
        """GM override: the order becomes exactly ``order`` (leaving tokens out, bringing
        others in); newcomers get a pool."""
        state = ctx.state
        turns = self.turns(state)
        new = tuple(order)
        for tid in new:
            state.token(tid)
        if not new:
            raise RuleError("the new order is empty")
        changed = turns
        for tid in turns.order:
            if tid in new:
                continue
            token = state.tokens.get(tid)
            if tid == changed.current and token is not None and token.alive:
                raise RuleError(f"{token.name} is taking their turn: end it before "
                                "leaving them out of the order")
            changed = changed.remove(tid)
        joining = [tid for tid in new if tid not in changed.order]
        for tid in joining:
            changed = changed.add(tid)
        changed = changed.reorder(new)
        if changed.round != turns.round:
            ctx.emit(RoundChanged(state.round, changed.round))
        names = ", ".join(self.who(state, t) for t in new)
        ctx.emit(ScheduleChanged(turns, changed, f"the GM sets the order: {names}"))
        for tid in joining:
            if "pool" not in state.tokens[tid].values:
                self._build_pool(ctx, state.tokens[tid])

    def end_turn(self, ctx: Resolution) -> None:
        current = self.turns(ctx.state).current
        if current not in ctx.state.tokens:
            # The acting token was taken off the map: those who reacted still refill.
            self._refill_reactors(ctx, current)
        super().end_turn(ctx)

    def first_up(self, ctx: Resolution, turns: OrderedTurns, was: int | None = None
                 ) -> OrderedTurns:
        if was is None or any(self.fighting(ctx.state, t) for t in turns.order):
            return super().first_up(ctx, turns, was)
        # Nobody left standing: the turn goes once round the order and stops, with one
        # RoundChanged for the rounds it passed.
        for _ in turns.order:
            turns = turns.end_turn()
        if turns.round != was:
            ctx.emit(RoundChanged(ctx.state.round, turns.round))
        return turns

    def turn_ended(self, ctx: Resolution, token: Token) -> None:
        turns = self.turns(ctx.state)
        if token.alive:
            idle = turns.actions_left == turns.actions_per_turn
            self.refill_pool(ctx, token, "end of turn" + (", no action taken" if idle else ""))
        self._refill_reactors(ctx, token.id)
        if token.values.get("reacted"):
            ctx.emit(ValueChanged(token.id, "reacted", token.values["reacted"], None, "refilled"))

    def _refill_reactors(self, ctx: Resolution, current: str | None) -> None:
        """Pools spent on reaction rolls refill as the turn they were rolled in ends."""
        state = ctx.state
        for other in state.tokens.values():
            if other.values.get("reacted") and other.id != current:
                if other.alive:
                    whose = self.who(state, current)
                    self.refill_pool(ctx, other, f"reaction roll, end of {whose}'s turn")
                ctx.emit(ValueChanged(other.id, "reacted", other.values["reacted"], None,
                                      "refilled"))

    def begin(self, ctx: Resolution) -> None:
        # Prepared actions lapse as their owner's turn comes round, even a fallen owner's.
        token = ctx.state.tokens.get(self.turns(ctx.state).current or "")
        if token is not None:
            reactions.lapse(self, ctx, token)

    def refill_pool(self, ctx: Resolution, token: Token, why: str) -> None:
        old = self.pool_size(token)
        back, how = self.refill(token)
        new = min(old + back, MAX_DICE, int(self.value_block["pool"].max or MAX_DICE))
        ctx.emit(ValueChanged(token.id, "pool", token.values.get("pool"), new,
                              f"{why}: {how} {'die comes' if back == 1 else 'dice come'} back"))

    # --- movement ----------------------------------------------------------------

    def reach_rule(self, state: Encounter) -> str:
        # "Moving diagonally costs two meters" is a movement rule: reach counts a
        # corner neighbour 1 m away ([reach] diagonal).
        return self.data.reach.diagonal

    def reach(self, state: Encounter, token: Token) -> float:
        weapon = self.weapon_in_hand(token)
        # A bow threatens nobody in melee: leaving an archer's side is not leaving reach.
        return 0.0 if weapon.ranged else weapon.reach

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        if not self.in_combat(state):
            return None if self.data.turn.free_moves_before_combat else 0.0
        turns = self.turns(state)
        if turns.current != token.id or not token.alive:
            return 0.0
        if self.house_rule(state, "movement") == "per_turn":
            # "10 m per turn": one move a turn, of at most one move action's metres.
            moved = token.values.get(MOVED_IN) == self._turn_key(turns)
            return 0.0 if moved or turns.actions_left < 1 else self.metres_per_action(token)
        return turns.actions_left * self.metres_per_action(token)

    @staticmethod
    def _turn_key(turns: OrderedTurns) -> str:
        """This turn, as the value a token moved in it carries (round:place)."""
        return f"{turns.round}:{turns.index}"

    def move_bands(self, state: Encounter, token: Token) -> tuple[float, ...]:
        """Where each move action's metres end: (10, 20) with two actions left."""
        if not self.in_combat(state):
            return super().move_bands(state, token)
        turns = self.turns(state)
        if turns.current != token.id or not token.alive:
            return ()
        per = self.metres_per_action(token)
        if self.house_rule(state, "movement") == "per_turn":
            budget = self.move_budget(state, token)
            return (budget,) if budget else ()
        return tuple(per * n for n in range(1, turns.actions_left + 1)) if per > 0 else ()

    def move_turn_refusal(self, state: Encounter, token: Token) -> str | None:
        if not self.in_combat(state):
            return None if self.data.turn.free_moves_before_combat else \
                "combat has not started: the GM places tokens with a free move"
        reason = super().move_turn_refusal(state, token)
        if reason is None and self.turns(state).actions_left == 0:
            return f"{token.name} has no actions left this turn"
        return reason

    def move_uses(self, state: Encounter, token: Token, plan: MovePlan) -> str:
        if not self.in_combat(state):
            return ""
        n = self._move_actions(token, plan.cost, state)
        left = self.turns(state).actions_left - n
        per = self.manifest.units.of(self.metres_per_action(token))
        spent = "one action" if n == 1 else f"{n} actions"
        tail = "no action left this turn" if left <= 0 else \
            f"{plural(left, 'action')} left (an attack is one)"
        return f"{spent} ({per} a move action): {tail}"

    def _move_actions(self, token: Token, cost: float, state: Encounter | None = None) -> int:
        if state is not None and self.house_rule(state, "movement") == "per_turn":
            return 1
        per = self.metres_per_action(token)
        return max(1, math.ceil(cost / per - 1e-9)) if per > 0 else 1

    def move_spends(self, ctx: Resolution, token: Token, plan: MovePlan) -> None:
        if self.in_combat(ctx.state):
            n = self._move_actions(token, plan.cost, ctx.state)
            if self.house_rule(ctx.state, "movement") == "per_turn":
                key = self._turn_key(self.turns(ctx.state))
                ctx.emit(ValueChanged(token.id, MOVED_IN, token.values.get(MOVED_IN), key,
                                      "its move this turn"))
            self.spend(ctx, token, n, f"a {plan.cost:g} m move")

    def moved(self, ctx: Resolution, token: Token, cells: Sequence[Cell]) -> None:
        # Prepared actions and reaction abilities answer the whole move, in path order.
        if self.in_combat(ctx.state):
            reactions.movement_reactions(self, ctx, token.id, cells)

    # --- attacks -------------------------------------------------------------------

    def strike(self, state: Encounter, attacker: Token, defender: Token, weapon_key: str,
               ability: Ability | None, check_reach: bool = True) -> Strike:
        """Check an attack is allowed and work out its numbers (changes nothing)."""
        if defender.id == attacker.id:
            raise RuleError(f"{attacker.name} cannot attack themself")
        if not defender.alive:
            raise RuleError(f"{defender.name} is already down")
        if defender.side == attacker.side:
            raise RuleError(f"{defender.name} is on {attacker.name}'s side")
        weapon = self.weapon_in_hand(attacker)
        if weapon_key and weapon_key != weapon.key:
            other = self.data.weapons.get(weapon_key)
            if other is None:
                raise RuleError(f"there is no weapon {weapon_key!r} in this ruleset")
            raise RuleError(f"{attacker.name} holds {article(weapon.name)}, "
                            f"not {article(other.name)}: wield it first (an action)")
        if check_reach:
            # Melee reach counts a corner neighbour 1 m away; a range keeps the map's rule.
            rule = state.diagonal if weapon.ranged else self.reach_rule(state)
            gap = grid.edge_distance(rule, attacker.cell, attacker.size,
                                     defender.cell, defender.size)
            if gap > weapon.reach + 1e-9:
                raise RuleError(f"{defender.name} is {gap:g} m away; {attacker.name}'s "
                                f"{weapon.name} reaches {weapon.reach:g} m")
            if not line_of_sight(self.space.walls(state), attacker, defender):
                raise RuleError(f"a wall stands between {attacker.name} and {defender.name}")
        prof = self._proficiency(attacker, weapon)
        ac = self._ac(defender)
        dodge = reactions.find_dodge(self, state, defender, attacker, weapon)
        shift = ability.dt if ability else 0
        # "DT = Defender AC − Attacker weapon proficiency": it may go below zero.
        dt = ac + (dodge.ac if dodge else 0) - prof + shift
        dt_text = f"AC {ac}" + (f" + {dodge.ac} {dodge.label}" if dodge else "") \
            + f" − proficiency {prof}" \
            + (f" {'+' if shift > 0 else '−'} {abs(shift)} {ability.name}"
               if shift and ability else "")
        flat, flat_text = 0, ""
        if weapon.damage_stat:
            value = self.stat(attacker, weapon.damage_stat)
            flat, flat_text = value, f" + {weapon.damage_stat.upper()} {value}"
        if ability and ability.damage:
            flat += ability.damage
            flat_text += f" {ability.damage:+d} {ability.name}"
        extra = ability.extra_dice if ability else 0
        return Strike(attacker.id, defender.id, weapon, ability, self.pool_size(attacker), prof, ac,
                      dodge, dt, dt_text, prof + extra, flat, flat_text,
                      ability.discard if ability else 0)

    def _succeeds(self, wins: int, dt: int) -> bool:
        return wins >= dt if self.data.test.success_on_equal else wins > dt

    def _resolve_attack(self, ctx: Resolution, actor: str, target: str, weapon_key: str,
                        ability: Ability | None) -> None:
        state = ctx.state
        attacker = self.acting(state, actor)
        defender = state.token(target)
        cost = ability.actions if ability else self.data.costs.attack
        label = ability.name if ability else "an attack"
        self._check_actions(state, attacker, cost, label)
        strike = self.strike(state, attacker, defender, weapon_key, ability)
        self.spend(ctx, attacker, cost, f"{label} on {defender.name}")
        self.do_strike(ctx, strike, reaction=False)
        reactions.react(self, ctx, defender.id, attacker.id, "attacks", check_reach=True)

    def do_strike(self, ctx: Resolution, s: Strike, reaction: bool) -> None:
        """Roll the attack ``s``, deal its damage and drain the attacker's pool."""
        state = ctx.state
        attacker, defender = state.tokens[s.attacker], state.tokens[s.defender]
        if s.dodge is not None:
            reactions.fire_dodge(self, ctx, defender, attacker, s.dodge)
        word = s.ability.name if s.ability else ("reaction attack" if reaction else "attack")
        roll = ctx.roll(attacker.id, s.pool, self.data.pool.die,
                        f"{word} on {defender.name} with {article(s.weapon.name)} "
                        f"(DT {s.dt} = {s.dt_text})")
        wins = roll.count(self.data.pool.success_at)
        margin = wins - s.dt
        hit = self._succeeds(wins, s.dt)
        tally = f"{plural(wins, 'success', 'successes')} against DT {s.dt}"
        the = s.ability.name if s.ability else f"the {word}"
        if hit:
            ctx.emit(Said(f"{the} hits: {tally}, margin {margin}", attacker.id))
            count = margin + s.damage_dice
            rolled = 0
            if count > 0:
                extra = s.damage_dice - s.proficiency
                more = f" + {extra} {s.ability.name}" if s.ability and extra else ""
                dmg = ctx.roll(attacker.id, count, s.weapon.damage_die,
                               f"damage: (margin {margin} + proficiency {s.proficiency}{more})"
                               f"d{s.weapon.damage_die}{s.flat_text}")
                rolled = dmg.total
            total = max(0, rolled + s.flat)
            sums = f"{rolled}{s.flat_text} = {total}" if s.flat_text else f"{total}"
            self._harm(ctx, defender, total, f"{attacker.name}'s {s.weapon.name}: {sums}")
        else:
            ctx.emit(Said(f"{the} misses: {tally}", attacker.id))
        # "Finally, the attacker removes the failure dice from their pool."
        self._drain(ctx, attacker, roll, s.discard, s.ability)
        if reaction:
            reactions.mark_reacted(self, ctx, attacker)

    def _harm(self, ctx: Resolution, token: Token, amount: int, why: str) -> None:
        floor = self.data.hp.floor
        new = max(min(floor, token.hp), token.hp - amount)
        ctx.emit(HpChanged(token.id, token.hp, new, why))
        if new <= floor and token.alive:
            self._drop(ctx, token, new)

    def hp_set(self, ctx: Resolution, token: Token) -> None:
        """GM damage or Set HP down to the floor drops the token as an attack's damage does."""
        if token.hp <= self.data.hp.floor and token.alive:
            self._drop(ctx, token, token.hp)

    def _drop(self, ctx: Resolution, token: Token, new: int) -> None:
        """``token`` is dead at ``new`` HP: out of the order, its prepared defence lapsed."""
        ctx.emit(ConditionChanged(token.id, DEAD, True))
        ctx.emit(Said(f"{token.name} drops at {new} HP and is out of the fight", token.id))
        # A fallen token cannot act on what it prepared; left in place, the
        # map would still show its "prepared" badge.
        reactions.lapse(self, ctx, token, f"as {token.name} falls")
        self._maybe_over(ctx)

    def _maybe_over(self, ctx: Resolution) -> None:
        state = ctx.state
        if not self.in_combat(state):
            return
        sides = {t.side for tid in self.turns(state).order
                 if (t := state.tokens.get(tid)) is not None and t.alive}
        if len(sides) == 1:
            ctx.emit(Said(f"everyone still standing is on the {sides.pop()} side"))

    def _drain(self, ctx: Resolution, token: Token, roll: Roll, discard: int,
               ability: Ability | None) -> None:
        at = self.data.pool.success_at
        kept = [f for f in roll.faces if f >= at]
        failed = [f for f in roll.faces if f < at]
        ctx.emit(ValueChanged(token.id, "faces", token.values.get("faces"), roll.faces,
                              f"successes {faces(kept)}; failures {faces(failed)}"))
        extra = min(discard, len(kept))
        # Which successes an ability discards, so the pool panel strikes them out too: the
        # seed does not say which; we take them from the left (README, item 12 of issue 26).
        gone = tuple(kept[:extra])
        before = token.values.get(DISCARDED)
        if gone or before is not None:
            name = ability.name if ability else "the ability"
            ctx.emit(ValueChanged(token.id, DISCARDED, before, gone or None,
                                  f"{name} discards {plural(extra, 'success', 'successes')} "
                                  "on top of the failures" if gone else "a new roll"))
        lost = len(failed) + extra
        if lost == 0:
            return
        parts = []
        if failed:
            parts.append(plural(len(failed), "failure"))
        if extra:
            parts.append(f"{plural(extra, 'die', 'dice')} discarded for "
                         f"{ability.name if ability else 'the ability'}")
        verb = "leaves" if lost == 1 else "leave"
        old = self.pool_size(token)
        ctx.emit(ValueChanged(token.id, "pool", token.values.get("pool"), max(0, old - lost),
                              f"{' and '.join(parts)} {verb} the pool"))

    # --- other actions ---------------------------------------------------------------

    def _resolve_act(self, ctx: Resolution, cmd: Act) -> None:
        head, _, tail = cmd.action.partition(":")
        if head == "wield":
            self._wield(ctx, cmd.actor, tail or cmd.detail)
        elif head == "prepare":
            reactions.prepare(self, ctx, cmd, tail)
        elif head == "skill" and tail.strip():
            self._skill_test(ctx, cmd, tail)
        elif head in ("skill", "generic", "long_action"):
            self._plain_action(ctx, cmd, head)
        elif head in self.data.abilities:
            self._use_ability(ctx, cmd, self.data.abilities[head])
        else:
            known = ", ".join(("wield", "prepare", "skill", "generic", "long_action",
                               *(a.key for a in self.data.abilities.values()
                                 if a.kind == "action")))
            raise RuleError(f"there is no action {cmd.action!r} (actions: {known})")

    def _wield(self, ctx: Resolution, actor: str, key: str) -> None:
        state = ctx.state
        combat = self.in_combat(state)
        token = self.acting(state, actor) if combat else state.token(actor)
        weapon = self.wield_check(token, key)
        if combat:
            self.spend(ctx, token, self.data.costs.wield, f"wielding {article(weapon.name)}")
        self.wield(ctx, token, weapon)

    def wield_check(self, token: Token, key: str) -> Weapon:
        """The weapon ``token`` may take up (carried, not in hand); RuleError if none."""
        weapon = self.data.weapons.get(key.strip())
        if weapon is None:
            raise RuleError(f"say which weapon to wield: {', '.join(self.data.weapons)}")
        carried = token.stats.get("weapons")
        # An empty list reads like a missing one: a form shows every field, and a
        # token that carries "nothing listed" must still be able to wield.
        if isinstance(carried, tuple) and carried and weapon.key not in carried:
            raise RuleError(f"{token.name} carries no {weapon.name} "
                            f"(carried: {', '.join(carried)})")
        if weapon.key == self.weapon_in_hand(token).key:
            raise RuleError(f"{token.name} already holds {article(weapon.name)}")
        return weapon

    def wield(self, ctx: Resolution, token: Token, weapon: Weapon) -> None:
        """``token`` takes up ``weapon`` (paid for already, or a reaction); the pool follows."""
        old = self.weapon_in_hand(token)
        ctx.emit(ValueChanged(token.id, "weapon", token.values.get("weapon"), weapon.key,
                              f"puts away the {old.name} and takes up the {weapon.name}"))
        if "pool" not in token.values:
            return
        before, _ = self._pool_base(token, old)
        after, how = self._pool_base(token, weapon)
        pool = self.pool_size(token)
        if self.data.weapon_change.pool == "rebuild":
            new, note = after, f"pool rebuilt for the {weapon.name}: {how}"
        else:
            new = max(0, pool - before + after)
            note = f"pool follows the weapon: {pool} − {before} + {after} ({how})"
        if new != pool:
            ctx.emit(ValueChanged(token.id, "pool", token.values.get("pool"), new, note))

    def _plain_action(self, ctx: Resolution, cmd: Act, kind: str) -> None:
        token = self.acting(ctx.state, cmd.actor)
        what = cmd.detail.strip()
        if kind == "long_action":
            turns = self.turns(ctx.state)
            if turns.actions_left < turns.actions_per_turn:
                raise RuleError(f"{token.name} has already acted this turn; an action of more "
                                "than 5 s takes the whole turn")
            self.spend(ctx, token, turns.actions_left, f"a long action ({what or 'unnamed'})")
            ctx.emit(Said(f"{token.name} spends the whole turn: {what or 'a long action'} "
                          "(the GR says if it runs on into later turns)", token.id))
            return
        cost = self.data.costs.skill if kind == "skill" else self.data.costs.generic
        if kind == "skill":
            self.spend(ctx, token, cost, f"a skill ({what or 'unnamed'})")
            ctx.emit(Said(f"{token.name} uses a skill: {what or 'unnamed'} "
                          "(the GR sets any test)", token.id))
        else:
            self.spend(ctx, token, cost, f"an action ({what or 'unnamed'})")
            ctx.emit(Said(f"{token.name} does something quick: {what or 'a generic action'}",
                          token.id))

    def _skill_test(self, ctx: Resolution, cmd: Act, dt_text: str) -> None:
        """A skill with a test at the DT the GR gives: "skill:DT" ("the GR sets any test")."""
        token = self.acting(ctx.state, cmd.actor)
        try:
            dt = int(dt_text.strip())
        except ValueError:
            raise RuleError(f"the DT of a skill test is a whole number, not {dt_text.strip()!r}"
                            ) from None
        what = cmd.detail.strip() or "a skill"
        self.spend(ctx, token, self.data.costs.skill, f"a skill test ({what}, DT {dt})")
        self.skill_roll(ctx, token, what, dt)

    def skill_roll(self, ctx: Resolution, token: Token, what: str, dt: int,
                   reaction: bool = False) -> None:
        """Test the pool at ``dt`` for the skill ``what`` (paid for already, or a reaction)."""
        roll = ctx.roll(token.id, self.pool_size(token), self.data.pool.die,
                        f"{what}: test at DT {dt}, set by the GR")
        wins = roll.count(self.data.pool.success_at)
        verb = "succeeds" if self._succeeds(wins, dt) else "fails"
        ctx.emit(Said(f"{token.name}'s test ({what}) {verb}: "
                      f"{plural(wins, 'success', 'successes')} against DT {dt}, "
                      f"margin {wins - dt}", token.id))
        self._drain(ctx, token, roll, 0, None)
        if reaction:
            reactions.mark_reacted(self, ctx, token)

    def _use_ability(self, ctx: Resolution, cmd: Act, ability: Ability) -> None:
        state = ctx.state
        token = self.acting(state, cmd.actor)
        if ability not in self.abilities_of(token):
            raise RuleError(f"{token.name} does not have {ability.name}")
        if ability.kind == "passive":
            raise RuleError(f"{ability.name} is passive: it is always on")
        if ability.kind == "reaction":
            raise RuleError(f"{ability.name} is a reaction: it fires by itself when someone "
                            f"{self.triggers[ability.trigger]}")
        if not cmd.target and ability.effect == "attack":
            raise RuleError(f"{ability.name} needs a target")
        if ability.effect == "attack":
            self._resolve_attack(ctx, cmd.actor, cmd.target, "", ability)
            return
        self.heal(ctx, token, state.token(cmd.target or token.id), ability)

    def heal_check(self, state: Encounter, token: Token, target: Token,
                   ability: Ability) -> None:
        """RuleError unless ``token``'s healing ``ability`` can reach ``target`` now."""
        if not target.alive:
            raise RuleError(f"{target.name} is down; {ability.name} cannot reach them")
        if target.side != token.side:
            raise RuleError(f"{target.name} is not on {token.name}'s side")
        gap = grid.edge_distance(self.reach_rule(state), token.cell, token.size,
                                 target.cell, target.size)
        if target.id != token.id and gap > ability.reach + 1e-9:
            raise RuleError(f"{target.name} is {gap:g} m away; {ability.name} reaches "
                            f"{ability.reach:g} m")

    def heal(self, ctx: Resolution, token: Token, target: Token, ability: Ability,
             reaction: bool = False) -> None:
        """The healing ``ability`` on ``target``: on the turn (its actions are spent) or as
        a reaction (no action; the pool refills "at that point")."""
        state = ctx.state
        self.heal_check(state, token, target, ability)
        if not reaction:
            self._check_actions(state, token, ability.actions, ability.name)
            self.spend(ctx, token, ability.actions, f"{ability.name} on {target.name}")
        dt = ability.dt
        roll = ctx.roll(token.id, self.pool_size(token), self.data.pool.die,
                        f"{ability.name} on {target.name} (DT {dt})")
        wins = roll.count(self.data.pool.success_at)
        tally = f"{plural(wins, 'success', 'successes')} against DT {dt}"
        if self._succeeds(wins, dt):
            margin = wins - dt
            ctx.emit(Said(f"{ability.name} works: {tally}, margin {margin}", token.id))
            count = margin + ability.extra_dice
            rolled = 0
            if count > 0:
                die = ability.heal_die or self.data.pool.die
                rolled = ctx.roll(token.id, count, die,
                                  f"healing: (margin {margin} + {ability.extra_dice})"
                                  f"d{die}").total
            new = min(target.max_hp, target.hp + max(0, rolled + ability.damage))
            if new > target.hp:
                ctx.emit(HpChanged(target.id, target.hp, new, ability.name))
            else:
                ctx.emit(Said(f"{target.name} is unhurt: {ability.name} heals nothing",
                              target.id))
        else:
            ctx.emit(Said(f"{ability.name} fails: {tally}", token.id))
        self._drain(ctx, token, roll, ability.discard, ability)
        if reaction:
            reactions.mark_reacted(self, ctx, token)

    # --- prepared actions past the attack (readied.py) ---------------------------------

    def readied_entry(self, state: Encounter, token: Token, by: Token, tail: str,
                      detail: str) -> Prepared:
        """Any other action of the turn, prepared to wait for ``by``; RuleError if not."""
        return readied.entry(self, state, token, by, tail, detail)

    def readied_text(self, state: Encounter, p: Prepared) -> str:
        """What such a prepared action will do, in words."""
        return readied.response(self, state, p)

    def readied_fire(self, ctx: Resolution, reactor: Token, other: Token, index: int) -> None:
        """Perform ``reactor``'s prepared action ``index`` as a reaction to ``other``."""
        readied.fire(self, ctx, reactor, other, index)

    # --- what the panels and the map ask ------------------------------------------

    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview:
        if isinstance(cmd, Attack):
            return self._preview_strike(state, cmd.actor, cmd.target, cmd.weapon, None)
        if isinstance(cmd, Act):
            ability = self.data.abilities.get(cmd.action)
            if ability is not None and ability.kind == "action" and ability.effect == "attack":
                return self._preview_strike(state, cmd.actor, cmd.target, "", ability)
        return super().preview(state, cmd, version)

    def _preview_strike(self, state: Encounter, actor: str, target: str, weapon: str,
                        ability: Ability | None) -> Preview:
        try:
            attacker = self.acting(state, actor)
            if ability is not None and ability not in self.abilities_of(attacker):
                raise RuleError(f"{attacker.name} does not have {ability.name}")
            cost = ability.actions if ability else self.data.costs.attack
            self._check_actions(state, attacker, cost, ability.name if ability else "an attack")
            defender = state.token(target)
            strike = self.strike(state, attacker, defender, weapon, ability)
        except RuleError as err:
            return Preview(False, str(err))
        notes = [f"DT {strike.dt} = {strike.dt_text}",
                 f"{attacker.name} rolls {strike.pool}d{self.data.pool.die}; "
                 f"{self.data.pool.success_at}+ is a success"]
        answers: list[Reaction] = []
        for p in reactions.prepared_of(defender):
            if p.do != "dodge" and p.by == attacker.id and p.trigger == "attacks":
                text = reactions.prepared_text(self, state, p)
                notes.append(f'{defender.name} waits to answer: "{text}"')
                how = "strikes back" if reactions.strikes(self, p) else "after the attack"
                answers.append(Reaction(f'{defender.name}\'s prepared action: "{text}" '
                                        f"({how}; these odds are unchanged by it)"))
        for ability in self.abilities_of(defender, "reaction"):
            if ability.effect == "attack" and ability.trigger == "attacks" \
                    and reactions.ready(state, defender, ability):
                answers.append(Reaction(f"{defender.name} may answer with {ability.name}: "
                                        "a basic attack back"))
        chances = self.strike_odds(strike, defender.hp)
        dodge = strike.dodge
        if dodge is not None:
            # The odds count the dodge: it fires by itself; say what it costs the attacker.
            bare = self.strike_odds(replace(strike, dodge=None, dt=strike.dt - dodge.ac),
                                    defender.hp)
            what = "prepared dodge" if dodge.ability is None else dodge.ability.name
            answers.insert(0, Reaction(f"{defender.name} will use {what}: +{dodge.ac} AC "
                                       "against this attack, counted in the odds above",
                                       bare.success, bare.drop))
        if answers:
            chances = replace(chances, reactions=tuple(answers))
        return Preview(True, odds=chances, notes=tuple(notes))

    def strike_odds(self, s: Strike, target_hp: int) -> Odds:
        """Exact chances: the test succeeds, damage on success, the target drops."""
        die, at = self.data.pool.die, self.data.pool.success_at
        hits = odds.successes(s.pool, die, at)
        first_hit = s.dt if self.data.test.success_on_equal else s.dt + 1
        success = hits.at_least(first_hit)
        miss = -1  # below any real damage, which never goes under 0

        def damage(wins: int) -> int | odds.Distribution:
            if wins < first_hit:
                return miss
            count = wins - s.dt + s.damage_dice
            total = odds.dice(count, s.weapon.damage_die) + s.flat
            # Damage never goes below 0; only a negative bonus needs the (slower) clamp.
            return total if s.flat >= 0 else total.map(lambda d: max(0, d))

        spread = hits.map(damage).items()
        drop_at = target_hp - self.data.hp.floor
        drop = sum(p for d, p in spread if d != miss and d >= drop_at)
        table = tuple((d, p / success) for d, p in spread if d != miss) if success else ()
        return Odds(success, table, drop)

    forecast_hints = views.forecast_hints  # README "The autopilot"

    def out_of_fight(self, token: Token) -> bool:
        """Down at the HP floor (``hp.floor``), where damage or the GM's Set HP marks it
        ``dead`` and a heal does not raise it: only the mark counts (README, "Hit points")."""
        return not token.alive


def create(manifest: Manifest) -> Ruleset:
    """The ruleset for this folder's ruleset.toml."""
    return ActionPool(manifest)
