"""Turns: the bookkeeping of every ruleset whose combatants act one at a time.

A ruleset subclasses ``TurnRuleset`` instead of ``Ruleset`` and gets, from the
``[turn]`` table of its ruleset.toml (``Turn``): the order (set by the GM,
re-rolled each round, or by side), the acting token, turns of tokens out of the
fight skipped, round changes, a movement budget the moves of one turn share, an
action count, occupied cells refused, and moves resolved along their path with
a hook where the mover leaves or enters an enemy's reach. It writes its own
rules (``attack``, ``act``, ``options``) and overrides the hooks that differ::

    class Rules(TurnRuleset[Data]):
        def __init__(self, manifest: Manifest) -> None:
            super().__init__(manifest, Data)

        def attack(self, ctx, token, target, weapon): ...   # d20 + ATK against AC

The turn's state is a ``TurnState`` (an ``OrderedTurns`` that also counts the
metres moved, the diagonals taken and the reactions used); it changes only
through ``ScheduleChanged`` events, so undo, redo and replay restore it exactly.
A ruleset whose saved fights hold a plain ``OrderedTurns`` keeps it by setting
``schedule = OrderedTurns``: everything works but the counts (no diagonal carry,
no shared budget, no reactions counted).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from itertools import pairwise
from typing import Annotated, ClassVar, Generic, Literal, TypeVar, cast

import msgspec
from msgspec.structs import replace

from tacmap.engine.model.commands import Act, Attack, Command, EndTurn, Move, Reorder, StartCombat
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import (
    DiceRolled,
    LeftReach,
    RoundChanged,
    ScheduleChanged,
    TokenMoved,
)
from tacmap.engine.model.records import LONG, Float, Int, Text
from tacmap.engine.model.state import Cell, Encounter, Token
from tacmap.engine.rules.ruleset import Manifest, Resolution, Ruleset, RulesetData, Table
from tacmap.engine.rules.schedule import OrderedTurns, _roll_off
from tacmap.engine.rules.views import (
    ActionOption,
    Aim,
    Odds,
    OrderRow,
    Preview,
    RowState,
    TurnOrder,
)
from tacmap.engine.space import grid
from tacmap.engine.space.geometry import reach_crossing
from tacmap.engine.space.movement import MovePlan, plan_move

#: Where a reaction may interrupt a move: the mover is about to leave a reach, or has
#: just entered one.
Trigger = Literal["leaves", "enters"]


class Turn(Table, kw_only=True):
    """``[turn]``: how combatants take turns. Every key has a default."""

    order: Literal["gm", "rolled", "sides"] = "gm"
    """``"gm"``: the GM's order (Start Combat, Reorder); ``"rolled"``: each round every
    combatant rolls ``initiative_die`` + ``initiative_stat``, highest first;
    ``"sides"``: each round every side rolls ``initiative_die``, and the highest side's
    tokens all act (one at a time, in map order) before the next side's."""
    actions: Annotated[int, msgspec.Meta(ge=1, le=20)] = 1
    """Actions each turn (an attack takes one; a move too when ``move_action``)."""
    move: Annotated[float, msgspec.Meta(ge=0)] = 6.0
    """How far a combatant moves a turn, in the grid's unit (``[grid] unit``)."""
    move_action: bool = False
    """Each move takes an action and may go ``move`` (false: the moves of a turn share
    ``move`` and take no action)."""
    initiative_die: Annotated[int, msgspec.Meta(ge=2)] = 20
    """The die rolled for the order (``"rolled"`` and ``"sides"``)."""
    initiative_stat: str = ""
    """The stat added to a combatant's initiative die (``"rolled"``), or ``""``."""


class TurnData(RulesetData, kw_only=True):
    """ruleset.toml of a ruleset that takes turns: its ``Data`` subclasses this."""

    turn: Turn = msgspec.field(default_factory=Turn)


class TurnState(OrderedTurns, frozen=True, tag="turn_state"):
    """The order and the acting combatant's turn so far: what ``TurnRuleset`` keeps.

    An ``OrderedTurns`` (order, index, round, actions) that also counts what the
    turn has used. Ending a turn clears the turn's counts; a new round clears who
    has used their reaction.
    """

    moved: Float = 0.0
    """Cells moved this turn (a move's cost, under the map's diagonal rule)."""
    diagonals: Int = 0
    """Diagonal steps taken this turn: the alternating rule counts on across moves."""
    extra_move: Float = 0.0
    """Cells of movement the turn gained (a Dash)."""
    reacted: Annotated[tuple[Text, ...], LONG] = ()
    """Who has used their reaction this round."""
    initiative: Annotated[tuple[tuple[Text, Int], ...], LONG] = ()
    """This round's rolled initiative, by token (or side) id, for the panel."""

    def end_turn(self) -> TurnState:
        """The next combatant's turn with fresh counts; after the last, the next round."""
        nxt = cast(TurnState, super().end_turn())
        return replace(nxt, moved=0.0, diagonals=0, extra_move=0.0,
                       reacted=self.reacted if nxt.round == self.round else ())

    def remove(self, who: str) -> TurnState:
        """``who`` leaves the order (if it was their turn, the next one starts fresh)."""
        nxt = cast(TurnState, super().remove(who))
        if nxt.current == self.current and nxt.round == self.round:
            return nxt
        return replace(nxt, moved=0.0, diagonals=0, extra_move=0.0,
                       reacted=self.reacted if nxt.round == self.round else ())


D = TypeVar("D", bound=TurnData)
#: The notes of the ScheduleChanged events the machinery emits, by occasion.
Occasion = Literal["start", "turn", "reorder", "join", "move", "stop"]


def counts(turns: OrderedTurns) -> TurnState:
    """The turn's counts: ``turns`` itself when it keeps them, else none counted."""
    if isinstance(turns, TurnState):
        return turns
    return TurnState(turns.order, turns.index, turns.round, turns.actions_per_turn,
                     turns.actions_left)


def counted(turns: OrderedTurns, **changes: object) -> OrderedTurns:
    """``turns`` with those of ``changes`` its type keeps (a plain OrderedTurns keeps no
    counts)."""
    kept = {k: v for k, v in changes.items() if k in type(turns).__struct_fields__}
    return replace(turns, **kept) if kept else turns


def emit_move(ctx: Resolution, token: Token, plan: MovePlan) -> None:
    """Emit a planned move nobody interrupts: one ``TokenMoved`` along it, then a
    ``LeftReach`` for each reach it leaves, in the order it leaves them. How every move is
    reported; also for rulesets whose round is not a turn order (phases, declarations)."""
    ctx.emit(TokenMoved(token.id, plan.cells, plan.cost))
    for enemy, step in plan.leaves:
        ctx.emit(LeftReach(token.id, enemy, step))


def diagonal_steps(cells: Sequence[Cell]) -> int:
    """How many steps of a route of neighbouring cells are diagonal."""
    return sum(1 for a, b in pairwise(cells) if a[0] != b[0] and a[1] != b[1])


def costs_along(rule: str, cells: Sequence[Cell], before: int, total: float) -> list[float]:
    """What the route has cost on reaching each of its cells, the last being ``total``
    (the plan's cost: a straight euclidean leg costs less than its cells one by one)."""
    out, diagonals, spent = [0.0], before, 0.0
    for a, b in pairwise(cells):
        spent += grid.step_cost(rule, a, b, diagonals)
        diagonals += a[0] != b[0] and a[1] != b[1]
        out.append(spent)
    return [c * total / spent if spent else 0.0 for c in out]


class TurnRuleset(Ruleset, Generic[D]):
    """A ruleset whose combatants take turns: the turn machinery, with hooks to override.

    Declare ``[turn]`` in ruleset.toml (``Turn``); write ``attack``, ``act`` and
    ``options``; override ``speed``, ``initiative``, ``reacts_to``/``react``,
    ``round_started``/``turn_started``/``turn_ended``, ``attack_odds`` where the
    game differs.
    """

    schedule: ClassVar[type[OrderedTurns]] = TurnState
    """The record the turn is kept in: ``TurnState``, or a plain ``OrderedTurns`` for
    saved fights that hold one (no counts: no diagonal carry, shared budget or reactions)."""

    def __init__(self, manifest: Manifest, data: type[D]) -> None:
        super().__init__(manifest)
        self.data: D = manifest.tables(data)
        """ruleset.toml as the ruleset's typed tables."""
        self.turn = self.data.turn
        """The ``[turn]`` table."""
        if self.turn.order == "rolled" and self.turn.initiative_stat:
            self.stat_block.need(self.turn.initiative_stat, "int")

    # --- reading the turn ------------------------------------------------------------

    def turns(self, state: Encounter) -> OrderedTurns:
        """The turn state (``counts`` reads what it counts); RuleError before combat."""
        if not isinstance(state.schedule, self.schedule):
            raise RuleError("combat has not started")
        return state.schedule

    def in_combat(self, state: Encounter) -> bool:
        """Whether combat has started under this machinery."""
        return isinstance(state.schedule, self.schedule)

    def acting(self, state: Encounter, actor: str) -> Token:
        """``actor``, when it is their turn and they are in the fight; RuleError otherwise."""
        turns = self.turns(state)
        token = state.token(actor)
        if turns.current != actor:
            raise RuleError(self.not_turn(state, actor))
        if self.out_of_fight(token):
            raise RuleError(self.cannot_act(token))
        return token

    def not_turn(self, state: Encounter, actor: str) -> str:
        """The refusal when ``actor`` acts out of turn (override to word it your way)."""
        return f"it is not {state.token(actor).name}'s turn"

    def cannot_act(self, token: Token) -> str:
        """The refusal when ``token``, out of the fight, tries to act on its turn."""
        return f"{token.name} is out of the fight"

    def fighting(self, state: Encounter, token_id: str | None) -> bool:
        """Whether ``token_id`` is on the map and in the fight."""
        token = state.tokens.get(token_id or "")
        return token is not None and not self.out_of_fight(token)

    def stat(self, token: Token, key: str) -> int:
        """A whole-number stat of ``token`` (the stat block's default, else 0).

        LookupError, in one sentence, for a name a declared stat block lacks: a typo
        (``"armour"`` for ``"ac"``) would otherwise read 0 and pass every test."""
        fields = self.stat_fields()
        known = any(f.key == key for f in fields)
        # Only sight (the engine's own): the ruleset declares no stat block and reads freely.
        if not known and any(f.key != "sight" for f in fields):
            raise LookupError(f"the rules read the stat {key!r}, which [stat_block] does not "
                              f"declare (it has: {', '.join(f.key for f in fields)})")
        value = self.stat_block.value(token.stats, key) if known else token.stats.get(key, 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    def gap(self, state: Encounter, token: Token, target: Token) -> float:
        """Cells between two tokens' edges, as reach is measured."""
        return grid.edge_distance(self.reach_rule(state), token.cell, token.size,
                                  target.cell, target.size)

    def in_reach(self, state: Encounter, token: Token, target: Token) -> bool:
        """Whether ``target`` is within ``token``'s melee reach."""
        return self.gap(state, token, target) <= self.reach(state, token)

    def speed(self, state: Encounter, token: Token) -> float:
        """Cells ``token`` moves a turn: ``[turn] move`` in the grid's unit (override for a
        speed stat)."""
        return self.turn.move / self.manifest.units.cell_size

    def has_reaction(self, state: Encounter, token: Token) -> bool:
        """Whether ``token`` has its reaction of this round left."""
        return self.in_combat(state) and token.id not in counts(self.turns(state)).reacted

    # --- changing the turn (each through a ScheduleChanged) -----------------------------

    def spend(self, ctx: Resolution, token: Token, n: int = 1, what: str = "") -> None:
        """``n`` of the turn's actions are used (on ``what``); RuleError if too few are left."""
        turns = self.turns(ctx.state)
        if turns.actions_left < n:
            raise RuleError(f"{token.name} has no actions left this turn" if not
                            turns.actions_left else f"{token.name} has only "
                            f"{turns.actions_left} actions left this turn")
        new = turns.spend(n, token.id)
        ctx.emit(ScheduleChanged(turns, new, f"{token.name}: {what}" if what else ""))

    def schedule_note(self, state: Encounter, new: OrderedTurns, occasion: Occasion) -> str:
        """The log's words for a change of the turn the machinery makes (override to
        word them as your game does)."""
        def name(token_id: str | None) -> str:
            token = state.tokens.get(token_id or "")
            return token.name if token is not None else str(token_id)

        if occasion == "start":
            return f"order: {', '.join(name(t) for t in new.order)}"
        if occasion == "turn":
            return f"{name(new.current)}'s turn"
        return {"reorder": "GM reorders", "stop": "the move stops"}.get(occasion, "")

    def grant_move(self, ctx: Resolution, token: Token, cells: float, why: str) -> None:
        """The turn gains ``cells`` of movement (a Dash)."""
        turns = self.turns(ctx.state)
        more = counted(turns, extra_move=counts(turns).extra_move + cells)
        if more == turns:
            raise RuleError(f"{self.manifest.name} keeps no movement count (schedule)")
        ctx.emit(ScheduleChanged(turns, more, f"{token.name}: {why}"))

    def use_reaction(self, ctx: Resolution, token: Token) -> None:
        """``token`` uses its reaction of this round."""
        turns = self.turns(ctx.state)
        used = counted(turns, reacted=(*counts(turns).reacted, token.id))
        if used == turns:
            raise RuleError(f"{self.manifest.name} keeps no count of reactions (schedule)")
        ctx.emit(ScheduleChanged(turns, used, f"{token.name} reacts"))

    # --- judging ---------------------------------------------------------------------

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        """Start combat, moves, the end of a turn and the GM's order; ``attack`` and ``act``
        for the rest."""
        state = ctx.state
        if isinstance(cmd, StartCombat):
            self.start_combat(ctx, cmd.order)
        elif isinstance(cmd, Move):
            # Before combat ``move_turn_refusal`` says whether a move is allowed (placing).
            mover = self.acting(state, cmd.actor) if self.in_combat(state) \
                else state.token(cmd.actor)
            self.move(ctx, mover, cmd.path)
        elif isinstance(cmd, Attack):
            self.attack(ctx, self.acting(state, cmd.actor), state.token(cmd.target), cmd.weapon)
        elif isinstance(cmd, Act):
            self.act(ctx, self.acting(state, cmd.actor), cmd)
        elif isinstance(cmd, EndTurn):
            turns = self.turns(state)
            if cmd.actor and cmd.actor != turns.current:
                raise RuleError(self.not_turn(state, cmd.actor))
            self.end_turn(ctx)
        elif isinstance(cmd, Reorder):
            self.reorder(ctx, cmd.order)
        else:
            super().resolve(ctx, cmd)

    def reorder(self, ctx: Resolution, order: Sequence[str]) -> None:
        """The GM sets the order: the same combatants, whoever acts keeps the turn (override
        for a game whose GM may also leave combatants out or bring them in)."""
        turns = self.turns(ctx.state)
        new = turns.reorder(order)
        ctx.emit(ScheduleChanged(turns, new, self.schedule_note(ctx.state, new, "reorder")))

    def attack(self, ctx: Resolution, token: Token, target: Token, weapon: str) -> None:
        """``token`` attacks ``target`` on its turn (override: the base has no attack)."""
        raise RuleError(f"{self.manifest.name} has no attack")

    def act(self, ctx: Resolution, token: Token, cmd: Act) -> None:
        """``token`` takes the action ``cmd.action`` on its turn (the keys of ``options``)."""
        raise RuleError(f"{self.manifest.name} has no action {cmd.action!r}")

    # --- the round -------------------------------------------------------------------

    def start_combat(self, ctx: Resolution, order: Sequence[str] = ()) -> None:
        """Round 1: the order (``order`` or every token in the fight), the first turn."""
        state = ctx.state
        if state.schedule is not None:
            raise RuleError("combat has already started")
        ids = tuple(order) or tuple(t.id for t in state.tokens.values()
                                    if not self.out_of_fight(t))
        for tid in ids:
            state.token(tid)
        turns = self.schedule.start(ids, self.turn.actions)
        ctx.emit(RoundChanged(state.round, 1))
        self.combat_starts(ctx, ids)
        turns = self.first_up(ctx, self.ordered(ctx, turns))
        ctx.emit(ScheduleChanged(None, turns, self.schedule_note(state, turns, "start")))
        self.round_started(ctx)
        self.begin(ctx)

    def end_turn(self, ctx: Resolution) -> None:
        """The next combatant in the fight acts; past the last, a new round (re-rolled)."""
        state = ctx.state
        turns = self.turns(state)
        ending = state.tokens.get(turns.current or "")
        if ending is not None:
            self.turn_ended(ctx, ending)
            turns = self.turns(state)
        nxt = self.first_up(ctx, turns.end_turn(), turns.round)
        ctx.emit(ScheduleChanged(turns, nxt, self.schedule_note(state, nxt, "turn")))
        if nxt.round != turns.round:
            self.round_started(ctx)
        self.begin(ctx)

    def first_up(self, ctx: Resolution, turns: OrderedTurns, was: int | None = None
                 ) -> OrderedTurns:
        """``turns`` moved on past tokens out of the fight; a round passed re-rolls the order
        and emits its ``RoundChanged``."""
        state = ctx.state
        seen = was if was is not None else turns.round
        # Each place in the order is looked at once: with nobody left in the fight the
        # turn stops on someone rather than run round after round.
        for step in range(len(turns.order)):
            if turns.round != seen:
                ctx.emit(RoundChanged(state.round, turns.round))
                seen = turns.round
                turns = self.ordered(ctx, turns)
            if self.fighting(state, turns.current) or step == len(turns.order) - 1:
                break
            turns = turns.end_turn()
        return turns

    def begin(self, ctx: Resolution) -> None:
        """Call ``turn_started`` for whoever acts now."""
        token = ctx.state.tokens.get(self.turns(ctx.state).current or "")
        if token is not None and not self.out_of_fight(token):
            self.turn_started(ctx, token)

    def ordered(self, ctx: Resolution, turns: OrderedTurns) -> OrderedTurns:
        """``turns`` at a round's start in this round's order: the GM's kept, or rolled."""
        state = ctx.state
        if self.turn.order == "gm":
            return turns
        # Rolled in last round's order; placed by the roll, then by the map's order.
        place = {t: i for i, t in enumerate(state.tokens)}
        ids = [t for t in turns.order if t in place]
        out = [t for t in ids if self.out_of_fight(state.tokens[t])]
        rolled: dict[str, int] = {}
        if self.turn.order == "rolled":
            fighting = [t for t in ids if t not in out]
            for tid in fighting:
                rolled[tid] = self.initiative(ctx, state.tokens[tid])
            # Ties go to the higher stat, then to the token first on the map: no extra dice.
            stat = self.turn.initiative_stat
            fighting.sort(key=lambda t: (-rolled[t], -self.stat(state.tokens[t], stat)
                                         if stat else 0, place[t]))
            new = (*fighting, *out, *(t for t in turns.order if t not in ids))
        else:
            sides = list(dict.fromkeys(state.tokens[t].side for t in ids if t not in out))

            def label(side: str, depth: int) -> tuple[str, str]:
                return "", f"initiative of {side}" + (" (tie)" if depth else "")

            seqs, rolls, _ = _roll_off([tuple(sides)], {}, ctx.dice, self.turn.initiative_die,
                                       label)
            for who, why, roll in rolls:
                ctx.emit(DiceRolled(who, why, roll))
            sides.sort(key=lambda s: tuple(-f for f in seqs[s]))
            rolled = {s: seqs[s][0] for s in sides}
            on_map = sorted(ids, key=place.__getitem__)
            new = (*(t for s in sides for t in on_map if state.tokens[t].side == s
                     and t not in out), *out, *(t for t in turns.order if t not in ids))
        return counted(replace(turns, order=new, index=0), initiative=tuple(rolled.items()))

    def initiative(self, ctx: Resolution, token: Token) -> int:
        """``token``'s initiative this round: ``initiative_die`` + ``initiative_stat``."""
        roll = ctx.roll(token.id, 1, self.turn.initiative_die, "initiative")
        stat = self.turn.initiative_stat
        return roll.total + (self.stat(token, stat) if stat else 0)

    def joined(self, ctx: Resolution, token: Token) -> None:
        """A combatant added during combat acts last this round (rolled from the next)."""
        if self.in_combat(ctx.state):
            turns = self.turns(ctx.state)
            new = turns.add(token.id)
            note = self.schedule_note(ctx.state, new, "join") or f"{token.name} joins"
            ctx.emit(ScheduleChanged(turns, new, note))

    # --- hooks -------------------------------------------------------------------------

    def combat_starts(self, ctx: Resolution, order: Sequence[str]) -> None:
        """Combat is starting (round 1, before the order is set): emit what it resets."""

    def round_started(self, ctx: Resolution) -> None:
        """A round has begun (its order set): emit what the rules do then."""

    def turn_started(self, ctx: Resolution, token: Token) -> None:
        """``token``'s turn has begun: emit what ends or starts then (a Dodge ends)."""

    def turn_ended(self, ctx: Resolution, token: Token) -> None:
        """``token``'s turn is ending: emit what ends with it (a Disengage)."""

    def reacts_to(self, state: Encounter, enemy: Token, mover: Token, trigger: Trigger) -> bool:
        """Whether ``enemy`` may react where ``mover`` ``leaves``/``enters`` its reach (the
        move is then walked in parts, stopping there for ``react``). Default: never."""
        return False

    def react(self, ctx: Resolution, enemy: Token, mover: Token, trigger: Trigger) -> bool:
        """``enemy`` reacts to ``mover`` at that point of its path; True stops the move there.
        The move stops anyway when the mover is out of the fight."""
        return False

    def attack_odds(self, state: Encounter, token: Token, target: Token,
                    weapon: str) -> Odds | None:
        """The odds card of an allowed attack (``tacmap.engine.rules.odds``), or None."""
        return None

    # --- moving ----------------------------------------------------------------------

    def plan(self, state: Encounter, token: Token, waypoints: Sequence[Cell],
             version: object = None) -> MovePlan:
        """The base plan, priced on from the diagonals this turn has taken (the alternating
        rule counts across the moves of a turn), with reach and blocking by ``out_of_fight``."""
        if not waypoints:
            raise RuleError("a move needs at least one cell to go to")

        def reach_of(t: Token) -> float:
            return -1.0 if self.out_of_fight(t) else self.reach(state, t)

        def blocks(other: Token) -> bool:
            return self.bars_way(state, token, other)

        turns = state.schedule
        before = counts(turns).diagonals if isinstance(turns, OrderedTurns) \
            and turns.current == token.id else 0
        return plan_move(state, self.space, version, token, waypoints, reach_of,
                         self.space.max_reach(state, version, reach_of),
                         self.space.fields(state, version), self.reach_rule(state), blocks,
                         self.out_of_fight, before)

    def bars_way(self, state: Encounter, mover: Token, other: Token) -> bool:
        """An enemy still in the fight bars the way (unless ``[grid] through_enemies``)."""
        return super().bars_way(state, mover, other) and not self.out_of_fight(other)

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        """Cells ``token`` may still move this turn (0 when it is not its turn)."""
        if not self.in_combat(state):
            return 0.0
        turns = counts(self.turns(state))
        if turns.current != token.id or self.out_of_fight(token):
            return 0.0
        full = self.speed(state, token) + turns.extra_move
        return full if self.turn.move_action else max(0.0, full - turns.moved)

    def move_refusal(self, state: Encounter, token: Token, plan: MovePlan) -> str | None:
        """Not its turn, no action left (a move that takes one), an occupied cell, too far."""
        reason = self.move_turn_refusal(state, token)
        if reason:
            return reason
        end = plan.cells[-1]
        if len(plan.cells) < 2:
            return f"{token.name} is already at ({end[0]},{end[1]})"
        for other in plan.occupants:
            if other in state.tokens and self.holds_cell(state, state.tokens[other]):
                return f"({end[0]},{end[1]}) is taken by {state.tokens[other].name}"
        return super().move_refusal(state, token, plan)

    def holds_cell(self, state: Encounter, token: Token) -> bool:
        """Whether a move may not end on ``token``'s square: while it is in the fight
        (override where a fallen body still takes up the room)."""
        return not self.out_of_fight(token)

    def move_turn_refusal(self, state: Encounter, token: Token) -> str | None:
        """Why ``token`` may not move now as far as the turn goes: not its turn, out of the
        fight, no action left for a move that takes one (override for free moves before
        combat, or a turn shape of your own)."""
        try:
            self.acting(state, token.id)
        except RuleError as err:
            return str(err)
        if self.turn.move_action and self.turns(state).actions_left == 0:
            return f"{token.name} has no actions left this turn"
        return None

    def move_uses(self, state: Encounter, token: Token, plan: MovePlan) -> str:
        """What the move spends and leaves: ``4 m: 2 m left this turn``."""
        budget = self.move_budget(state, token) or 0.0
        u = self.manifest.units
        if self.turn.move_action:
            left = self.turns(state).actions_left - 1
            return f"one action: {left} left this turn"
        return f"{u.of(plan.cost)}: {u.of(max(0.0, budget - plan.cost))} left this turn"

    def move(self, ctx: Resolution, token: Token, path: Sequence[Cell]) -> None:
        """Move ``token`` along its planned path, stopping where a reaction ends the move."""
        state = ctx.state
        plan = self.plan(state, token, path)
        reason = plan.blocked or self.move_refusal(state, token, plan)
        if reason:
            raise RuleError(reason)
        # A ruleset may allow moves before combat (placing tokens): nothing is counted then.
        was = counts(self.turns(state)) if self.in_combat(state) else TurnState(())
        self.move_spends(ctx, token, plan)
        walked = self.walk(ctx, token, plan, was.diagonals)
        cells = plan.cells[:walked + 1]
        if walked < len(plan.cells) - 1 and self.in_combat(state):
            now = self.turns(state)
            cost = costs_along(state.diagonal, plan.cells, was.diagonals, plan.cost)[walked]
            new = counted(now, moved=was.moved + cost,
                          diagonals=was.diagonals + diagonal_steps(plan.cells[:walked + 1]))
            if new != now:
                ctx.emit(ScheduleChanged(now, new, self.schedule_note(state, new, "stop")))
        self.moved(ctx, token, cells)

    def moved(self, ctx: Resolution, token: Token, cells: Sequence[Cell]) -> None:
        """``token``'s move is over, along ``cells`` (the part walked): emit what answers a
        finished move (a game whose reactions come after the whole move, not on the way)."""

    def move_spends(self, ctx: Resolution, token: Token, plan: MovePlan) -> None:
        """Emit what the planned move spends before it is walked: an action (``move_action``),
        and the metres and diagonals the turn counts (nothing before combat)."""
        if not self.in_combat(ctx.state):
            return
        turns = self.turns(ctx.state)
        was = counts(turns)
        spent = turns.spend(1, token.id) if self.turn.move_action else turns
        new = counted(spent, moved=was.moved + plan.cost,
                      diagonals=was.diagonals + diagonal_steps(plan.cells))
        if new != turns:
            # Without words of its own the log said "the round moves on" for every step.
            note = self.schedule_note(ctx.state, new, "move") or f"{token.name} moves"
            ctx.emit(ScheduleChanged(turns, new, note))

    def stops(self, state: Encounter, token: Token, cells: Sequence[Cell]
              ) -> list[tuple[int, str, Trigger]]:
        """Where along ``cells`` an enemy may react: (index of the cell the mover is on,
        enemy id, trigger), in path order."""
        rule = self.reach_rule(state)
        found: list[tuple[int, int, str, Trigger]] = []
        for order, enemy in enumerate(self.enemies(state, token)):
            entered, left = reach_crossing(rule, cells, token, enemy, self.reach(state, enemy))
            if entered is not None and entered > 0 \
                    and self.reacts_to(state, enemy, token, "enters"):
                found.append((entered, order, enemy.id, "enters"))
            if left is not None and self.reacts_to(state, enemy, token, "leaves"):
                found.append((left - 1, order, enemy.id, "leaves"))
        return [(at, enemy, trigger) for at, _, enemy, trigger in sorted(found)]

    def walk(self, ctx: Resolution, token: Token, plan: MovePlan, before: int = 0) -> int:
        """Emit the move along ``plan``: in one ``TokenMoved`` when nobody reacts, else in
        parts with ``react`` between them (``before``: diagonals the turn took before this
        move). The index of the cell where it ended."""
        state, cells = ctx.state, plan.cells
        stops = self.stops(state, token, cells)
        if not stops:
            emit_move(ctx, token, plan)
            return len(cells) - 1
        at = 0
        along = costs_along(state.diagonal, cells, before, plan.cost)
        for index, enemy_id, trigger in [*stops, (len(cells) - 1, "", "enters")]:
            if index > at:
                ctx.emit(TokenMoved(token.id, cells[at:index + 1], along[index] - along[at]))
                for enemy, step in plan.leaves:
                    if at < step <= index:
                        ctx.emit(LeftReach(token.id, enemy, step))
                at = index
            enemy_token = state.tokens.get(enemy_id)
            if enemy_token is None or self.out_of_fight(enemy_token):
                continue
            stop = self.react(ctx, enemy_token, token, trigger)
            if stop or not self.fighting(state, token.id):
                return at
        return at

    # --- what the panels ask ------------------------------------------------------------

    def turn_order(self, state: Encounter) -> TurnOrder | None:
        """The order of play, the acting token first among equals; None before combat (the
        folder's ``views.turn_order(rules, state)`` instead, when it has one)."""
        own = self.own("views", "turn_order")
        if own is not None:
            return own(self, state)  # type: ignore[no-any-return]
        if not self.in_combat(state):
            return None
        turns = self.turns(state)
        rolled = dict(counts(turns).initiative)
        rows = []
        for i, tid in enumerate(turns.order):
            t = state.tokens.get(tid)
            if t is None:
                continue
            status: RowState = ("acting" if i == turns.index else "out"
                                if self.out_of_fight(t) else "done" if i < turns.index
                                else "waiting")
            roll = rolled.get(tid, rolled.get(t.side))
            key = f"#{i + 1}" if roll is None else str(roll)
            detail = self.turn_detail(state, t) if status == "acting" else ""
            rows.append(OrderRow(tid, t.name, t.side, key, status, detail))
        return TurnOrder(f"Round {turns.round}", tuple(rows))

    def turn_detail(self, state: Encounter, token: Token) -> str:
        """The acting row's detail: actions and movement left."""
        if self.out_of_fight(token):
            return "out of the fight: end the turn"
        turns = self.turns(state)
        n = turns.actions_left
        actions = f"{n} action{'' if n == 1 else 's'}"
        if self.turn.move_action:
            return f"{actions} left"
        return f"{actions}, {self.manifest.units.of(self.move_budget(state, token) or 0)} left"

    def options(self, state: Encounter, token: Token) -> list[ActionOption]:
        """The acting token's own actions (attacks, a Dash …), before Move and End turn:
        the folder's ``views.options(rules, state, token)`` when it has one."""
        own = self.own("views", "options")
        return list(own(self, state, token)) if own is not None else []

    def option(self, state: Encounter, key: str, label: str, target: Aim = "none",
               why_not: str = "", cost: int = 1) -> ActionOption:
        """An action the turn offers: disabled with the reason when no action is left or
        ``why_not`` says why."""
        left = self.turns(state).actions_left
        reason = "no actions left this turn" if left < cost else why_not
        return ActionOption(key, label, target, enabled=not reason, reason=reason)

    def actions_for(self, state: Encounter, actor: str) -> list[ActionOption]:
        """``options``, then Move and End turn, for the acting token; nothing for the others
        (the folder's ``views.actions_for(rules, state, actor)`` instead, when it has one)."""
        own = self.own("views", "actions_for")
        if own is not None:
            return list(own(self, state, actor))
        token = state.tokens.get(actor)
        if not self.in_combat(state) or token is None or self.turns(state).current != actor:
            return []
        turns = self.turns(state)
        end = ActionOption("end_turn", "End turn")
        if self.out_of_fight(token):
            return [end]
        budget = self.move_budget(state, token) or 0.0
        why = "no actions left this turn" if self.turn.move_action and not turns.actions_left \
            else "" if budget > 0 else "no movement left this turn"
        move = ActionOption("move", "Move", "cell", enabled=not why, reason=why)
        return [*self.options(state, token), move, end]

    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview:
        """The base preview, with ``attack_odds`` on an allowed attack."""
        seen = super().preview(state, cmd, version)
        if seen.legal and isinstance(cmd, Attack):
            odds = self.attack_odds(state, state.token(cmd.actor), state.token(cmd.target),
                                    cmd.weapon)
            if odds is not None:
                return dataclasses.replace(seen, odds=odds)
        return seen
