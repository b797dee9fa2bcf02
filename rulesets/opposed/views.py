"""What the opposed panels show: the turn order (health and what is left of each turn) and
the action options. Plain view-models built from the state; nothing here changes it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from tacmap.api import (
    Act,
    ActionOption,
    Aim,
    Command,
    Encounter,
    Hints,
    OrderRow,
    Preview,
    RowState,
    Token,
    TurnOrder,
)

from .combat import STUNNED
from .data import Data, Weapon
from .turns import Turns, remaining


class Rules(Protocol):
    """What the panels ask of the ruleset."""

    data: Data

    def who(self, state: Encounter, token_id: str | None) -> str: ...
    def health(self, token: Token) -> str: ...
    def points(self, token: Token, key: str) -> int: ...
    def weapon_of(self, token: Token) -> Weapon: ...
    def move_metres(self, token: Token) -> float: ...
    def stopped(self, token: Token) -> str: ...
    def critical_choice(self, attacker: Token, critical: str = "") -> str: ...
    def critical_choices(self, attacker: Token) -> tuple[tuple[str, tuple[str, ...]], ...]: ...
    def shapes(self, turns: Turns) -> tuple[tuple[str, ...], ...]: ...
    def turn_refusal(self, state: Encounter, actor: str) -> str: ...
    def shape_refusal(self, turns: Turns, token: Token, kinds: tuple[str, ...]) -> str: ...
    def attack_refusal(self, state: Encounter, attacker: Token) -> str: ...
    def move_budget(self, state: Encounter, token: Token) -> float | None: ...
    def fights(self, token: Token) -> bool: ...
    def runs(self, state: Encounter, token: Token) -> bool: ...
    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview: ...


def turn_order(rules: Rules, state: Encounter) -> TurnOrder | None:
    """The order, each token's health and what is left of the acting token's turn."""
    turns = state.schedule
    if not isinstance(turns, Turns):
        return None
    rows = []
    for i, tid in enumerate(turns.order):
        t = state.tokens.get(tid)
        if t is None:
            continue  # removed from the map: the order keeps its place for undo only
        health = rules.health(t)
        condition = turns.condition_of(tid)
        status: RowState = ("out" if not t.alive else "acting" if tid == turns.current
                            else "declared" if condition is not None
                            else "done" if i < turns.index else "waiting")
        detail = [health]
        if STUNNED in t.conditions:
            detail.append("stunned")
        if status == "acting":
            left = remaining(turns.used, rules.shapes(turns))
            detail.append("left: the whole turn" if not turns.used
                          else f"left: {' or '.join(left)}" if left else "turn used up")
        if status == "acting" and t.values.get("stopped"):
            detail.append("run stopped by a hit: no more moves")
        if tid == turns.in_order and turns.resumed:
            detail.append(f"waits for {rules.who(state, turns.resumed)}'s held turn")
        if condition is not None:
            detail.append(f"held: \"{condition}\""
                          + (" (the GM may reject it)" if turns.pending == tid else ""))
        if t.values.get("abstain"):
            detail.append(f"abstains: \"{t.values['abstain']}\"")
        rows.append(OrderRow(tid, t.name, t.side, f"#{i + 1}", status, "; ".join(detail)))
    title = "Surprise round (before initiative)" if turns.surprise else f"Round {turns.round}"
    if turns.resumed:
        title += f" — {rules.who(state, turns.resumed)}'s held turn"
    return TurnOrder(title, tuple(rows))


def _tried(rules: Rules, state: Encounter, key: str, label: str, cmd: Act,
           detail: str = "") -> ActionOption:
    """An option with no target: enabled exactly when the referee would take it."""
    p = rules.preview(state, cmd)
    return ActionOption(key, label, "none", p.legal, p.reason, detail or cmd.detail)


def actions_for(rules: Rules, state: Encounter, actor: str) -> list[ActionOption]:
    """What ``actor`` may do now; a disabled option says why."""
    token = state.tokens.get(actor)
    if token is None:
        return []
    turns = state.schedule
    if not isinstance(turns, Turns):
        free = rules.data.turn.free_moves_before_combat
        return [ActionOption("move", "Move", "cell", free,
                             "" if free else "combat has not started"),
                ActionOption("surprise", "Surprise round: the target may act before "
                             "initiative (on/off)", "token"),
                ActionOption("initiator", "The target starts the fight (advantage)", "token"),
                ActionOption("no_advantage", "A condition takes the target's advantage",
                             "token")]
    reason = rules.turn_refusal(state, actor)

    # "the attacker may roll the damage dice ... of the next whole skill tier": where
    # those differ from the normal dice, the odds card asks which, the better picked.
    crit = rules.critical_choices(token)
    best = ""
    if crit:
        values = crit[0][1]
        best = values[1] if rules.critical_choice(token) == "normal" else values[0]

    def option(key: str, label: str, target: Aim, kinds: tuple[str, ...],
               attack: bool = False, detail: str = "") -> ActionOption:
        why = reason or (rules.shape_refusal(turns, token, kinds) if kinds else "")
        if not why and attack:
            why = rules.attack_refusal(state, token)
        if attack and crit:
            return ActionOption(key, label, target, not why, why, best, crit)
        return ActionOption(key, label, target, not why, why, detail)

    weapon = rules.weapon_of(token)
    budget = rules.move_budget(state, token) or 0.0
    # An Attack command names a weapon, not dice: with a choice to make, an Act "strike".
    opts = [option("strike" if crit else "attack", f"Attack ({weapon.name})", "token",
                   ("standard",), True)]
    for f in rules.data.flourishes.values():
        costs = [f"{n} {k}" for k, n in (("stamina", f.stamina), ("faith", f.faith)) if n]
        o = option(f"flourish:{f.key}", f"Flourish: {f.name} ({', '.join(costs) or 'free'})",
                   "token", ("standard",), True)
        short = [f"{k} {rules.points(token, k)}" for k, n in
                 (("stamina", f.stamina), ("faith", f.faith)) if n > rules.points(token, k)]
        if o.enabled and short:
            o = replace(o, enabled=False, reason=f"{f.name} costs {', '.join(costs)}; "
                                                 f"{token.name} has {', '.join(short)}")
        opts.append(o)
    move = ActionOption("move", f"Move ({rules.move_metres(token):g} m a move action)", "cell",
                        budget > 0, "" if budget > 0 else
                        (reason or rules.stopped(token)
                         or rules.shape_refusal(turns, token, ("move",))
                         or f"{token.name} cannot move now"))
    opts.append(move)
    if not turns.surprise:
        opts.append(_tried(rules, state, "standard", "Standard action (not an attack)",
                           Act(actor, "standard", detail="a standard action")))
        opts.append(_tried(rules, state, "full_round", "Full-round action (whole turn)",
                           Act(actor, "full_round", detail="a full-round action")))
        opts.append(_tried(rules, state, "withdraw",
                           "Withdraw (full round: two moves, no attacks of opportunity)",
                           Act(actor, "withdraw")))
        opts.append(replace(
            _tried(rules, state, "abstain", "Abstain: stay out of the fight this turn",
                   Act(actor, "abstain", detail="I stay out of the fight and keep my distance.")),
            prompt=f"What does {token.name} mean to do instead? (their declared intent)"))
        again = turns.resumed and turns.rejected != actor
        hold_why = reason or ("a held turn cannot be held again" if again else "") \
            or (f"{token.name} has acted this turn; a turn is held before any action"
                if turns.used else "")
        opts.append(ActionOption("hold", "Hold the turn until the target has acted", "token",
                                 not hold_why, hold_why))
        opts.append(ActionOption(
            "hold", "Hold the turn until… (a condition in words)", "none", not hold_why,
            hold_why, "I wait until an enemy comes within reach of my spear.",
            prompt=f"{token.name} holds the turn until what happens? A specific condition, "
                   "as a sentence (\"until later\" is too vague)."))
    if turns.pending and turns.condition_of(turns.pending) is not None:
        # "It cannot be generic": the Storyteller's call, one click until the next acts.
        name = rules.who(state, turns.pending)
        opts.append(_tried(rules, state, "reject_hold",
                           f"GM: reject {name}'s condition as too generic "
                           f"(\"{turns.condition_of(turns.pending)}\")",
                           Act(actor, "reject_hold", detail=turns.pending)))
    for who, condition in turns.held:
        name = rules.who(state, who)
        opts.append(_tried(rules, state, "resume", f"Resume {name}'s held turn "
                                                   f"(\"{condition}\")",
                           Act(actor, "resume", detail=who)))
    opts.append(_tried(rules, state, "bonus", f"GM: situational bonus "
                                              f"+{rules.data.challenge.bonus} on the next "
                                              "attack",
                       Act(actor, "bonus",
                           detail=f"{rules.data.challenge.bonus} declared by the GM")))
    stance = state.data.get("opportunity", rules.data.opportunity.decide)
    chance = rules.data.opportunity
    for key, label in (("roll", f"GM: roll for attacks of opportunity "
                                f"({chance.take_at_most} in {chance.die})"),
                       ("take", "GM: foes always take attacks of opportunity"),
                       ("pass", "GM: foes let runners go")):
        if key != stance:
            opts.append(_tried(rules, state, f"opportunity:{key}", label,
                               Act(actor, f"opportunity:{key}")))
    end_why = "" if turns.current == actor else \
        f"it is {rules.who(state, turns.current)}'s turn"
    opts.append(ActionOption("end_turn", "End turn", "none", not end_why, end_why))
    return opts


def both(names: Sequence[str]) -> str:
    """"a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def opportunity_notes(rules: Rules, state: Encounter, runner: Token,
                      leaves: Sequence[tuple[str, int]]) -> list[str]:
    """What leaving these reaches will bring, a clause a kind, for the move's preview."""
    enemies = [state.tokens[e] for e, _ in sorted(leaves, key=lambda p: p[1])
               if e in state.tokens and rules.fights(state.tokens[e])]
    if not enemies:
        return []
    if runner.values.get("withdrawing"):
        return ["a withdrawal: no attack of opportunity"]
    if not rules.runs(state, runner):
        return [f"not a run ({runner.name} does not abstain): no attack of opportunity"]
    o = rules.data.opportunity
    stance = str(state.data.get("opportunity") or o.decide)
    if stance == "pass":
        return ["the GM lets runners go: no attack of opportunity"]

    def barred(enemy: Token) -> bool:
        mine = enemy.values.get("no_return")
        return isinstance(mine, tuple) and runner.id in mine

    drawn = [t.name for t in enemies if not barred(t)]
    back = [t.name for t in enemies if barred(t)]
    out = []
    if drawn:
        how = "the GM: always taken" if stance == "take" else \
            f"d{o.die}: taken on {o.take_at_most} or less"
        what = "an attack" if len(drawn) == 1 else "attacks"
        out.append(f"draws {what} of opportunity from {both(drawn)} ({how})")
    if back:
        out.append(f"{both(back)} cannot attack {runner.name} back: no attack of opportunity")
    return out


def forecast_hints(rules: object) -> Hints:
    """What the autopilot needs to know here (README "The autopilot")."""
    # The opposed roll's exact odds already choose between strikes and flourishes well;
    # a few throws of each plan only add noise between plans of nearly equal worth (mirror
    # bench, 100 pairs: 61% with the odds alone, 47 to 56% with 4 or 8 throws a plan).
    # A double move ends the turn beside the enemy with no strike, and the enemy strikes
    # first: in the first three rounds the autopilot waits instead (500 pairs: 57.5% of
    # the decided fights to 62.8%).
    return Hints(rollouts=False, wait_rounds=3)
