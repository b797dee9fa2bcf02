"""The ``opposed`` ruleset (seed 003): skill dice against defence dice, shields, armour,
criticals at double, health from falling to death, surprise, turn shapes, held turns and
attacks of opportunity.

README.md gives every rule with the seed's words and each choice made where the seed is
silent; ruleset.toml holds every number. The round lives in ``state.schedule`` (a
``Turns``, the ``OrderedTurns`` of turns.py); the rest in ``token.values``, changed only
through events, so undo, redo and replay are exact. The engine's ``TurnRuleset`` gives the
GM's reorder, a newcomer's place, the End turn check and the refusals of a move (not the
turn, an occupied cell, too far); the round itself (surprise, initiative, held turns, the
turn shapes) and a run's attacks of opportunity are this file's, as seed 003 plays them:

* ``stamina``, ``faith``: what is left to pay flourishes with (absent: the stat).
* ``bonus``: ``(amount, why)``, a situational bonus the GM granted for the next attack.
* ``abstain``: the declared intent of a token staying out of the fight this turn.
* ``withdrawing`` / ``moved``: a withdrawal under way and the metres it has covered.
* ``stopped``: an attack of opportunity hit the token's run: no more moves this turn.
* ``no_return``: enemies whose attack of opportunity the token defended: it cannot
  attack them back until the next round.
* before combat: ``surprise`` (may act in the surprise round), ``initiator`` (started
  the fight), ``no_advantage`` (the condition that takes the initiator's advantage).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import ClassVar

from msgspec.structs import replace

from tacmap.api import (
    Act,
    Attack,
    Command,
    ConditionChanged,
    DataChanged,
    Encounter,
    HpChanged,
    Json,
    LeftReach,
    Manifest,
    Move,
    MovePlan,
    Occasion,
    OrderedTurns,
    Preview,
    Reaction,
    Resolution,
    RoundChanged,
    RuleError,
    Ruleset,
    Said,
    ScheduleChanged,
    Text,
    Token,
    TokenMoved,
    TurnRuleset,
    ValueChanged,
    grid,
    line_of_sight,
)

from . import acts, views
from .combat import STUNNED, DiceSet, Strike, dice_text, plus, roll_strike, strike_odds
from .data import Data, Flourish, Gear, Weapon, parse_dice
from .turns import Turns, allowed, remaining, shapes_text

#: Health states, as conditions on the token ("healthy" has none).
FALLING, INCAPACITATED, UNCONSCIOUS, DEAD = "falling", "incapacitated", "unconscious", "dead"
HEALTH = (FALLING, INCAPACITATED, UNCONSCIOUS, DEAD)
#: Values that last one turn.
TURN_VALUES = ("bonus", "abstain", "withdrawing", "moved", "stopped")
#: Actions allowed in the surprise round: "take an action, including either movement or
#: an attack".
SURPRISE_SHAPES = (("move",), ("standard",))
ORDINALS = ("first", "second", "third")
STANCES = ("roll", "take", "pass")


class Run(Command, frozen=True, tag="opposed_run"):
    """A move that says what the GM's side does about attacks of opportunity it draws."""

    actor: Text
    """Token that runs."""
    path: tuple[tuple[int, int], ...]
    """Waypoints after the start cell."""
    opportunity: Text = ""
    """``"take"``, ``"pass"``, ``"roll"``; empty: the GM's standing choice, else the data's."""


def _mean(d: DiceSet) -> float:
    return d[0] * (d[1] + 1) / 2


class Opposed(TurnRuleset[Data]):
    """Seed 003: the GM's order, turn shapes, and an opposed roll for every attack."""

    schedule: ClassVar[type[OrderedTurns]] = Turns

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest, Data)
        for key, how in [("strike", ""), *((f"flourish:{f.key}", f" with {f.name}")
                                           for f in self.data.flourishes.values())]:
            self.word_act(key, f"{{actor}} attacks {{target}}{how} (a critical rolls {{detail}})")
        block = self.stat_block
        for key in ("vigor", "speed", "weapon_sl", "form_sl", "defense_sl", "shield_sl",
                    "armour_sl", "reflex_sl", "stamina", "faith"):
            block.need(key, "int")
        block.need("weapon", "choice", among=self.data.weapons, table="weapons")
        block.need("shield", "choice", among=self.data.shields, table="shields")
        block.need("armour", "choice", among=self.data.armour, table="armour")
        self.tier_dice = tuple(parse_dice(t.dice) for t in self.data.tiers)

    # --- a token's numbers ---------------------------------------------------------

    def stat(self, token: Token, key: str) -> int:
        """A whole-number stat, or its default from [stat_block]."""
        value = token.stats.get(key, self.stat_block.default(key))
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise RuleError(f"{token.name}'s {key} is {value!r}, not a number; set it again")
        return int(value)

    def tier(self, sl: int) -> int:
        """Index in [[tiers]] of a skill at level ``sl``."""
        return max([i for i, t in enumerate(self.data.tiers) if t.from_sl <= sl] or [0])

    def skill(self, token: Token, key: str) -> tuple[DiceSet, int, str]:
        """A skill's dice, its SL and "Novice SL 1"."""
        sl = self.stat(token, key)
        i = self.tier(sl)
        return self.tier_dice[i], sl, f"{self.data.tiers[i].name} SL {sl}"

    def gear_dice(self, gear: Gear, sl: int) -> DiceSet:
        """A shield's or armour's dice at the rank of skill level ``sl``."""
        if not gear.dice:
            return (0, 0)
        return parse_dice(gear.dice[min(self.tier(sl), len(gear.dice) - 1)])

    def weapon_of(self, token: Token) -> Weapon:
        key = str(token.stats.get("weapon", self.stat_block.default("weapon")))
        return self.data.weapons.get(key) or next(iter(self.data.weapons.values()))

    def _gear(self, token: Token, table: str) -> Gear:
        rows = self.data.shields if table == "shield" else self.data.armour
        key = str(token.stats.get(table, self.stat_block.default(table)))
        return rows.get(key) or next(iter(rows.values()))

    def points(self, token: Token, key: str) -> int:
        """Stamina or Faith left."""
        value = token.values.get(key)
        return int(value) if isinstance(value, int) else self.stat(token, key)

    def health(self, token: Token) -> str:
        """``healthy``, ``falling``, ``incapacitated``, ``unconscious`` or ``dead``."""
        if DEAD in token.conditions:
            return DEAD
        if token.hp > 0:
            return "healthy"
        return next((c for c in (UNCONSCIOUS, INCAPACITATED, FALLING) if c in token.conditions),
                    FALLING)

    def fights(self, token: Token) -> bool:
        """May take part in combat: attack, defend, threaten its reach."""
        return self.health(token) == "healthy"

    def move_metres(self, token: Token) -> float:
        """Metres of one move action: half while incapacitated."""
        metres = float(self.stat(token, "speed"))
        if self.health(token) == INCAPACITATED:
            metres *= self.data.turn.incapacitated_speed
        return metres

    def reach(self, state: Encounter, token: Token) -> float:
        weapon = self.weapon_of(token)
        return 0.0 if weapon.ranged or not self.fights(token) else weapon.reach

    # --- the turn ------------------------------------------------------------------

    def turns(self, state: Encounter) -> Turns:
        if not isinstance(state.schedule, Turns):
            raise RuleError("combat has not started: the GM starts it")
        return state.schedule

    @staticmethod
    def who(state: Encounter, token_id: str | None) -> str:
        if not token_id:
            return "nobody"
        token = state.tokens.get(token_id)
        return token.name if token else token_id

    def not_turn(self, state: Encounter, actor: str) -> str:
        return f"it is {self.who(state, self.turns(state).current)}'s turn, " \
               f"not {self.who(state, actor)}'s"

    def shapes(self, turns: Turns) -> tuple[tuple[str, ...], ...]:
        return SURPRISE_SHAPES if turns.surprise else self.data.turn.shapes

    def turn_refusal(self, state: Encounter, actor: str) -> str:
        """Why ``actor`` cannot act now ("" when it can)."""
        turns = self.turns(state)
        token = state.token(actor)
        if turns.current != actor:
            return f"it is {self.who(state, turns.current)}'s turn, not {token.name}'s"
        health = self.health(token)
        if health in (DEAD, UNCONSCIOUS):
            return f"{token.name} is {health} and cannot act"
        if health == FALLING:
            return f"{token.name} is falling (Health {token.hp}) and cannot act"
        return ""

    def shape_refusal(self, turns: Turns, token: Token, kinds: tuple[str, ...]) -> str:
        """Why taking ``kinds`` now breaks the turn shape ("" when it fits)."""
        shapes = self.shapes(turns)
        if allowed((*turns.used, *kinds), shapes):
            return ""
        what = " + ".join(kinds)
        done = " + ".join(turns.used) or "nothing"
        head = ("in the surprise round a turn is one action: a move or a standard action"
                if turns.surprise else f"a turn is {shapes_text(shapes)}")
        return f"{head}; {token.name} has taken {done} and cannot add {what}"

    def acting(self, state: Encounter, actor: str, kinds: tuple[str, ...] = ()) -> Token:
        reason = self.turn_refusal(state, actor)
        token = state.token(actor)
        if not reason and kinds:
            reason = self.shape_refusal(self.turns(state), token, kinds)
        if reason:
            raise RuleError(reason)
        return token

    def take(self, ctx: Resolution, token: Token, kinds: tuple[str, ...], what: str) -> None:
        turns = self.turns(ctx.state)
        new = turns.take(kinds)
        left = remaining(new.used, self.shapes(new))
        tail = f"left: {' or '.join(left)}" if left else "nothing left this turn"
        ctx.emit(ScheduleChanged(turns, new, f"{token.name}: {' + '.join(kinds)} ({what}); "
                                             f"{tail}"))

    # --- judging -------------------------------------------------------------------

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        # Attacks, moves, actions check the turn first; the machinery takes start, end, order.
        if isinstance(cmd, Attack):
            self._attack(ctx, cmd.actor, cmd.target, cmd.weapon, None)
        elif isinstance(cmd, Move):
            self._move(ctx, cmd.actor, cmd.path, "")
        elif isinstance(cmd, Run):
            if cmd.opportunity and cmd.opportunity not in STANCES:
                raise RuleError(f"opportunity is one of {', '.join(STANCES)}, "
                                f"not {cmd.opportunity!r}")
            self._move(ctx, cmd.actor, cmd.path, cmd.opportunity)
        elif isinstance(cmd, Act):
            self._act(ctx, cmd)
        else:
            super().resolve(ctx, cmd)

    # --- starting, order, surprise -------------------------------------------------------

    def start_combat(self, ctx: Resolution, order: Sequence[str] = ()) -> None:
        """The surprise round first if anyone may act in it, else initiative."""
        state, order = ctx.state, tuple(order)
        if state.schedule is not None:
            raise RuleError("combat has already started; the GM can drag the order")
        for tid in order:
            if not state.token(tid).alive:
                raise RuleError(f"{state.tokens[tid].name} is dead and cannot join the fight")
        if len(set(order)) != len(order):
            raise RuleError("the order names a combatant twice")
        marked = [t.id for t in state.tokens.values() if t.values.get("surprise") and t.alive]
        if not marked:
            self._initiative(ctx, None, order, 1)
            return
        turns = replace(Turns.start(marked, 1), surprise=True, after=order)
        ctx.emit(RoundChanged(state.round, 1))
        names = ", ".join(self.who(state, t) for t in marked)
        ctx.emit(ScheduleChanged(None, turns, f"surprise round before initiative: one action "
                                              f"each for {names}"))
        self.start_turn(ctx, turns.current or "")

    def _initiative(self, ctx: Resolution, old: Turns | None, given: tuple[str, ...],
                    rnd: int) -> None:
        """Set the order of the normal rounds: the GM's, or a Reflex check each."""
        state = ctx.state
        living = [t for t in state.tokens.values() if t.alive]
        if given:
            order = [tid for tid in given if tid in state.tokens and state.tokens[tid].alive]
            order += [t.id for t in living if t.id not in order]
            how = "the GM's order"
        elif self.data.order.default == "map":
            order, how = [t.id for t in living], "the GM's order (the map's)"
        else:
            ranks: list[tuple[int, int, int, str]] = []
            for i, t in enumerate(living):
                dice, sl, text = self.skill(t, "reflex_sl")
                r = ctx.roll(t.id, dice[0], dice[1], f"Reflex check for turn order: "
                                                     f"{dice_text(dice)} + {sl} ({text})")
                ranks.append((-(r.total + sl), -sl, i, t.id))
            order, how = [tid for *_, tid in sorted(ranks)], "Reflex checks, highest first"
        if not order:
            raise RuleError("nobody is left to fight")
        first = next((t for t in living if t.values.get("initiator")), None)
        if first is not None and self.data.challenge.advantage == "first_turn":
            block = first.values.get("no_advantage")
            if block:
                ctx.emit(Said(f"{first.name} started the fight, but has no advantage: "
                              f"{block}", first.id))
            elif first.id in order:
                order.remove(first.id)
                order.insert(0, first.id)
                ctx.emit(Said(f"{first.name} started the fight: advantage, the first turn",
                              first.id))
        for t in living:
            for key in ("surprise", "initiator", "no_advantage"):
                if key in t.values:
                    ctx.emit(ValueChanged(t.id, key, t.values[key], None, "initiative is set"))
        held = old.held if old else ()
        turns = replace(Turns.start(order, 1), round=rnd, held=held)
        ctx.emit(RoundChanged(state.round, rnd))
        names = ", ".join(self.who(state, t) for t in order)
        ctx.emit(ScheduleChanged(old, turns, f"turn order ({how}): {names}; "
                                             f"{self.who(state, turns.current)}'s turn"))
        self.start_turn(ctx, turns.current or "")

    def left(self, ctx: Resolution, token: Token) -> None:
        """A removed token's held turn is dropped with it, with a line for the log."""
        turns = ctx.state.schedule
        if isinstance(turns, Turns) and turns.condition_of(token.id) is not None:
            kept = tuple(h for h in turns.held if h[0] != token.id)
            pending = "" if turns.pending == token.id else turns.pending
            ctx.emit(ScheduleChanged(turns, replace(turns, held=kept, pending=pending),
                                     f"{token.name}'s held turn is dropped: removed from the map"))

    def joined(self, ctx: Resolution, token: Token) -> None:
        """A newcomer takes the last place in the order (after the surprise round: it rolls)."""
        if not self.in_combat(ctx.state):
            return
        turns = self.turns(ctx.state)
        if turns.surprise:
            if turns.after:
                ctx.emit(ScheduleChanged(turns, replace(turns, after=(*turns.after, token.id)),
                                         f"{token.name} joins, last once initiative is set"))
            else:
                ctx.emit(Said(f"{token.name} joins the fight when initiative is set", token.id))
            return
        super().joined(ctx, token)

    def schedule_note(self, state: Encounter, new: OrderedTurns, occasion: Occasion) -> str:
        if occasion == "reorder":
            return f"the GM sets the order: {', '.join(self.who(state, t) for t in new.order)}"
        if occasion == "join":
            return f"{self.who(state, new.order[-1])} joins the fight, last in the order"
        return super().schedule_note(state, new, occasion)

    # --- ending turns -------------------------------------------------------------------

    def end_turn(self, ctx: Resolution) -> None:
        """End the acting token's turn; the next one starts (back from a held turn, or
        initiative after the surprise round). Only the dead are skipped: an unconscious
        token keeps its place and an empty turn."""
        state = ctx.state
        turns = self.turns(state)
        current = turns.current
        token = state.tokens.get(current or "")
        if token is not None:
            for key in TURN_VALUES:
                if key in token.values:
                    ctx.emit(ValueChanged(token.id, key, token.values[key], None, "the turn ends"))
        nxt = turns.next_turn()
        if turns.surprise and nxt.round != turns.round:
            ctx.emit(Said("the surprise round is over: initiative"))
            self._initiative(ctx, turns, turns.after, turns.round + 1)
            return
        for _ in range(len(nxt.order) + 1):
            t = state.tokens.get(nxt.current or "")
            if t is not None and t.alive:
                break
            nxt = nxt.next_turn()
        # A condition the GM may still reject stays open only past the holder's own end
        # of turn: another token ending its turn has let it stand.
        nxt = replace(nxt, pending=turns.pending if turns.pending == current else "")
        if nxt.round != turns.round:
            ctx.emit(RoundChanged(state.round, nxt.round))
            self._new_round(ctx)
        back = " (back from the held turn)" if turns.resumed else ""
        ctx.emit(ScheduleChanged(turns, nxt, f"{self.who(state, nxt.current)}'s turn{back} "
                                             f"(round {nxt.round})"))
        if not turns.resumed:
            self.start_turn(ctx, nxt.current or "")

    def _new_round(self, ctx: Resolution) -> None:
        for t in ctx.state.tokens.values():
            if STUNNED in t.conditions:
                ctx.emit(ConditionChanged(t.id, STUNNED, False))
            if t.values.get("no_return"):
                ctx.emit(ValueChanged(t.id, "no_return", t.values["no_return"], None,
                                      "a new round: it may attack back again"))

    def start_turn(self, ctx: Resolution, tid: str) -> None:
        """A turn begins: a falling token not healed becomes incapacitated; a hold lapses."""
        state = ctx.state
        token = state.tokens.get(tid)
        if token is None:
            return
        turns = state.schedule
        if isinstance(turns, Turns) and turns.condition_of(tid) is not None:
            left = replace(turns, held=tuple(h for h in turns.held if h[0] != tid))
            ctx.emit(ScheduleChanged(turns, left, f"{token.name}'s held turn lapses: "
                                                  "the next turn has come"))
        if FALLING in token.conditions and token.hp <= 0:
            ctx.emit(ConditionChanged(tid, FALLING, False))
            ctx.emit(ConditionChanged(tid, INCAPACITATED, True))
            ctx.emit(Said(f"{token.name} was not healed in time: incapacitated (half speed, "
                          "a withdrawal or a standard action, no combat)", tid))
        elif token.hp > 0:
            self.settle(ctx, token)

    # --- health ---------------------------------------------------------------------------

    def harm(self, ctx: Resolution, token: Token, amount: int, why: str) -> None:
        """Take ``amount`` off Health and move one way along the road from falling to death.

        A hit moves the health state in order: a healthy token falls (however low its
        Health goes); a falling one stays falling (only its next turn makes it
        incapacitated); only "while incapacitated" do the thresholds count:
        unconscious at −½ Vigor, dead below −Vigor.
        """
        ctx.emit(HpChanged(token.id, token.hp, max(-10_000, token.hp - amount), why))
        self.settle(ctx, token, hit=True)

    def hp_set(self, ctx: Resolution, token: Token) -> None:
        """GM damage moves Health along the road a blow does (the same damage, the same
        state); Set HP and GM healing set the state Health calls for at once."""
        self.settle(ctx, token, hit=bool(ctx.events) and ctx.events[-1] == HpChanged(
            token.id, ctx.hp_before(token), token.hp, "GM damage"))

    def settle(self, ctx: Resolution, token: Token, hit: bool = False) -> None:
        """Set the health condition Health calls for (after a hit: at most the next state)."""
        vigor, hp = self.stat(token, "vigor"), token.hp
        dead = hp <= -vigor if self.data.health.dead_at_minus_vigor else hp < -vigor
        down = INCAPACITATED in token.conditions or UNCONSCIOUS in token.conditions
        one_blow = dead and self.house_rule(ctx.state, "death_past_line") == "dead"
        if hit and hp <= 0 and not down and not one_blow:
            # "falling when they reach zero Health": the thresholds below are for damage
            # taken "while incapacitated", which a healthy or falling token is not yet.
            want, say = FALLING, (f"falling at Health {hp}: incapacitated unless healed "
                                  "before the start of the next turn")
        elif dead:
            want, say = DEAD, f"dead at Health {hp} (Vigor {vigor})"
        elif 2 * hp <= -vigor:
            want, say = UNCONSCIOUS, (f"unconscious at Health {hp} (negative half of Vigor "
                                      f"{vigor}): unable to act")
        elif hp <= 0:
            if down:
                want, say = INCAPACITATED, f"incapacitated at Health {hp}"
            else:
                want, say = FALLING, (f"falling at Health {hp}: incapacitated unless healed "
                                      "before the start of the next turn")
        else:
            want, say = "", f"back on their feet at Health {hp}"
        if hit and want == INCAPACITATED and UNCONSCIOUS in token.conditions:
            want = UNCONSCIOUS  # a hit never wakes anyone
        have = [c for c in HEALTH if c in token.conditions]
        if have == ([want] if want else []):
            return
        for c in have:
            if c != want:
                ctx.emit(ConditionChanged(token.id, c, False))
        if want and want not in have:
            ctx.emit(ConditionChanged(token.id, want, True))
        ctx.emit(Said(f"{token.name} is {say}", token.id))

    # --- moving ---------------------------------------------------------------------------

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        if not self.in_combat(state):
            return None if self.data.turn.free_moves_before_combat else 0.0
        turns = self.turns(state)
        if self.turn_refusal(state, token.id) or self.stopped(token):
            return 0.0
        if token.values.get("withdrawing"):
            return max(0.0, 2 * self.move_metres(token) - float(token.values.get("moved") or 0))
        return self.move_metres(token) * self._moves_left(turns, token)

    @staticmethod
    def stopped(token: Token) -> str:
        """Why ``token`` cannot move on this turn after a hit stopped its run ("" if it can)."""
        if not token.values.get("stopped"):
            return ""
        return (f"{token.name} was hit running from {token.values['stopped']}'s reach and "
                "cannot continue running this turn")

    def _moves_left(self, turns: Turns, token: Token) -> int:
        if token.values.get("withdrawing"):
            return 2
        for n in (2, 1):
            if allowed((*turns.used, *("move",) * n), self.shapes(turns)):
                return n
        return 0

    def move_bands(self, state: Encounter, token: Token) -> tuple[float, ...]:
        if not self.in_combat(state):
            return super().move_bands(state, token)
        n = self._moves_left(self.turns(state), token)
        per = self.move_metres(token)
        return tuple(per * k for k in range(1, n + 1)) if per > 0 else ()

    def move_turn_refusal(self, state: Encounter, token: Token) -> str | None:
        if not self.in_combat(state):
            return None if self.data.turn.free_moves_before_combat else \
                "combat has not started: the GM places tokens with a free move"
        turns = self.turns(state)
        reason = self.turn_refusal(state, token.id) or self.stopped(token)
        if not reason and self._moves_left(turns, token) == 0:
            reason = self.shape_refusal(turns, token, ("move",))
        return reason or None

    def holds_cell(self, state: Encounter, token: Token) -> bool:
        # Only the dead leave their square: an unconscious body still takes up the room.
        return token.alive

    def move_uses(self, state: Encounter, token: Token, plan: MovePlan) -> str:
        if not self.in_combat(state):
            return ""
        turns = self.turns(state)
        u = self.manifest.units
        speed = self.move_metres(token)
        # What leaving each reach brings, in the order the path leaves them.
        risks = views.opportunity_notes(self, state, token, plan.leaves)
        if token.values.get("withdrawing"):
            moved = float(token.values.get("moved") or 0) + plan.cost
            return "; ".join([f"withdrawal: {u.of(moved)} of {u.of(2 * speed)} after this",
                              *risks])
        # The same count _move takes: a path longer than one move's speed is two moves.
        n = 1 if plan.cost <= speed + 1e-9 else 2
        before = turns.used
        after = (*before, *("move",) * n)
        shapes = self.shapes(turns)
        if turns.surprise:
            head = "the surprise round's one action"
        elif n == 2:
            head = f"two move actions (more than {u.of(speed)})"
        else:
            head = f"{ORDINALS[min(before.count('move'), len(ORDINALS) - 1)]} move"
        lost = [f"no {'standard action' if k == 'standard' else 'full-round action'} "
                "after this" for k in ("standard", "full")
                if allowed((*before, k), shapes) and not allowed((*after, k), shapes)]
        left = remaining(after, shapes)
        tail = f"left: {' or '.join(left)}" if left else "nothing left this turn"
        return f"{head}: {'; '.join([*lost, tail, *risks])}"

    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview:
        if isinstance(cmd, Attack):
            return self._preview_attack(state, cmd.actor, cmd.target, cmd.weapon, None)
        if isinstance(cmd, Act) and cmd.action.startswith("flourish:"):
            return self._preview_attack(state, cmd.actor, cmd.target, "",
                                        self._flourish(cmd.action), cmd.detail)
        if isinstance(cmd, Act) and cmd.action == "strike":
            return self._preview_attack(state, cmd.actor, cmd.target, "", None, cmd.detail)
        if isinstance(cmd, Run):
            return self.preview_move(state, Move(cmd.actor, cmd.path), version)
        return super().preview(state, cmd, version)

    def _move(self, ctx: Resolution, actor: str, path: tuple[tuple[int, int], ...],
              stance: str) -> None:
        state = ctx.state
        token = state.token(actor)
        plan = self.plan(state, token, path)
        reason = plan.blocked or self.move_refusal(state, token, plan)
        if reason:
            raise RuleError(reason)
        if not self.in_combat(state):
            ctx.emit(TokenMoved(token.id, plan.cells, plan.cost))
            return
        withdrawing = bool(token.values.get("withdrawing"))
        if withdrawing:
            moved = float(token.values.get("moved") or 0) + plan.cost
            ctx.emit(ValueChanged(token.id, "moved", token.values.get("moved"), moved,
                                  f"withdrawal: {moved:g} of {2 * self.move_metres(token):g} m"))
        else:
            n = 1 if plan.cost <= self.move_metres(token) + 1e-9 else 2
            self.take(ctx, token, ("move",) * n, f"{plan.cost:g} m")
        stop = len(plan.cells) - 1
        for enemy_id, step in sorted(plan.leaves, key=lambda p: p[1]):
            enemy = state.tokens[enemy_id]
            if not self.fights(enemy):
                continue
            if withdrawing:
                ctx.emit(Said(f"{token.name} withdraws from {enemy.name}'s reach: "
                              "no attack of opportunity", token.id))
                continue
            if not self.runs(ctx.state, token):
                ctx.emit(Said(f"{token.name} steps out of {enemy.name}'s reach: not a "
                              "declared run (no abstaining), no attack of opportunity",
                              token.id))
                continue
            if self._opportunity(ctx, enemy, token, stance):
                stop = min(stop, step)
                self.set_value(ctx, token, "stopped", enemy.name,
                               "hit by an attack of opportunity: cannot continue running")
                ctx.emit(Said(f"the hit stops {token.name}'s run at "
                              f"({plan.cells[stop][0]},{plan.cells[stop][1]})", token.id))
                break
        cells = plan.cells[:stop + 1]
        cost = plan.cost if stop == len(plan.cells) - 1 else \
            grid.cells_cost(state.diagonal, cells)
        ctx.emit(TokenMoved(token.id, cells, cost))
        for enemy_id, step in plan.leaves:
            if step <= stop:
                ctx.emit(LeftReach(token.id, enemy_id, step))

    def runs(self, state: Encounter, token: Token) -> bool:
        """Whether ``token`` moving out of a reach is a run that may draw an attack of
        opportunity (house rule ``opportunity_run``: any such move, or only while abstaining)."""
        return (self.house_rule(state, "opportunity_run") == "leaving_reach"
                or bool(token.values.get("abstain")))

    def _opportunity(self, ctx: Resolution, enemy: Token, runner: Token, stance: str) -> bool:
        """The GM's side decides on an attack of opportunity; True when it hits."""
        o = self.data.opportunity
        given = stance or str(ctx.state.data.get("opportunity") or "")
        decide = given if given in STANCES else o.decide
        ask = f"{runner.name} runs from {enemy.name}'s reach"
        barred = enemy.values.get("no_return")
        if decide != "pass" and isinstance(barred, tuple) and runner.id in barred:
            ctx.emit(Said(f"{ask}: {enemy.name} cannot attack {runner.name} back until next "
                          "round, so no attack of opportunity", enemy.id))
            return False
        if decide == "roll":
            r = ctx.roll(enemy.id, 1, o.die, f"{ask}: attack of opportunity on "
                                             f"{o.take_at_most} or less")
            take = r.total <= o.take_at_most
        else:
            take = decide == "take"
            ctx.emit(Said(f"{ask}: the GM's choice, {enemy.name} "
                          f"{'takes' if take else 'lets it go without'} an attack of "
                          "opportunity", enemy.id))
        if not take:
            if decide == "roll":
                ctx.emit(Said(f"{enemy.name} lets {runner.name} go unimpeded", enemy.id))
            return False
        strike = self.strike(ctx.state, enemy, runner, None, check_reach=False)
        if strike.bonus:
            ctx.emit(ValueChanged(enemy.id, "bonus", enemy.values.get("bonus"), None,
                                  "the situational bonus is used"))
        hit = roll_strike(self, ctx, strike, "attack of opportunity")
        if strike.defends:
            old = runner.values.get("no_return")
            mine = tuple(old) if isinstance(old, tuple) else ()
            if enemy.id not in mine:
                ctx.emit(ValueChanged(runner.id, "no_return", old, (*mine, enemy.id),
                                      f"defended: cannot attack {enemy.name} back until "
                                      "next round"))
        return hit

    # --- attacking ------------------------------------------------------------------------

    def _flourish(self, action: str) -> Flourish:
        key = action.partition(":")[2]
        if key not in self.data.flourishes:
            raise RuleError(f"there is no flourish {key!r} (flourishes: "
                            f"{', '.join(self.data.flourishes)})")
        return self.data.flourishes[key]

    def attack_refusal(self, state: Encounter, attacker: Token) -> str:
        """Why ``attacker`` may not attack anyone now ("" when it may)."""
        if not self.fights(attacker):
            return (f"{attacker.name} is {self.health(attacker)}: no combat until Health is "
                    "above 0")
        intent = attacker.values.get("abstain")
        if intent:
            return f"{attacker.name} abstains from combat this turn ({intent})"
        return ""

    def strike(self, state: Encounter, attacker: Token, defender: Token,
               flourish: Flourish | None, weapon_key: str = "",
               check_reach: bool = True, critical: str = "") -> Strike:
        """Check an attack and work out its numbers (changes nothing)."""
        if defender.id == attacker.id:
            raise RuleError(f"{attacker.name} cannot attack themself")
        if not defender.alive:
            raise RuleError(f"{defender.name} is already dead")
        if defender.side == attacker.side:
            raise RuleError(f"{defender.name} is on {attacker.name}'s side")
        weapon = self.weapon_of(attacker)
        if weapon_key and weapon_key != weapon.key:
            raise RuleError(f"{attacker.name} holds the {weapon.name}, not {weapon_key!r}")
        no_return = attacker.values.get("no_return")
        if isinstance(no_return, tuple) and defender.id in no_return:
            raise RuleError(f"{attacker.name} defended {defender.name}'s attack of "
                            "opportunity and cannot attack them back until next round")
        if check_reach:
            gap = grid.edge_distance(state.diagonal, attacker.cell, attacker.size,
                                     defender.cell, defender.size)
            far = weapon.range if weapon.ranged else weapon.reach
            if gap > far + 1e-9:
                raise RuleError(f"{defender.name} is {gap:g} m away; {attacker.name}'s "
                                f"{weapon.name} reaches {far:g} m")
            if not line_of_sight(self.space.walls(state), attacker, defender):
                raise RuleError(f"a wall stands between {attacker.name} and {defender.name}")
        if flourish is not None:
            for key, cost in (("stamina", flourish.stamina), ("faith", flourish.faith)):
                if cost > self.points(attacker, key):
                    raise RuleError(f"{flourish.name} costs {cost} {key}; {attacker.name} has "
                                    f"{self.points(attacker, key)}")
        return self._numbers(state, attacker, defender, weapon, flourish, critical)

    def next_tier_dice(self, attacker: Token) -> DiceSet:
        """The damage dice "of the next whole skill tier of their weapon skill" (the top
        tier has none above: its own)."""
        i = self.tier(self.stat(attacker, "weapon_sl"))
        return self.tier_dice[min(i + 1, len(self.tier_dice) - 1)]

    def critical_choice(self, attacker: Token, critical: str = "") -> str:
        """``"next"`` or ``"normal"``: the dice a critical rolls. "the attacker may roll"
        the next tier's dice: ``critical`` is the attacker's choice (a word starting
        ``next`` or ``normal``); empty, the better one (higher mean; a tie: the next
        tier's, as the text names it)."""
        word = critical.strip().lower()
        if word.startswith("next"):
            return "next"
        if word.startswith("normal"):
            return "normal"
        if word:
            raise RuleError(f"a critical rolls the next tier's dice or the normal ones: say "
                            f"'next' or 'normal', not {critical!r}")
        upper = self.next_tier_dice(attacker)
        form = self.skill(attacker, "form_sl")[0]
        return "normal" if _mean(form) > _mean(upper) else "next"

    def critical_choices(self, attacker: Token) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The odds card's choice of a critical's dice, when the two differ (else none)."""
        upper = self.next_tier_dice(attacker)
        form = self.skill(attacker, "form_sl")[0]
        if upper == form:
            return ()
        return (("Critical damage", (f"next-tier dice ({dice_text(upper)})",
                                     f"normal dice ({dice_text(form)})")),)

    def _numbers(self, state: Encounter, attacker: Token, defender: Token, weapon: Weapon,
                 flourish: Flourish | None, critical: str = "") -> Strike:
        atk, sl, text = self.skill(attacker, "weapon_sl")
        bonus, bonus_why = self._bonus(attacker)
        f_atk = flourish.attack if flourish else 0
        flat = sl + weapon.attack + f_atk + bonus
        attack_text = (f"{dice_text(atk)} + {sl} ({text}, {weapon.family or weapon.name})"
                       + (f"{plus(weapon.attack)} ({weapon.name})" if weapon.attack else "")
                       + (f"{plus(f_atk)} ({flourish.name})" if f_atk and flourish else "")
                       + (f"{plus(bonus)} (situational: {bonus_why})" if bonus else ""))
        surprise = isinstance(state.schedule, Turns) and state.schedule.surprise
        why_not = ""
        if surprise and weapon.ranged:
            why_not = ("a surprise attack: no defence roll, no critical"
                       if self.house_rule(state, "surprise_criticals") == "none" else
                       "a surprise attack: the hit stands (defence rolled for a critical only)")
        elif STUNNED in defender.conditions:
            why_not = f"{defender.name} is stunned: no defence roll"
        elif not self.fights(defender):
            why_not = f"{defender.name} is {self.health(defender)}: no defence roll"
        dfn, dsl, dtext = self.skill(defender, "defense_sl")
        shield = self.gear_dice(self._gear(defender, "shield"), self.stat(defender, "shield_sl"))
        dparts = f"{dice_text(dfn)} + {dsl} (Combat Defense {dtext})"
        if shield[0]:
            dparts += f" + {dice_text(shield)} ({self._gear(defender, 'shield').name})"
        form, fsl, ftext = self.skill(attacker, "form_sl")
        upper = self.next_tier_dice(attacker)
        keep = self.critical_choice(attacker, critical) == "normal"
        crit = form if keep else upper
        f_dmg = flourish.damage if flourish else 0
        dflat = fsl + weapon.damage + f_dmg
        extra = ((f"{plus(weapon.damage)} ({weapon.name})" if weapon.damage else "")
                 + (f"{plus(f_dmg)} ({flourish.name})" if f_dmg and flourish else ""))
        armour = self.gear_dice(self._gear(defender, "armour"), self.stat(defender, "armour_sl"))
        if surprise and weapon.ranged and self.house_rule(state, "surprise_armour") == "ignored":
            armour = (0, 0)
        # "may not critical ... unless declared otherwise by the Storyteller".
        surprise_crit = surprise and weapon.ranged and \
            self.house_rule(state, "surprise_criticals") == "none"
        return Strike(
            attacker.id, defender.id, weapon, flourish, atk, flat, attack_text,
            not why_not, why_not, dfn, dsl, shield, dparts, not surprise_crit,
            form, crit, dflat,
            f"{dice_text(form)} + {fsl} (Combat Form {ftext}){extra}",
            f"{dice_text(form)} + {fsl} (Combat Form {ftext}, kept over the next tier's "
            f"{dice_text(upper)}){extra}" if keep else
            f"{dice_text(crit)} (next tier above weapon {text}) + {fsl} (Combat Form){extra}",
            f"{attacker.name} keeps the normal damage dice ({dice_text(form)}, not the next "
            f"tier's {dice_text(upper)})" if keep else "damage rolls the next tier's dice",
            armour, f"{dice_text(armour)} ({self._gear(defender, 'armour').name}, no modifier)",
            bool(flourish and flourish.stun), bonus, bonus_why,
            surprise and weapon.ranged and not surprise_crit)

    def _bonus(self, token: Token) -> tuple[int, str]:
        b = token.values.get("bonus")
        if isinstance(b, tuple) and len(b) == 2 and isinstance(b[0], int):
            return b[0], str(b[1])
        return 0, ""

    def _check_attack(self, state: Encounter, actor: str, target: str, weapon: str,
                      flourish: Flourish | None, critical: str = "") -> Strike:
        attacker = self.acting(state, actor, ("standard",))
        reason = self.attack_refusal(state, attacker) or \
            ("" if target else "an attack needs a target")
        if reason:
            raise RuleError(reason)
        return self.strike(state, attacker, state.token(target), flourish, weapon,
                           critical=critical)

    def _attack(self, ctx: Resolution, actor: str, target: str, weapon: str,
                flourish: Flourish | None, critical: str = "") -> None:
        state = ctx.state
        s = self._check_attack(state, actor, target, weapon, flourish, critical)
        attacker = state.tokens[actor]
        label = flourish.name if flourish else "attack"
        self.take(ctx, attacker, ("standard",), f"{label} on {state.tokens[target].name}")
        if flourish is not None:
            costs = []
            for key, cost in (("stamina", flourish.stamina), ("faith", flourish.faith)):
                if cost:
                    left = self.points(attacker, key) - cost
                    ctx.emit(ValueChanged(actor, key, attacker.values.get(key), left,
                                          f"{flourish.name} costs {cost} {key}"))
                    costs.append(f"{cost} {key}")
            ctx.emit(Said(f"{attacker.name} declares a flourish before the attack: "
                          f"{flourish.name} ({', '.join(costs) or 'free'})", actor))
        if s.bonus:
            ctx.emit(ValueChanged(actor, "bonus", attacker.values.get("bonus"), None,
                                  "the situational bonus is used"))
        roll_strike(self, ctx, s, label)

    def _preview_attack(self, state: Encounter, actor: str, target: str, weapon: str,
                        flourish: Flourish | None, critical: str = "") -> Preview:
        try:
            s = self._check_attack(state, actor, target, weapon, flourish, critical)
        except RuleError as err:
            return Preview(False, str(err))
        defender = state.tokens[target]
        result = strike_odds(s, defender.hp)
        notes = [f"attack {s.attack_text}",
                 f"defence {s.defence_text} (a tie goes to the defender)" if s.defends
                 else s.why_not,
                 f"damage {s.damage_text}; critical (at least double): {s.crit_text}"
                 if s.can_crit else f"damage {s.damage_text}",
                 f"armour {s.armour_text}" if s.armour[0] else "no armour"]
        attacker = state.tokens[actor]
        upper = self.next_tier_dice(attacker)
        if s.can_crit and upper != s.damage:
            # "the attacker may roll" the next tier's dice: both, so the GM sees the better.
            notes.append(f"a critical may roll the next tier's {dice_text(upper)} "
                         f"(mean {_mean(upper) + s.damage_flat:g}) or the normal "
                         f"{dice_text(s.damage)} (mean {_mean(s.damage) + s.damage_flat:g}), "
                         "before armour")
        if s.stun:
            notes.append(f"a hit stuns {defender.name} for the rest of the round")
        notes.append("damage shown is after armour")
        turns = state.schedule if isinstance(state.schedule, Turns) else None
        # A held turn of the other side may cut in when its condition comes true: the GM
        # decides (resume), so the card names it and its odds stay those of the attack.
        waiting = tuple(
            Reaction(f'{self.who(state, who)} holds a turn: "{condition}" — the GM may '
                     "resume it first, before this attack")
            for who, condition in (turns.held if turns is not None else ())
            if who in state.tokens and state.tokens[who].side != attacker.side)
        # The card lists the odds' lines; the same words again as notes would print twice
        # on a card with a choice (the critical's dice).
        return Preview(True, odds=dataclasses.replace(result, lines=tuple(notes),
                                                      reactions=waiting))

    # --- other actions --------------------------------------------------------------------

    def _act(self, ctx: Resolution, cmd: Act) -> None:
        head = cmd.action.partition(":")[0]
        if head in ("flourish", "strike"):
            flourish = self._flourish(cmd.action) if head == "flourish" else None
            self._attack(ctx, cmd.actor, cmd.target, "", flourish, cmd.detail)
            return
        handler = acts.HANDLERS.get(head)
        if handler is None:
            raise RuleError(f"there is no action {cmd.action!r} (actions: "
                            f"{', '.join(['strike', 'flourish:<name>', *acts.HANDLERS])})")
        handler(self, ctx, cmd)

    def set_value(self, ctx: Resolution, token: Token, key: str, value: Json, why: str) -> None:
        ctx.emit(ValueChanged(token.id, key, token.values.get(key), value, why))

    def set_stance(self, ctx: Resolution, stance: str) -> None:
        ctx.emit(DataChanged("opportunity", ctx.state.data.get("opportunity"), stance))

    forecast_hints = views.forecast_hints  # README "The autopilot"

    def out_of_fight(self, token: Token) -> bool:
        """Unconscious ("unable to act by themselves") or dead. Falling and incapacitated
        tokens attack and defend no more (``fights``) but still move and act: they stay
        in the fight, seen and in the way (README, "Out of the fight")."""
        return self.health(token) in (UNCONSCIOUS, DEAD)


def create(manifest: Manifest) -> Ruleset:
    """The ruleset for this folder's ruleset.toml."""
    return Opposed(manifest)
