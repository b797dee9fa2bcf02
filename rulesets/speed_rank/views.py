"""What the Speed Rank panels show: the turn order, the phase timeline, the action options.

Plain view-models (tacmap.engine.rules.views) built from the state; nothing here
changes it. rules.py's ``SpeedRank`` delegates to these functions and hands
itself over as ``Rules``: what the panels ask of the rules, legality included
(an option is offered disabled with the reason the rules would refuse it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from tacmap.api import (
    SPEED_PHASES,
    ActionOption,
    Aim,
    AreaSpec,
    Encounter,
    Hints,
    MovePlan,
    OrderRow,
    RowState,
    RuleError,
    TimedAction,
    Timeline,
    TimelineItem,
    Token,
    TurnOrder,
    phase_index,
    plural,
    possessive,
)

from . import choices, facts
from .data import ActionCosts, Cost, Data, Weapon
from .round import Plan, Round


class Rules(Protocol):
    """What the panels ask of the ruleset."""

    data: Data
    costs: ActionCosts

    def phase_text(self, phase: str | int) -> str: ...
    def base_speed(self, token: Token) -> int: ...
    def usable(self, token: Token) -> Weapon: ...
    def shift(self, rnd: Round, side: str) -> int: ...
    def earliest_phase(self, rnd: Round, token: Token, weapon: Weapon | None = None) -> str: ...
    def earliest_at(self, rnd: Round, token: Token, weapon: Weapon | None = None) -> int: ...
    def weapon_speed(self, token: Token, weapon: Weapon) -> int: ...
    def dist(self, cells: float) -> str: ...
    def actions_left(self, rnd: Round, token_id: str) -> tuple[int, int]: ...
    def charge(self, rnd: Round, token: Token, cost: Sequence[Cost]
               ) -> tuple[tuple[str, int, int], ...]: ...
    def busy(self, rnd: Round, token: Token) -> tuple[TimedAction, Plan] | None: ...
    def can_act(self, state: Encounter, rnd: Round, token: Token, at: int) -> bool: ...
    def running(self, rnd: Round, plan: Plan) -> bool: ...
    def members(self, state: Encounter, side: str) -> list[Token]: ...
    def known_spells(self, token: Token) -> list[str]: ...
    def dropped(self, token: Token) -> tuple[str, ...]: ...
    def immobile(self, token: Token) -> str: ...
    def helpless(self, token: Token) -> str: ...
    def round_of(self, state: Encounter) -> Round: ...
    def strike_phase(self, rnd: Round, token: Token) -> int: ...
    def move_check(self, state: Encounter, token: Token) -> tuple[Round, float, bool]: ...
    def ready(self, state: Encounter, token: Token, what: str, *, weapon: Weapon | None = None,
              spell: bool = False, cost: Sequence[Cost] = (), moving: bool = False,
              decision: bool = False) -> Round: ...


def turn_order(rules: Rules, state: Encounter) -> TurnOrder | None:
    """Each side in initiative order, with its roll, and its combatants under it."""
    if not isinstance(state.schedule, Round):
        return None
    rnd = state.schedule
    rows: list[OrderRow] = []
    for i, s in enumerate(rnd.initiative.sides):
        side_state: RowState = ("acting" if i == rnd.side else "done" if i < rnd.side
                                else "waiting")
        key = f"d{rnd.initiative.die}: {s.roll}"
        if s.tiebreak:
            key += f" (re-roll {', '.join(map(str, s.tiebreak))})"
        detail = ("rolled 1: last, actions delayed one phase" if s.shift > 0 else
                  "rolled 10: first, actions moved up one phase" if s.shift < 0 else "")
        rows.append(OrderRow(s.side, s.side, s.side, key, side_state, detail))
        for t in rules.members(state, s.side):
            rows.append(token_row(rules, state, rnd, t, side_state))
    title = (f"Round {rnd.timeline.round} — {rules.phase_text(rnd.phase)}: "
             f"{possessive(rnd.current_side)} turn")
    return TurnOrder(title, tuple(rows))


def token_row(rules: Rules, state: Encounter, rnd: Round, t: Token,
              side_state: RowState) -> OrderRow:
    """One combatant: base speed, first phase, actions left, what it is busy with."""
    base = rules.base_speed(t)
    w = rules.usable(t)
    first = rules.earliest_phase(rnd, t)
    std, mov = rules.actions_left(rnd, t.id)
    # The phase the attack really takes: a weapon faster than its wielder waits for base
    # speed, a speed past 5 is F, and the side's initiative shift moves it (issue 26).
    strike = rules.earliest_phase(rnd, t, w)
    detail = (f"base speed {base}, attacks with the {w.name} from phase {strike}; "
              f"acts from phase {first}; {std} standard, {plural(mov, 'move action')} left")
    busy = rules.busy(rnd, t)
    if busy is not None:
        detail += f"; {busy[0].label} through phase {busy[0].end}"
    if t.conditions:
        detail += f"; {', '.join(t.conditions)}"
    return OrderRow(t.id, t.name, t.side, f"rank {base}",
                    row_state(rules, state, rnd, t, side_state, busy is not None), detail)


def row_state(rules: Rules, state: Encounter, rnd: Round, t: Token, side_state: RowState,
              busy: bool) -> RowState:
    """A combatant's row: out, declared (mid-action), done, acting or waiting."""
    if not t.alive:
        return "out"
    if busy:
        return "declared"
    if rules.actions_left(rnd, t.id) == (0, 0) or side_state == "done":
        return "done"
    now = facts.of(rnd).phase_i
    if side_state == "acting" and (
            rules.can_act(state, rnd, t, now)
            # A lone move action holds no phase, but is the token's to use in its side's turn.
            or (not rules.helpless(t) and now >= rules.earliest_at(rnd, t))):
        return "acting"
    return "waiting"


def whose_turn(rules: Rules, state: Encounter) -> str | None:
    """``acting_token`` of ``turn_order`` without writing the rows (a forecast asks it
    every step): the first acting member of the side whose turn it is, else its first
    living member."""
    if not isinstance(state.schedule, Round):
        return None
    rnd = state.schedule
    if not 0 <= rnd.side < len(rnd.initiative.sides):
        return None
    members = rules.members(state, rnd.initiative.sides[rnd.side].side)
    for t in members:
        if t.alive and row_state(rules, state, rnd, t, "acting",
                                 rules.busy(rnd, t) is not None) == "acting":
            return t.id
    return next((t.id for t in members if t.alive), None)


def timeline(rules: Rules, state: Encounter) -> Timeline | None:
    """The phases S … F: each combatant's first phase, its weapon's first strike when that
    comes later, and this round's actions."""
    if not isinstance(state.schedule, Round):
        return None
    rnd = state.schedule
    now = rnd.timeline.round
    items: list[TimelineItem] = []
    for side in rnd.initiative.order:
        shift = rules.shift(rnd, side)
        for t in rules.members(state, side):
            if not t.alive:
                continue
            first = phase_index(rules.earliest_phase(rnd, t))
            note = ("ready (delayed one phase: rolled 1)" if shift > 0 else
                    "ready (moved up one phase: rolled 10)" if shift < 0 else "ready")
            items.append(TimelineItem(t.id, note, first, first))
            # A slow weapon strikes later than its wielder may act: a greatsword at 3, not 0.
            strike = rules.strike_phase(rnd, t)
            if strike > first:
                w = rules.usable(t)
                items.append(TimelineItem(t.id, f"⚔ {w.name}", strike, strike))
            mine = sorted((a for a in rnd.timeline.actions
                           if a.actor == t.id and a.round == now),
                          key=lambda a: phase_index(a.start))
            items += [TimelineItem(t.id, a.label, phase_index(a.start), phase_index(a.end),
                                   a.continued) for a in mine]
    return Timeline(SPEED_PHASES, rnd.phase_i, tuple(items))


def actions_for(rules: Rules, state: Encounter, actor: str) -> list[ActionOption]:
    """Every action ``actor`` might take; each is tried, so a disabled one says why."""
    token = state.tokens.get(actor)
    if token is None:
        return []

    def option(key: str, label: str, aim: Aim, test: Callable[..., object], *args: Any,
               detail: str = "", **how: Any) -> ActionOption:
        # test(*args, **how), not a closure each: a forecast offers actions at every step.
        try:
            test(*args, **how)
        except RuleError as err:
            return offer(key, label, aim, False, str(err), detail)
        return offer(key, label, aim, True, "", detail)

    ready = rules.ready
    weapon = rules.usable(token)
    out = [
        option("attack", f"Attack ({weapon.name})", "token",
               ready, state, token, f"attack with the {weapon.name}", weapon=weapon,
               cost=rules.data.action_costs.attack),
        option("move", f"Move ({rules.dist(rules.data.actions.move_cells)})", "cell",
               rules.move_check, state, token),
        option("sprint", f"Sprint ({rules.data.actions.sprint_phases} phases)", "none",
               lambda: no_stop(rules, rules.ready(state, token, "sprint",
                                                  cost=rules.data.action_costs.sprint), token)),
    ]
    for key in dict.fromkeys(rules.known_spells(token)):
        spell = rules.data.spells[key]
        cast = option("cast", f"Cast {spell.name}", "area" if spell.template else "token",
                      ready, state, token, "cast", spell=True,
                      cost=rules.data.action_costs.cast, detail=key)
        if spell.template:
            cast = replace(cast, area=AreaSpec(spell.template, int(spell.radius)))
        out.append(cast)
    if isinstance(state.schedule, Round):
        rnd = state.schedule
        if any(p[0] == actor for p in rnd.pending):
            out.append(option("sustain", "Sustain carried action", "none",
                              ready, state, token, "sustain", decision=True))
        if any(p.actor == actor and rules.running(rnd, p) for p in rnd.plans):
            out.append(option("cancel", "Cancel action", "none",
                              ready, state, token, "cancel", decision=True))
    costs = rules.data.action_costs
    out += [option(key, label, "none", ready, state, token, label.lower(), cost=cost)
            for cond, key, label, cost in (
                ("prone", "stand", "Stand up", costs.stand),
                ("weapon stuck", "free_weapon", "Free stuck weapon", costs.free_weapon),
                ("grappled", "break_free", "Break free", costs.break_free))
            if cond in token.conditions]
    if rules.dropped(token):
        out.append(option("pick_up", "Pick up", "none",
                          ready, state, token, "pick anything up",
                          cost=rules.data.action_costs.pick_up))
    # The GM's open choice (Slip, Close Quarters …): any token may carry the answer. Last,
    # so the actions every token has keep their places while a choice is open.
    open_ = choices.pending(state)
    out += [ActionOption("choose", f"{open_[0]['name']}: {label}", "none", detail=code)
            for code, label in choices.options_of(open_[0])] if open_ else []
    out.append(option("end_turn", end_turn_label(state), "none", rules.round_of, state))
    return out


def end_turn_label(state: Encounter) -> str:
    """"End the side's turn (Blue Company)": the side whose turn it is, named (any token's
    menu offers it, an enemy's too, and it ends the acting side's turn, not the token's)."""
    rnd = state.schedule
    if isinstance(rnd, Round) and 0 <= rnd.side < len(rnd.initiative.sides):
        return f"End the side's turn ({rnd.initiative.sides[rnd.side].side})"
    return "End the side's turn"


_OFFERED: dict[tuple[str, str, Aim, bool, str, str], ActionOption] = {}


def offer(key: str, label: str, aim: Aim, enabled: bool, reason: str, detail: str
          ) -> ActionOption:
    """The option, one record for equal ones: a forecast offers the same few thousands
    of times (records are frozen, so sharing them is safe)."""
    ask = (key, label, aim, enabled, reason, detail)
    known = _OFFERED.get(ask)
    if known is None:
        if len(_OFFERED) >= 4096:  # reasons name combatants and phases: bounded
            _OFFERED.clear()
        known = _OFFERED[ask] = ActionOption(key, label, aim, enabled, reason, detail)
    return known


def no_stop(rules: Rules, rnd: Round, token: Token) -> Round:
    """``rnd``, unless ``token`` cannot move at all (prone, grappled)."""
    stop = rules.immobile(token)
    if stop:
        raise RuleError(f"{token.name} is {stop}")
    return rnd


def move_uses(rules: Rules, state: Encounter, token: Token, plan: MovePlan) -> str:
    """What a drag's move spends and what is left this round, for the drag label."""
    try:
        rnd, budget, sprinting = rules.move_check(state, token)
    except RuleError:
        return ""
    if sprinting:
        return f"part of the sprint: {rules.dist(max(0.0, budget - plan.cost))} left " \
               "in this phase"
    std, mov = rules.actions_left(rnd, token.id)
    try:
        after = dict((t, (s, m)) for t, s, m in rules.charge(rnd, token, rules.costs.move))
    except RuleError:
        return ""
    used_std, used_mov = after[token.id]
    std_left = rules.data.actions.standard - used_std
    mov_left = rules.data.actions.move - used_mov
    head = "a move action" if mov_left < mov else "the standard action, spent as a move"
    left = [plural(n, what) for n, what in ((std_left, "standard action"),
                                            (mov_left, "move action")) if n > 0]
    tail = f"left this round: {' and '.join(left)}" if left else "nothing left this round"
    if std > 0 and std_left == 0:
        tail = f"no standard action (no attack) after this; {tail}"
    return f"{head}; {tail}"


def forecast_hints(rules: object) -> Hints:
    """What the forecast's policy needs to know here (README "Forecast hints")."""
    # Grappled and out of reach, or disarmed by a Slip, a combatant would otherwise wait
    # for ever: break free, then pick the weapon up.
    return Hints(prefer=("break_free", "pick_up"))
