"""What the action_pool panels show: the turn order, the dice pools, the action options.

Plain view-models (tacmap.engine.rules.views) built from the state; nothing here
changes it. rules.py's ``ActionPool`` delegates to these functions and hands
itself over as ``Rules``, the little this module asks of the rules.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from tacmap.api import (
    ActionOption,
    Aim,
    Encounter,
    Hints,
    OrderedTurns,
    OrderRow,
    PoolView,
    RowState,
    Token,
    TurnOrder,
    plural,
)

from . import readied
from .reactions import Rules as ReactionRules
from .reactions import prepared_of, prepared_text


class Rules(readied.Rules, ReactionRules, Protocol):
    """What the panels ask of the ruleset, besides what reactions ask."""

    def refill(self, token: Token) -> tuple[int, str]: ...
    def metres_per_action(self, token: Token) -> float: ...
    def house_rule(self, state: Encounter, key: str) -> str: ...
    def move_budget(self, state: Encounter, token: Token) -> float | None: ...


def turn_order(rules: Rules, state: Encounter) -> TurnOrder | None:
    """The GM's order: pool size, actions left, prepared; None before combat."""
    if not isinstance(state.schedule, OrderedTurns):
        return None
    turns = state.schedule
    rows = []
    for i, tid in enumerate(turns.order):
        t = state.tokens.get(tid)
        if t is None:
            continue  # removed from the map: the order keeps its place for undo only
        status: RowState = ("out" if not t.alive else "acting" if i == turns.index
                            else "done" if i < turns.index else "waiting")
        detail = [f"pool {t.values.get('pool', 0)}"]
        if status == "acting":
            detail.append(f"{plural(turns.actions_left, 'action')} left")
        if prepared_of(t):
            detail.append("prepared")
        rows.append(OrderRow(tid, t.name, t.side, f"#{i + 1}", status, ", ".join(detail)))
    return TurnOrder(f"Round {turns.round}", tuple(rows))


def dice_pools(rules: Rules, state: Encounter) -> list[PoolView]:
    """Each pool in play, with the last roll's faces in order."""
    out = []
    turns = state.schedule if isinstance(state.schedule, OrderedTurns) else None
    for t in state.tokens.values():
        if "pool" not in t.values:
            continue
        faces = tuple(int(f) for f in t.values.get("faces") or ())
        notes = []
        if turns is not None and turns.current == t.id:
            notes.append(f"{plural(turns.actions_left, 'action')} left")
        if t.values.get("reacted"):
            notes.append("reacted: refills at the end of this turn")
        notes += [f'prepared: "{prepared_text(rules, state, p)}"' for p in prepared_of(t)]
        if not t.alive:
            notes.append("down")
        wins = tuple(f >= rules.data.pool.success_at for f in faces)
        # The failures of the last roll left the pool, and so did the successes an ability
        # discarded on top of them (Mighty Blow's [6 5 2 1] leaves nothing).
        marks = t.values.get("discarded")
        count = len(marks) if isinstance(marks, tuple) else 0
        # An ability discards the leftmost successes (rules.py ``_drain``).
        discarded = set([i for i, w in enumerate(wins) if w][:count])
        if discarded:
            notes.append(f"{plural(len(discarded), 'success', 'successes')} discarded by "
                         "an ability")
        out.append(PoolView(t.id, t.name, faces, wins,
                            int(t.values.get("pool") or 0), rules.data.pool.die,
                            rules.refill(t)[0], "; ".join(notes),
                            removed=tuple(not w or i in discarded
                                          for i, w in enumerate(wins))))
    return out


def actions_for(rules: Rules, state: Encounter, actor: str) -> list[ActionOption]:
    """What ``actor`` may do now; a disabled option says why."""
    token = state.tokens.get(actor)
    if token is None:
        return []
    if not isinstance(state.schedule, OrderedTurns):
        free = rules.data.turn.free_moves_before_combat
        return [ActionOption("move", "Move", "cell", enabled=free,
                             reason="" if free else "combat has not started")]
    turns = state.schedule
    reason = ""
    if turns.current != actor:
        reason = f"it is {rules.who(state, turns.current)}'s turn"
    elif not token.alive:
        reason = f"{token.name} is down"
    left = turns.actions_left if not reason else 0

    def option(key: str, label: str, target: Aim = "none", cost: int = 1) -> ActionOption:
        why = reason or ("" if left >= cost else f"needs {plural(cost, 'action')}, "
                                                 f"{left} left")
        return ActionOption(key, label, target, enabled=not why, reason=why)

    weapon = rules.weapon_in_hand(token)
    metres = rules.metres_per_action(token)
    # House rule movement = "per_turn": one move a turn, of one move action's metres.
    per_turn = rules.house_rule(state, "movement") == "per_turn"
    move = option("move", f"Move ({metres:g} m {'a turn' if per_turn else 'an action'})",
                  "cell")
    if move.enabled and per_turn and not rules.move_budget(state, token):
        move = replace(move, enabled=False,
                       reason=f"{token.name} has moved this turn (house rule: one move a turn)")
    opts = [option("attack", f"Attack ({weapon.name})", "token", rules.data.costs.attack),
            move]
    opts += [option("prepare:dodge", "Prepare: dodge their attack", "token",
                    rules.data.costs.prepare)]
    for trigger, words in rules.triggers.items():
        opts.append(option(f"prepare:attack:{trigger}",
                           f"Prepare: attack when the target {words}",
                           "token", rules.data.costs.prepare))
    # "Other actions can be prepared": the odds card asks what and when (issue 26).
    when = ("When the target", tuple(rules.triggers.values()))

    def prepare(kind: str, label: str, choices: tuple[tuple[str, tuple[str, ...]], ...],
                prompt: str = "") -> ActionOption:
        picked = "/".join(values[0] for _, values in choices)
        return replace(option(f"prepare:{kind}", f"Prepare: {label}", "token",
                              rules.data.costs.prepare),
                       choices=choices, prompt=prompt,
                       detail=f"{picked}/" if prompt else picked)

    opts += [prepare("move", "a move", (("Move", tuple(readied.MOVES)), when)),
             prepare("skill", "a skill",
                     (("Test", (readied.NO_TEST, *(f"DT {dt}"
                                                   for dt in rules.data.skill.test_dts))),
                      when), f"Which skill will {token.name} use when the target acts, and "
                             "what for? (for example \"Athletics: keep my footing\")"),
             prepare("generic", "a quick action", (when,),
                     f"What will {token.name} do when the target acts? (under 5 s, for "
                     "example \"pull the lever\")")]
    # The seed names no skill list, so the GM says which skill and what for before the
    # action is spent (issue 22: one click used to spend it and ask for nothing).
    ask = (f"Which skill does {token.name} use, and what for? "
           "(for example \"Athletics: climb the wall\")")
    opts.append(replace(option("skill", "Use a skill…", cost=rules.data.costs.skill),
                        prompt=ask))
    # "some kind of test, as determined by the GR": a skill tested at a DT.
    opts += [replace(option(f"skill:{dt}", f"Skill test (DT {dt})…",
                            cost=rules.data.costs.skill), prompt=ask)
             for dt in rules.data.skill.test_dts]
    opts += [
             option("generic", "Quick action (under 5 s)", cost=rules.data.costs.generic),
             option("long_action", "Long action (whole turn)",
                    cost=turns.actions_per_turn)]
    # What only this token has (its class's abilities, its other weapons) comes after what
    # every token has, so those buttons keep their places from token to token.
    for a in rules.abilities_of(token, "action"):
        opts.append(option(a.key, a.name, "token", a.actions))
    carried = token.stats.get("weapons")
    others = [rules.data.weapons[w] for w in carried if w != weapon.key
              and w in rules.data.weapons] if isinstance(carried, tuple) else []
    for w in others:
        opts.append(option(f"wield:{w.key}", f"Wield {w.name}", cost=rules.data.costs.wield))
    abilities = readied.ability_choices(rules, state, token)
    if abilities:
        opts.append(prepare("ability", "an ability", (("Ability", abilities), when)))
    if others:
        opts.append(prepare("wield", "take up a weapon",
                            (("Weapon", tuple(w.name for w in others)), when)))
    opts.append(ActionOption("end_turn", "End turn", "none", enabled=not reason,
                             reason=reason))
    return opts


def forecast_hints(rules: object) -> Hints:
    """What the autopilot needs to know here (README "The autopilot")."""
    # In the first round the throws may choose to wait for an enemy that walks in, rather
    # than walk in: a move and an attack fit one turn, and who strikes first matters
    # (mirror bench, 500 pairs: 58.5% of the decided fights without, 61.1% with).
    return Hints(hold_rounds=1)
