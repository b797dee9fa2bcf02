"""Speed Rank (seed 001): side initiative on 1d10, Combat Events, and the speed-rank timeline.

Command flow at the table (README.md has the whole story):

* ``start_combat`` begins round 1: every side rolls 1d10, ties re-roll (one
  Combat Event per forced re-roll), and play stands in phase S with the first
  side in initiative order.
* In each phase the sides take turns in initiative order. On its turn a side's
  combatants ``attack``, ``move`` or ``act`` (sprint, cast, sustain, cancel,
  stand, pick_up, free_weapon, break_free), no sooner than their base speed
  (weapon speed for attacks), out of one standard and one move action a round.
* ``end_turn`` passes to the next side that can do something in this phase,
  then to the next phase, and after F starts the next round with a new roll.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from msgspec.structs import replace

from tacmap.api import (
    SPEED_PHASES,
    Act,
    Attack,
    Command,
    DiceRolled,
    Encounter,
    EndTurn,
    HpChanged,
    Manifest,
    Move,
    MovePlan,
    Odds,
    PhaseTimeline,
    Preview,
    Reorder,
    Resolution,
    RoundChanged,
    RuleError,
    Ruleset,
    Said,
    ScheduleChanged,
    SideInitiative,
    StartCombat,
    TimedAction,
    Token,
    ValueChanged,
    condition_change,
    emit_move,
    grid,
    odds,
    phase_index,
    plural,
    possessive,
    removal,
)

from . import events_table, facts, multi_phase, recovery, views, waiting
from .data import MOUNT_TYPES, SAVE_NAMES, CheckLevel, Cost, Data, SaveKind, Weapon
from .round import PHASE_F, PHASE_S, AttackMark, Plan, Round, passing
from .speeds import Speeds, remember

ACTS = ("sprint", "cast", "sustain", "cancel", "stand", "pick_up", "free_weapon", "break_free")
#: The whole-number stats the rules read (besides race, weapon, spells, mount and items).
INT_STATS = ("dex", "ac", "to_hit", "damage", "save", "riding", "strength_bonus", "mount_speed")


@dataclass(frozen=True)
class AttackNumbers:
    """Everything an attack roll needs, worked out before any die is thrown."""

    weapon: Weapon
    to_hit: int
    ac: int
    flat: int
    hp_margin: int


# --------------------------------------------------------------------------- the ruleset


class SpeedRank(Ruleset):
    """Seed 001 on the engine's SideInitiative and PhaseTimeline."""

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest)
        self.data = d = manifest.tables(Data)
        self.races, self.weapons, self.spells = d.races, d.weapons, d.spells
        self.table, self.max_rerolls = d.combat_events.table, d.combat_events.max_rerolls
        self.dex_table = sorted(d.dexterity.speed_modifier)
        self.piece_ac = d.armour.pieces()
        self.costs = d.action_costs
        self.speeds = Speeds(self.races, self.dex_table, self.stat_block.default)
        self._odds: dict[tuple[str, int, int, int, int], Odds] = {}
        self._need_stats()

    def _need_stats(self) -> None:
        """Say which stats of [stat_block] the rules read, so a missing one stops the load."""
        block = self.stat_block
        block.need("race", "choice", among=self.races, table="races")
        block.need("weapon", "choice", among=self.weapons, table="weapons")
        block.need("spells", "choices", among=self.spells, table="spells")
        block.need("mount_type", "choice", among=MOUNT_TYPES)
        for key in INT_STATS:
            block.need(key, "int")
        for key in self.piece_ac:
            block.need(key, "bool")
        block.need("items", "choices")
        block.need("mount", ("text", "choice"))

    # ------------------------------------------------------------------ stat block

    def dist(self, cells: float) -> str:
        """``cells`` in the ruleset's unit, [grid] unit and cell_size: ``"30 ft"``."""
        return self.manifest.units.of(cells)

    def stat(self, token: Token, key: str) -> Any:
        """A stat from the token's block, or its default from [stat_block]."""
        return self.speeds.stat(token, key)

    def speed_modifier(self, dex: int) -> int:
        """The Dexterity speed modifier (18 → +1, 5 → −1 in the text)."""
        return self.speeds.modifier(dex)

    def base_speed(self, token: Token) -> int:
        """Speed rank from race, with the Dexterity modifier "taken away from the Speed Rank"."""
        return self.speeds.base(token)

    def weapon_speed(self, token: Token, weapon: Weapon) -> int:
        """The weapon's speed with the wielder's Dexterity modifier taken away, like base speed."""
        return self.speeds.weapon(token, weapon)

    def held_weapon(self, token: Token) -> Weapon:
        """The weapon in the stat block (fists when none)."""
        return self.weapons[self.stat(token, "weapon")]

    def usable(self, token: Token) -> Weapon:
        """The weapon the token can use now: its own, or fists when it is dropped or stuck."""
        w = self.held_weapon(token)
        if w.key in self.dropped(token) or "weapon stuck" in token.conditions:
            return self.weapons["unarmed"]
        return w

    def item_name(self, key: str) -> str:
        """A carried item's name for the log: a weapon's name, or the item's key."""
        return self.weapons[key].name if key in self.weapons else key

    def dropped(self, token: Token) -> tuple[str, ...]:
        """Items the token has dropped."""
        return tuple(token.values.get("dropped", ()) or ())

    def damaged(self, token: Token) -> tuple[str, ...]:
        """The token's damaged items and armour pieces."""
        return tuple(token.values.get("damaged", ()) or ())

    def active(self, state: Encounter, token: Token, key: str) -> bool:
        """Whether a round-long effect (``values[key]`` = its last round) still holds."""
        until = token.values.get(key)
        return isinstance(until, int) and until >= state.round

    def ac(self, state: Encounter, token: Token) -> int:
        """AC: the stat block's, less damaged (or dropped) pieces, plus a Lucky Break."""
        ac = int(self.stat(token, "ac"))
        lost = set(self.damaged(token)) | ({"shield"} & set(self.dropped(token)))
        for piece, worth in self.piece_ac.items():
            if piece in lost and self.stat(token, piece):
                ac -= worth
        if self.active(state, token, "lucky_break"):
            ac += self.data.events.lucky_break.ac
        return ac

    def to_hit(self, state: Encounter, token: Token) -> int:
        """To-Hit bonus: the stat block's, plus a Lucky Opening."""
        bonus = int(self.stat(token, "to_hit"))
        if self.active(state, token, "lucky_opening"):
            bonus += self.data.events.lucky_opening.to_hit
        return bonus

    def save_bonus(self, state: Encounter, token: Token, against: Token | None = None) -> int:
        """Saving throw bonus: the stat block's, a Lucky Break, a Lucky Opening against."""
        bonus = int(self.stat(token, "save"))
        if self.active(state, token, "lucky_break"):
            bonus += self.data.events.lucky_break.saves
        if against is not None and self.active(state, against, "lucky_opening"):
            bonus += self.data.events.lucky_opening.saves_against
        return bonus

    def known_spells(self, token: Token) -> list[str]:
        """Memorized spells not yet cast (a spell listed twice can be cast twice)."""
        left = list(self.stat(token, "spells"))
        for key in token.values.get("spells_cast", ()) or ():
            if key in left:
                left.remove(key)
        return left

    def helpless(self, token: Token) -> str:
        """The condition that stops ``token`` acting, or ``""``."""
        if not token.conditions:
            return ""
        return next((c for c in token.conditions if c in self.data.actions.helpless), "")

    def immobile(self, token: Token) -> str:
        """The condition that stops ``token`` moving, or ``""``."""
        if not token.conditions:
            return ""
        return next((c for c in token.conditions if c in self.data.actions.immobile), "")

    # ------------------------------------------------------------------ phases and turns

    def phase_text(self, phase: str | int) -> str:
        """``"phase 0 (Fast)"``."""
        i = phase_index(phase)
        return f"phase {SPEED_PHASES[i]} ({self.data.phases.names[i]})"

    def round_of(self, state: Encounter) -> Round:
        """The round in ``state.schedule``, or RuleError before combat."""
        if not isinstance(state.schedule, Round):
            raise RuleError("combat has not started: start_combat rolls the first initiative")
        return state.schedule

    def shift(self, rnd: Round, side: str) -> int:
        """Phase shift of ``side`` this round (+1 after a 1, −1 after a 10)."""
        return facts.of(rnd).shift.get(side, 0)

    def earliest_phase(self, rnd: Round, token: Token, weapon: Weapon | None = None) -> str:
        """First phase ``token`` may act in (attack with ``weapon``) this round."""
        return self.speeds.earliest(rnd, token, weapon)[0]

    def earliest_at(self, rnd: Round, token: Token, weapon: Weapon | None = None) -> int:
        """``earliest_phase`` as its index in SPEED_PHASES."""
        return self.speeds.earliest(rnd, token, weapon)[1]

    def busy(self, rnd: Round, token: Token) -> tuple[TimedAction, Plan] | None:
        """The sprint or spell the token is in the middle of in this phase, if any."""
        known = facts.of(rnd)
        under = known.planned(known.phase_i).get(token.id)
        return under[0] if under else None

    def final_piece(self, rnd: Round, a: TimedAction) -> bool:
        """Whether ``a`` is the last piece of its action (none carried into a later round)."""
        return not any(b.actor == a.actor and b.label == a.label and b.round > a.round
                       for b in rnd.timeline.actions)

    def ready(self, state: Encounter, token: Token, what: str, *, weapon: Weapon | None = None,
              spell: bool = False, cost: Sequence[Cost] = (), moving: bool = False,
              decision: bool = False) -> Round:
        """The round, if ``token`` may do ``what`` now; else RuleError saying why not."""
        rnd = self.round_of(state)
        if token.conditions:
            if not token.alive:
                raise RuleError(f"{token.name} is dead")
            helpless = self.helpless(token)
            if helpless:
                raise RuleError(f"{token.name} is {helpless} and cannot act")
        known = facts.of(rnd)
        if token.side not in known.sides:
            raise RuleError(f"{token.side} joined after this round's initiative roll and acts "
                            "from the next round")
        if token.side != known.current:
            raise RuleError(f"it is {possessive(rnd.current_side)} turn in "
                            f"{self.phase_text(rnd.phase)}, not {possessive(token.side)}")
        if decision:
            return rnd
        under = known.planned(known.phase_i).get(token.id)
        if under:
            a, plan = under[0]
            if not (moving and plan.kind == "sprint"):
                doing = "sprinting" if plan.kind == "sprint" else f"casting {a.label}"
                more = " and can only move" if plan.kind == "sprint" else ""
                raise RuleError(f"{token.name} is {doing} through phase {a.end}{more}")
            return rnd
        if cost:
            self._pay(rnd, token, cost)
        if not spell:
            allowed, at = self.speeds.earliest(rnd, token, weapon)
            if known.phase_i < at:
                raise RuleError(f"{token.name} cannot {what} before {self.phase_text(allowed)}: "
                                f"{self.speeds.reason(rnd, token, weapon)}")
        return rnd

    def _sides(self, state: Encounter) -> list[str]:
        return list(dict.fromkeys(t.side for t in state.tokens.values() if t.alive))

    def members(self, state: Encounter, side: str) -> list[Token]:
        """The tokens of ``side``, living or not."""
        return [t for t in state.tokens.values() if t.side == side]

    def can_act(self, state: Encounter, rnd: Round, token: Token, at: int) -> bool:
        """Whether the token holds phase ``at`` for its side: something it is ready to do there.

        Its first phase, its weapon's first strike and after (while the standard action is
        left), a spell to start, a sprint to run or a carried action to decide on hold a
        phase; a lone move action left its first (idle_phase "hold": each after; house rule
        ``move_only_phase = "skip"``: it holds none and rides along in the side's turns);
        one that can only wait holds none (``waiting.waits``). A landing spell holds nothing.
        """
        if not token.alive or self.helpless(token):
            return False
        known = facts.of(rnd)
        mine = known.planned(at).get(token.id)
        if mine:
            return any(plan.kind == "sprint" for _, plan in mine)
        std = self.data.actions.standard - known.used.get(token.id, (0, 0))[0]
        casts = std > 0 and bool(self.known_spells(token))
        if at == PHASE_S:
            return token.id in known.pending or casts
        if casts:
            return True
        first, strike = self.speeds.phases(known, token, self.usable(token))
        moves = self.data.actions.move - known.used.get(token.id, (0, 0))[1]
        return waiting.holds(self, state, token, at, (first, strike), std, moves)

    def strike_phase(self, rnd: Round, token: Token) -> int:
        """Index of the first phase the token's usable weapon may strike in this round."""
        return self.earliest_at(rnd, token, self.usable(token))

    def _side_can_act(self, state: Encounter, rnd: Round, side: str, at: int) -> bool:
        for t in state.tokens.values():
            if t.side == side and self.can_act(state, rnd, t, at):
                return True
        return False

    def _lands(self, state: Encounter, rnd: Round, side: str, at: int) -> bool:
        """Whether a spell of ``side`` takes effect in phase ``at``."""
        if not rnd.plans:
            return False  # no spell under way: most turns of a fight
        for a in rnd.timeline.ending_at(SPEED_PHASES[at]):
            plan = rnd.plan(a.actor, a.label)
            caster = state.tokens.get(a.actor)
            if (plan is not None and plan.kind == "spell" and caster is not None
                    and caster.side == side and self.final_piece(rnd, a)):
                return True
        return False

    def set_round(self, ctx: Resolution, new: Round, note: str) -> Round:
        """Replace the round, with ``note`` for the log."""
        ctx.emit(ScheduleChanged(ctx.state.schedule, new, note))
        return new

    def _settle(self, ctx: Resolution, at: int, side: int, new_round: bool = True) -> None:
        """Move the turn to the first (phase, side) from here on where someone can act.

        Every side passed over is named in the log: "phase 2: nothing to do for Red
        Company", "phases 5, F pass". A spell landing for a side with nothing else to do
        takes effect on the way.
        """
        state = ctx.state
        rnd = self.round_of(state)
        order = rnd.initiative.order
        skipped: list[tuple[int, str, bool]] = []  # (phase, side, after its spell landed)
        while at <= PHASE_F:
            while side < len(order):
                who = order[side]
                if self._side_can_act(state, rnd, who, at):
                    self._arrive(ctx, rnd, at, side, passing(rnd, skipped))
                    return
                if self._lands(state, rnd, who, at):
                    self._arrive(ctx, rnd, at, side, passing(rnd, skipped))
                    rnd = self.round_of(state)
                    skipped = [(at, who, True)]
                else:
                    skipped.append((at, who, False))
                side += 1
            at, side = at + 1, 0
        lead = passing(rnd, skipped)
        if lead and new_round:
            ctx.emit(Said(f"{lead}; round {rnd.timeline.round} ends"))
        if new_round:
            self._begin_round(ctx, rnd)
        else:
            self._arrive(ctx, rnd, PHASE_S, 0, "", nobody=True)

    def _arrive(self, ctx: Resolution, rnd: Round, at: int, side: int, lead: str,
                nobody: bool = False) -> None:
        label = SPEED_PHASES[at]
        same_phase = at == rnd.phase_i
        new = replace(rnd, timeline=replace(rnd.timeline, current=label), side=side,
                      sprinted=rnd.sprinted if same_phase else ())
        who = rnd.initiative.sides[side].side
        if nobody:
            note = f"nobody can act this round; {self.phase_text(label)}: {possessive(who)} turn"
        else:
            note = f"{lead}; " if lead else ""
            note += f"{self.phase_text(label)}: {possessive(who)} turn"
        self.set_round(ctx, new, note)
        multi_phase.due_spells(self, ctx)

    # ------------------------------------------------------------------ rounds

    def _begin_round(self, ctx: Resolution, old: Round | None) -> None:
        state = ctx.state
        number = state.round + 1
        ctx.emit(RoundChanged(state.round, number))
        if old is not None:
            self._expire(ctx, number)
        sides = self._sides(state)
        if not sides:
            raise RuleError("nobody is left standing to roll initiative")
        init, rolls = SideInitiative.start(sides, ctx.dice, self.data.initiative.die, number)
        for who, why, roll in rolls:
            ctx.emit(DiceRolled(who, why, roll))
        if old is None:
            timeline = PhaseTimeline(number)
            plans: tuple[Plan, ...] = ()
        else:
            timeline = PhaseTimeline(number, "S",
                                     tuple(a for a in old.timeline.actions if a.round >= number))
            plans = tuple(p for p in old.plans
                          if any((a.actor, a.label) == (p.actor, p.label)
                                 for a in timeline.actions))
        pending = tuple(dict.fromkeys((a.actor, a.label) for a in timeline.actions
                                      if a.continued and a.round == number))
        new = Round(init, timeline, 0, (), (), plans, pending, (),
                    old.attacks if old is not None else ())
        self.set_round(ctx, new, self._initiative_note(init))
        for actor, label in pending:
            t = state.tokens.get(actor)
            if t is None or not t.alive or self.helpless(t):
                why = "gone" if t is None else ("dead" if not t.alive else self.helpless(t))
                self.drop_plan(ctx, actor, label, f"{t.name if t else actor} is {why} and "
                               "cannot sustain it")
        # What began in earlier rounds goes on before this round's Combat Events start anew.
        events_table.ongoing(self, ctx)
        due = init.combat_events_due
        for n in range(1, due + 1):
            events_table.roll_event(self, ctx, n, due)
        self._settle(ctx, PHASE_S, 0, new_round=False)

    def _initiative_note(self, init: SideInitiative) -> str:
        parts = []
        last = len(init.sides) - 1
        for i, s in enumerate(init.sides):
            text = f"{s.side} {s.roll}"
            if s.tiebreak:
                text += f" (re-roll {', '.join(map(str, s.tiebreak))})"
            if s.shift > 0:
                text += ": last, every action delayed one phase"
            elif s.shift < 0:
                text += ": first, every action moved up one phase"
            elif i == 0 and last:
                text += ": first"
            parts.append(text)
        events = init.combat_events_due
        tail = f"; {plural(events, 'Combat Event')}" if events else ""
        return f"round {init.round} initiative: {'; '.join(parts)}{tail}"

    def _expire(self, ctx: Resolution, number: int) -> None:
        """End what lasted "for this round only" or for a number of rounds."""
        for t in list(ctx.state.tokens.values()):
            for key, what in (("lucky_break", "Lucky Break"), ("lucky_opening", "Lucky Opening")):
                until = t.values.get(key)
                if isinstance(until, int) and until < number:
                    ctx.emit(ValueChanged(t.id, key, until, None, f"{what} is over"))
            for cond in ("stunned", "asleep"):
                key = f"{cond}_until"
                until = t.values.get(key)
                if isinstance(until, int) and until < number:
                    ctx.emit(ValueChanged(t.id, key, until, None, f"no longer {cond}"))
                    if cond in t.conditions:
                        ctx.emit(condition_change(t, cond, False))

    # ------------------------------------------------------------------ judging

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        if isinstance(cmd, Act) and cmd.action == "choose":
            if not events_table.answer(self, ctx, cmd.detail or None):
                raise RuleError("there is no choice open for the GM to make")
            return
        events_table.settle(self, ctx)  # a choice nobody made takes its default
        if isinstance(cmd, StartCombat):
            self._start(ctx, cmd)
        elif isinstance(cmd, EndTurn):
            self._end_turn(ctx, cmd)
        elif isinstance(cmd, Attack):
            self._attack(ctx, cmd)
        elif isinstance(cmd, Move):
            self._move(ctx, cmd)
        elif isinstance(cmd, Act):
            self._act(ctx, cmd)
        elif isinstance(cmd, Reorder):
            self._reorder(ctx, cmd)
        else:
            super().resolve(ctx, cmd)

    def _start(self, ctx: Resolution, cmd: StartCombat) -> None:
        if isinstance(ctx.state.schedule, Round):
            raise RuleError("combat has already started")
        if cmd.order:
            raise RuleError("in Speed Rank every side rolls 1d10 for initiative; start without an "
                            "order (the GM may reorder the sides afterwards)")
        self._begin_round(ctx, None)

    def _end_turn(self, ctx: Resolution, cmd: EndTurn) -> None:
        state = ctx.state
        rnd = self.round_of(state)
        side = rnd.current_side
        if cmd.actor and cmd.actor != side:
            token = state.tokens.get(cmd.actor)
            if token is None or token.side != side:
                name = token.side if token else cmd.actor
                raise RuleError(f"it is {possessive(side)} turn in {self.phase_text(rnd.phase)}, "
                                f"not {possessive(name)}")
        if rnd.phase_i == PHASE_S:
            # "They must continue to Sprint or else immediately cancel the action": ending
            # the turn without sustaining it is cancelling it, so End turn is one key.
            for actor, label in rnd.pending:
                t = state.tokens.get(actor)
                if t is not None and t.side == side:
                    self.drop_plan(ctx, actor, label,
                                   f"{t.name} ends the turn without sustaining it")
        self._settle(ctx, rnd.phase_i, rnd.side + 1)

    def _reorder(self, ctx: Resolution, cmd: Reorder) -> None:
        rnd = self.round_of(ctx.state)
        init = rnd.initiative
        if sorted(cmd.order) != sorted(init.order) or len(set(cmd.order)) != len(cmd.order):
            raise RuleError(f"the new order must list each side once: {', '.join(init.order)}")
        sides = tuple(init.of(s) for s in cmd.order)
        new_init = replace(init, sides=sides)
        new = replace(rnd, initiative=new_init, side=cmd.order.index(rnd.current_side))
        self.set_round(ctx, new, f"GM reorders the sides: {', '.join(cmd.order)}")

    def place(self, ctx: Resolution, token: Token, label: str, span: int, note: str,
              cost: Sequence[Cost], *, weapon: Weapon | None = None, spell: bool = False,
              plan: Plan | None = None, attack: AttackMark | None = None,
              spans: bool = False) -> Round:
        """Put ``token``'s action on the timeline at the current phase and pay ``cost``.

        ``spans`` adds where a multi-phase action runs (into later rounds too) to the note.
        """
        rnd = self.round_of(ctx.state)
        label = self._unique(rnd, token.id, label)
        timeline = rnd.timeline.place(
            token.id, label, rnd.phase, span, spell=spell, base_speed=self.base_speed(token),
            weapon_speed=self.weapon_speed(token, weapon) if weapon else None,
            shift=self.shift(rnd, token.side))
        new = replace(rnd, timeline=timeline, spent=self.charge(rnd, token, cost),
                      plans=rnd.plans if plan is None else (*rnd.plans,
                                                            replace(plan, label=label)),
                      attacks=rnd.attacks if attack is None else (*rnd.attacks, attack))
        if spans:
            note += f" ({multi_phase.spans(new, token, label)})"
        return self.set_round(ctx, new, f"{self.phase_text(rnd.phase)}: {note}")

    def actions_left(self, rnd: Round, token_id: str) -> tuple[int, int]:
        """Standard and move actions ``token_id`` has left this round."""
        used = facts.of(rnd).used.get(token_id, (0, 0))
        return self.data.actions.standard - used[0], self.data.actions.move - used[1]

    def charge(self, rnd: Round, token: Token, cost: Sequence[Cost]
                ) -> tuple[tuple[str, int, int], ...]:
        """The ``spent`` table after ``token`` pays ``cost``; RuleError if it cannot."""
        std, mov = self._pay(rnd, token, cost)
        used = (token.id, self.data.actions.standard - std, self.data.actions.move - mov)
        rest = tuple(s for s in rnd.spent if s[0] != token.id)
        return (*rest, used)

    def _pay(self, rnd: Round, token: Token, cost: Sequence[Cost]) -> tuple[int, int]:
        """Standard and move actions left once ``token`` pays ``cost``; RuleError if it cannot."""
        std, mov = self.actions_left(rnd, token.id)
        for kind in cost:
            if kind == "standard" and std > 0:
                std -= 1
            elif kind == "move" and mov > 0:
                mov -= 1
            elif kind == "move" and self.data.actions.standard_as_move and std > 0:
                std -= 1
            else:
                what = "standard action left" if kind == "standard" else "action left to move with"
                raise RuleError(f"{token.name} has no {what} this round "
                                f"({self._budget()} a round)")
        return std, mov

    def _budget(self) -> str:
        acts = self.data.actions
        return f"{plural(acts.standard, 'standard action')} and {plural(acts.move, 'move action')}"

    def _unique(self, rnd: Round, actor: str, label: str) -> str:
        taken = {a.label for a in rnd.timeline.actions if a.actor == actor}
        if label not in taken:
            return label
        n = 2
        while f"{label} #{n}" in taken:
            n += 1
        return f"{label} #{n}"

    # ------------------------------------------------------------------ attack

    def attack_numbers(self, state: Encounter, cmd: Attack) -> AttackNumbers:
        """Check that ``cmd`` is allowed now and work out its numbers (changes nothing)."""
        token = state.token(cmd.actor)
        target = state.token(cmd.target)
        weapon = self._weapon_for(token, cmd.weapon)
        self.ready(state, token, f"attack with the {weapon.name}", weapon=weapon,
                   cost=self.costs.attack)
        if target.id == token.id:
            raise RuleError(f"{token.name} cannot attack themself")
        if not target.alive:
            raise RuleError(f"{target.name} is already dead")
        if target.side == token.side:
            raise RuleError(f"{target.name} is on {token.name}'s side")
        problem = self.aim_problem(state, token, target,
                                   weapon.range if weapon.ranged else weapon.reach,
                                   f"the {weapon.name}", weapon.ranged)
        if problem:
            raise RuleError(problem)
        flat = weapon.bonus + int(self.stat(token, "damage"))
        if weapon.key in self.damaged(token):
            flat -= self.data.armour.damaged_weapon
        return AttackNumbers(weapon, self.to_hit(state, token), self.ac(state, target), flat,
                             target.hp - self.data.attack.dead_at)

    def _weapon_for(self, token: Token, key: str) -> Weapon:
        own = self.held_weapon(token)
        if key and key not in (own.key, "unarmed"):
            if key not in self.weapons:
                raise RuleError(f"there is no weapon {key!r} in Speed Rank")
            raise RuleError(f"{token.name} carries no {self.weapons[key].name} "
                            f"(their weapon is the {own.name})")
        if key == "unarmed":
            return self.weapons["unarmed"]
        if own.key in self.dropped(token):
            raise RuleError(f"{token.name}'s {own.name} is on the ground: pick it up (pick_up) "
                            "or attack unarmed")
        if "weapon stuck" in token.conditions and own.key != "unarmed":
            stuck = token.values.get("stuck_in", "")
            where = f" in {stuck}" if stuck else ""
            raise RuleError(f"{token.name}'s {own.name} is stuck{where}: free it first "
                            "(free_weapon) or attack unarmed")
        return own

    def degree(self, total: int, target: int) -> str:
        """``"made"``, ``"glancing"`` (reached by less than the band) or ``"failed"``."""
        if total < target:
            return "failed"
        return "glancing" if total < target + self.data.attack.glancing_band else "made"

    def _attack(self, ctx: Resolution, cmd: Attack) -> None:
        state = ctx.state
        nums = self.attack_numbers(state, cmd)
        token, target = state.token(cmd.actor), state.token(cmd.target)
        w = nums.weapon
        self.place(ctx, token, f"attack {target.name}", 1,
                   f"{token.name} attacks {target.name} with the {w.name}",
                   self.costs.attack, weapon=w,
                   attack=(token.id, w.key, target.id, not w.ranged))
        roll = ctx.roll(token.id, 1, self.data.attack.die,
                        f"To-Hit vs. {target.name} ({nums.to_hit:+d} against AC {nums.ac})")
        total = roll.total + nums.to_hit
        result = self.degree(total, nums.ac)
        if result == "failed":
            ctx.emit(Said(f"{token.name} misses {target.name} ({total} against AC {nums.ac})",
                          token.id))
            return
        dmg = ctx.roll(token.id, w.count, w.sides, f"{w.name} damage")
        amount = self.damage_of(dmg.total + nums.flat, result == "glancing")
        kind = "a Glancing Hit" if result == "glancing" else "a hit"
        ctx.emit(Said(f"{token.name} scores {kind} on {target.name} ({total} against AC "
                      f"{nums.ac}): {amount} damage", token.id))
        self.hurt(ctx, target, amount, f"{w.name}")

    def damage_of(self, rolled: int, glancing: bool) -> int:
        """Damage done by a hit whose dice and bonuses came to ``rolled``."""
        if glancing:
            num, den = self.data.attack.glancing_numerator, self.data.attack.glancing_denominator
            rolled = rolled * num // den
        return max(self.data.attack.min_damage, rolled)

    def attack_odds(self, nums: AttackNumbers) -> Odds:
        """Exact chances of ``nums``: to hit, the damage on a hit, and of dropping the target."""
        # Once per set of numbers: previews (a forecast's above all) ask the same again.
        key = (nums.weapon.key, nums.to_hit, nums.ac, nums.flat, nums.hp_margin)
        return remember(self._odds, key, lambda: self._odds_of(nums))

    def _odds_of(self, nums: AttackNumbers) -> Odds:
        d20 = odds.die(self.data.attack.die)
        w = nums.weapon
        rolled = odds.dice(w.count, w.sides) + nums.flat
        full = rolled.map(lambda x: self.damage_of(x, False))
        glance = rolled.map(lambda x: self.damage_of(x, True))
        p_made = d20.chance(lambda r: self.degree(r + nums.to_hit, nums.ac) == "made")
        p_glance = d20.chance(lambda r: self.degree(r + nums.to_hit, nums.ac) == "glancing")
        success = p_made + p_glance
        table: dict[int, float] = {}
        if success > 0:
            for dist, weight in ((full, p_made), (glance, p_glance)):
                for value, p in dist.items():
                    table[value] = table.get(value, 0.0) + p * weight / success
        drop = (p_made * full.at_least(nums.hp_margin)
                + p_glance * glance.at_least(nums.hp_margin))
        return Odds(success, tuple(sorted(table.items())), drop)

    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview:
        if isinstance(cmd, Act) and cmd.action == "cast":
            return multi_phase.spell_card(self, state, cmd,
                                          super().preview(state, cmd, version))
        if not isinstance(cmd, Attack):
            return super().preview(state, cmd, version)
        try:
            nums = self.attack_numbers(state, cmd)
        except RuleError as err:
            return Preview(False, str(err))
        chances = self.attack_odds(nums)
        note = (f"d20 {nums.to_hit:+d} against AC {nums.ac}; a Glancing Hit (by less than "
                f"{self.data.attack.glancing_band}) does half damage")
        return Preview(True, odds=chances, notes=(note,))

    # ------------------------------------------------------------------ damage and conditions

    def hurt(self, ctx: Resolution, target: Token, amount: int, why: str) -> None:
        """Damage, with death and waking a sleeper."""
        new = target.hp - amount
        ctx.emit(HpChanged(target.id, target.hp, new, why))
        self.harmed(ctx, target)

    def hp_set(self, ctx: Resolution, token: Token) -> None:
        recovery.hp_set(self, ctx, token)

    def harmed(self, ctx: Resolution, target: Token) -> None:
        """``target`` just lost hit points: a sleeper wakes; at the dead-at line it dies."""
        recovery.harmed(self, ctx, target)

    def condition(self, ctx: Resolution, token: Token, cond: str, on: bool = True) -> None:
        """Set or clear a condition; helpless or immobile ends what it cannot go on with."""
        if (cond in token.conditions) == on:
            return
        ctx.emit(condition_change(token, cond, on))
        if not on or not isinstance(ctx.state.schedule, Round):
            return
        kinds: tuple[str, ...]
        if cond in self.data.actions.helpless:
            kinds = ("sprint", "spell")
        elif cond in self.data.actions.immobile:
            kinds = ("sprint",)
        else:
            return
        rnd = self.round_of(ctx.state)
        for p in rnd.plans:
            if p.actor == token.id and p.kind in kinds and self.running(rnd, p):
                self.drop_plan(ctx, p.actor, p.label, f"{token.name} is {cond}")

    def running(self, rnd: Round, plan: Plan) -> bool:
        """Whether ``plan`` still has phases to go (this one included)."""
        return any(a.actor == plan.actor and a.label == plan.label
                   and (a.round > rnd.timeline.round or phase_index(a.end) >= rnd.phase_i)
                   for a in rnd.timeline.actions)

    def left(self, ctx: Resolution, token: Token) -> None:
        """A removed token's sprints and spells under way leave the timeline, each with a line."""
        rnd = ctx.state.schedule
        for plan in rnd.plans if isinstance(rnd, Round) else ():
            if plan.actor == token.id:
                self.drop_plan(ctx, token.id, plan.label, "removed from the map", token.name)

    def drop_plan(self, ctx: Resolution, actor: str, label: str, why: str,
                  name: str = "") -> None:
        """Take a sprint or spell off the timeline."""
        rnd = self.round_of(ctx.state)
        plan = rnd.plan(actor, label)
        placed = multi_phase.plan_area(ctx.state, plan) if plan is not None else None
        if placed is not None:  # the spell's area goes with it
            ctx.emit(removal(ctx.state, placed.id))
        new = replace(rnd, timeline=rnd.timeline.cancel(actor, label),
                      plans=tuple(p for p in rnd.plans if (p.actor, p.label) != (actor, label)),
                      pending=tuple(p for p in rnd.pending if p != (actor, label)))
        token = ctx.state.tokens.get(actor)
        self.set_round(ctx, new, f"{token.name if token else name or actor}'s {label} ends: {why}")

    # ------------------------------------------------------------------ rolls

    def save(self, ctx: Resolution, token: Token, kind: SaveKind,
             against: Token | None = None) -> str:
        """A character's saving throw: ``"made"``, ``"glancing"`` or ``"failed"``."""
        bonus = self.save_bonus(ctx.state, token, against)
        target = self.data.saves.target(kind)
        name = SAVE_NAMES.get(kind, f"Save vs. {kind}")
        roll = ctx.roll(token.id, 1, self.data.saves.die, f"{name} (needs {target}, {bonus:+d})")
        result = self.degree(roll.total + bonus, target)
        said = {"made": "makes the save", "glancing": "makes the save as a Glancing Hit",
                "failed": "fails the save"}[result]
        ctx.emit(Said(f"{token.name} {said} ({roll.total + bonus})", token.id))
        return result

    def check(self, ctx: Resolution, token: Token, level: CheckLevel, stat: str,
              what: str) -> bool:
        """A Riding or Strength check: d20 + the stat against the level's number."""
        bonus = int(self.stat(token, stat))
        target = self.data.checks.target(level)
        roll = ctx.roll(token.id, 1, self.data.checks.die, f"{what} (needs {target}, {bonus:+d})")
        ok = roll.total + bonus >= target
        ctx.emit(Said(f"{token.name} {'succeeds' if ok else 'fails'} ({roll.total + bonus})",
                      token.id))
        return ok

    # ------------------------------------------------------------------ space

    def gap(self, state: Encounter, a: Token, b: Token) -> float:
        """Cells between two tokens, edge to edge (1: touching)."""
        return grid.edge_distance(state.diagonal, a.cell, a.size, b.cell, b.size)

    def reach(self, state: Encounter, token: Token) -> float:
        return self.usable(token).reach

    def alive(self, state: Encounter) -> list[Token]:
        """Every living token."""
        return [t for t in state.tokens.values() if t.alive]

    # ------------------------------------------------------------------ moving

    def move_check(self, state: Encounter, token: Token) -> tuple[Round, float, bool]:
        """Round, cells allowed now, and whether the move is part of a sprint."""
        rnd = self.ready(state, token, "move", moving=True, cost=self.costs.move)
        stop = self.immobile(token)
        if stop:
            fix = "stand up first" if stop == "prone" else "break free first"
            raise RuleError(f"{token.name} is {stop}: {fix}")
        busy = self.busy(rnd, token)
        if busy is not None:
            ran = dict(rnd.sprinted).get(token.id, 0.0)
            return rnd, max(0.0, self.data.actions.sprint_cells_per_phase - ran), True
        return rnd, self.data.actions.move_cells, False

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        try:
            return self.move_check(state, token)[1]
        except RuleError:
            return 0.0

    def move_refusal(self, state: Encounter, token: Token, plan: MovePlan) -> str | None:
        try:
            _, budget, _ = self.move_check(state, token)
        except RuleError as err:
            return str(err)
        if plan.cost > budget + 1e-9:
            return (f"{token.name} can move {self.dist(budget)} now, this path is "
                    f"{self.dist(plan.cost)}")
        return None

    def _move(self, ctx: Resolution, cmd: Move) -> None:
        state = ctx.state
        token = state.token(cmd.actor)
        rnd, budget, sprinting = self.move_check(state, token)
        plan = self.plan(state, token, cmd.path)
        if plan.blocked:
            raise RuleError(plan.blocked)
        if plan.cost > budget + 1e-9:
            raise RuleError(f"{token.name} can move {self.dist(budget)} now, this path is "
                            f"{self.dist(plan.cost)}")
        if sprinting:
            ran = dict(rnd.sprinted)
            ran[token.id] = ran.get(token.id, 0.0) + plan.cost
            left = self.data.actions.sprint_cells_per_phase - ran[token.id]
            self.set_round(ctx, replace(rnd, sprinted=tuple(ran.items())),
                           f"{self.phase_text(rnd.phase)}: {token.name} runs "
                           f"{self.dist(plan.cost)} "
                           f"(sprint, {self.dist(left)} left this phase)")
        else:
            self.place(ctx, token, "move", 1, f"{token.name} moves {self.dist(plan.cost)}",
                       self.costs.move)
        emit_move(ctx, token, plan)

    # ------------------------------------------------------------------ other actions

    def _act(self, ctx: Resolution, cmd: Act) -> None:
        if cmd.action not in ACTS:
            raise RuleError(f"Speed Rank has no action {cmd.action!r} (actions: "
                            f"{', '.join(ACTS)}, and attack, move, end_turn)")
        token = ctx.state.token(cmd.actor)
        if cmd.action in multi_phase.ACTIONS:
            multi_phase.ACTIONS[cmd.action](self, ctx, token, cmd)
            return
        recovery.ACTIONS[cmd.action](self, ctx, token, cmd)

    def out_of_fight(self, token: Token) -> bool:
        """Dead at ``attack.dead_at`` (0 HP), marked ``dead``; a stunned or sleeping token
        is helpless for a while, not out of the fight."""
        return not token.alive

    forecast_hints = views.forecast_hints  # README "Forecast hints"
    whose_turn = views.whose_turn  # the acting token, without the turn order's rows


def create(manifest: Manifest) -> Ruleset:
    """The Speed Rank ruleset."""
    return SpeedRank(manifest)

