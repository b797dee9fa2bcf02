"""The rules: whose turn it is, a move, a d20 attack, and the end of a turn.

Change these to your game's; each method says when the engine calls it.
"""

from __future__ import annotations

from tacmap.api import (
    ActionOption,
    Attack,
    Command,
    ConditionChanged,
    Encounter,
    EndTurn,
    HpChanged,
    LeftReach,
    Manifest,
    Move,
    OrderedTurns,
    Reorder,
    Resolution,
    RoundChanged,
    RuleError,
    Ruleset,
    Said,
    ScheduleChanged,
    StartCombat,
    Token,
    TokenMoved,
    TurnOrder,
    grid,
)

from . import views
from .data import Data


class Rules(Ruleset):
    """Turns in the order the GM sets; each turn a number of actions: move or attack."""

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest)
        self.data = manifest.tables(Data)
        self.stat_block.need("atk", "int")
        self.stat_block.need("ac", "int")

    # --- the turn ---------------------------------------------------------------------

    def turns(self, state: Encounter) -> OrderedTurns:
        """The order of play; RuleError before combat."""
        if not isinstance(state.schedule, OrderedTurns):
            raise RuleError("combat has not started")
        return state.schedule

    def acting(self, state: Encounter, actor: str) -> Token:
        """``actor``, when it is their turn and they can act; RuleError otherwise."""
        token = state.token(actor)
        if self.turns(state).current != actor:
            raise RuleError(f"it is not {token.name}'s turn")
        if not token.alive:
            raise RuleError(f"{token.name} is out of the fight")
        return token

    def spend(self, ctx: Resolution, actor: str) -> None:
        """One action of the turn is used."""
        turns = self.turns(ctx.state)
        ctx.emit(ScheduleChanged(turns, turns.spend(1, actor)))

    def end_turn(self, ctx: Resolution) -> None:
        """The next token still in the fight acts; past the last, a new round begins."""
        state = ctx.state
        turns = nxt = self.turns(state)
        for _ in turns.order:
            nxt = nxt.end_turn()
            token = state.tokens.get(nxt.current or "")
            if token is not None and token.alive:
                break
        if nxt.round != turns.round:
            ctx.emit(RoundChanged(state.round, nxt.round))
        ctx.emit(ScheduleChanged(turns, nxt, f"{nxt.current}'s turn"))

    def joined(self, ctx: Resolution, token: Token) -> None:
        """A combatant added during combat acts last in the order."""
        turns = ctx.state.schedule
        if isinstance(turns, OrderedTurns):
            ctx.emit(ScheduleChanged(turns, turns.add(token.id), f"{token.name} joins"))

    # --- judging commands -------------------------------------------------------------

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        """Judge ``cmd``: emit its events through ``ctx``, or raise RuleError."""
        state = ctx.state
        if isinstance(cmd, StartCombat):
            if state.schedule is not None:
                raise RuleError("combat has already started")
            order = cmd.order or tuple(t.id for t in state.tokens.values() if t.alive)
            for t in order:
                state.token(t)
            ctx.emit(RoundChanged(state.round, 1))
            ctx.emit(ScheduleChanged(None, OrderedTurns.start(order, self.data.turn.actions),
                                     f"order: {', '.join(order)}"))
        elif isinstance(cmd, Move):
            token = self.acting(state, cmd.actor)
            plan = self.plan(state, token, cmd.path)
            reason = plan.blocked or self.move_refusal(state, token, plan)
            if reason:
                raise RuleError(reason)
            self.spend(ctx, token.id)
            ctx.emit(TokenMoved(token.id, plan.cells, plan.cost))
            for enemy, step in plan.leaves:
                ctx.emit(LeftReach(token.id, enemy, step))
        elif isinstance(cmd, Attack):
            self.attack(ctx, self.acting(state, cmd.actor), state.token(cmd.target))
        elif isinstance(cmd, EndTurn):
            turns = self.turns(state)
            if cmd.actor and cmd.actor != turns.current:
                raise RuleError(f"it is not {cmd.actor}'s turn")
            self.end_turn(ctx)
        elif isinstance(cmd, Reorder):
            turns = self.turns(state)
            ctx.emit(ScheduleChanged(turns, turns.reorder(cmd.order), "GM reorders"))
        else:
            super().resolve(ctx, cmd)

    def attack(self, ctx: Resolution, token: Token, target: Token) -> None:
        """d20 + ATK against AC; a hit rolls damage; at 0 HP the target is out."""
        if target.side == token.side:
            raise RuleError(f"{target.name} is on your side")
        if not target.alive:
            raise RuleError(f"{target.name} is already out of the fight")
        gap = self.gap(ctx.state, token, target)
        if gap > self.reach(ctx.state, token):
            raise RuleError(f"{target.name} is {gap:g} m away, out of reach")
        self.spend(ctx, token.id)
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

    # --- what the map and the panels ask ----------------------------------------------

    def stat(self, token: Token, key: str) -> int:
        """A whole-number stat of ``token`` (the stat block's default when it has none)."""
        value = self.stat_block.value(token.stats, key)
        return value if isinstance(value, int) else 0

    def gap(self, state: Encounter, token: Token, target: Token) -> float:
        """Metres between two tokens' edges."""
        return grid.edge_distance(state.diagonal, token.cell, token.size, target.cell,
                                  target.size)

    def attack_range(self, state: Encounter, actor: str) -> list[str]:
        """Living enemies within the actor's reach."""
        token = state.tokens[actor]
        reach = self.reach(state, token)
        return [t.id for t in state.tokens.values() if t.side != token.side and t.alive
                and self.gap(state, token, t) <= reach]

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        """How far one move goes."""
        return self.data.turn.move

    def turn_order(self, state: Encounter) -> TurnOrder | None:
        """The initiative panel."""
        return views.turn_order(state)

    def actions_for(self, state: Encounter, actor: str) -> list[ActionOption]:
        """The Actions panel's buttons."""
        return views.actions_for(self, state, actor)


def create(manifest: Manifest) -> Ruleset:
    """The ruleset the registry loads."""
    return Rules(manifest)
