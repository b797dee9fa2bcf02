"""The actions besides attacks and moves: holding and resuming a turn, abstaining, full-round
and standard actions, a withdrawal, and the GM's calls (a situational bonus, attacks of
opportunity, who may act in the surprise round, who started the fight).

Each handler takes the ruleset (``Rules``, which rules.py's ``Opposed`` is), the
resolution and the ``Act``; ``HANDLERS`` maps an action key to its handler.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Protocol

from msgspec.structs import replace

from tacmap.api import Act, Encounter, Json, Resolution, RuleError, Said, ScheduleChanged, Token

from .data import Data
from .turns import Turns

HOLD_EXAMPLE = "\"I'm going to wait and see what our fighter does.\""


class Rules(Protocol):
    """What these actions ask of the ruleset."""

    data: Data

    def turns(self, state: Encounter) -> Turns: ...
    def who(self, state: Encounter, token_id: str | None) -> str: ...
    def acting(self, state: Encounter, actor: str, kinds: tuple[str, ...] = ()) -> Token: ...
    def turn_refusal(self, state: Encounter, actor: str) -> str: ...
    def take(self, ctx: Resolution, token: Token, kinds: tuple[str, ...], what: str) -> None: ...
    def end_turn(self, ctx: Resolution) -> None: ...
    def start_turn(self, ctx: Resolution, tid: str) -> None: ...
    def set_value(self, ctx: Resolution, token: Token, key: str, value: Json,
                  why: str) -> None: ...
    def set_stance(self, ctx: Resolution, stance: str) -> None: ...
    def fights(self, token: Token) -> bool: ...


def _words(text: str) -> list[str]:
    return text.lower().strip().strip(string.punctuation + "\u201c\u201d\u2018\u2019 ").split()


def stated(state: Encounter, text: str, what: str, example: str) -> str:
    """``text`` when it names something; RuleError when it names nothing.

    Whether a declaration is too generic is the Storyteller's call (the GM may reject a
    held turn's condition); the rules judge no wording, and refuse only one that names
    nothing: no words, or a lone word naming no combatant ("Later.", "wait"), which says
    no event.
    """
    words = _words(text)
    if not words:
        raise RuleError(f"{what} must be declared, written as a sentence ({example})")
    names = {w for t in state.tokens.values() for w in (*_words(t.name), t.id.lower())}
    if len(words) == 1 and words[0] not in names:
        raise RuleError(f"{what} cannot be generic: {text.strip()!r} names nothing (no "
                        f"event, no one); say what must happen ({example})")
    return text.strip()


def _in_combat(state: Encounter) -> bool:
    return isinstance(state.schedule, Turns)


def _normal_round(rules: Rules, state: Encounter, what: str) -> Turns:
    turns = rules.turns(state)
    if turns.surprise:
        raise RuleError(f"in the surprise round a turn is one action: a move or a standard "
                        f"action; {what} waits for the normal rounds")
    return turns


def hold(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """"saving their turn until after a specified condition has been met".

    "It cannot be generic" is the Storyteller's call: a condition that names something
    stands at once, and the GM may reject it (``reject_hold``) until the next token acts.
    """
    state = ctx.state
    turns = _normal_round(rules, state, "holding a turn")
    token = rules.acting(state, cmd.actor)
    if turns.resumed and turns.rejected != token.id:
        raise RuleError(f"{token.name} is taking a held turn already; it cannot be held again")
    if turns.used:
        raise RuleError(f"{token.name} has acted this turn ({' + '.join(turns.used)}); a turn "
                        "is held before any action")
    text = cmd.detail
    if not text.strip() and cmd.target:
        other = state.token(cmd.target)
        if other.id == token.id:
            raise RuleError(f"{token.name} cannot wait for their own turn")
        text = f"I wait until {other.name} has acted."
    condition = stated(state, text, "the condition of a held turn", HOLD_EXAMPLE)
    new = replace(turns, held=(*turns.held, (token.id, condition)), pending=token.id)
    ctx.emit(ScheduleChanged(turns, new, f"{token.name} holds the turn: \"{condition}\""))
    rules.end_turn(ctx)


def reject_hold(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """The GM rules a held turn's condition too generic ("It cannot be generic"): the
    hold is void and the turn comes back to its token at once, to act or hold again."""
    state = ctx.state
    turns = rules.turns(state)
    who = cmd.detail.strip() or cmd.target
    condition = turns.condition_of(who)
    if turns.resumed:
        raise RuleError(f"{rules.who(state, turns.resumed)}'s held turn is under way; end it "
                        "first")
    if condition is None or turns.pending != who:
        raise RuleError(f"{rules.who(state, who)} has no held turn waiting for the GM's "
                        "ruling (a condition stands once the next token acts)")
    token = state.token(who)
    held = tuple(h for h in turns.held if h[0] != who)
    new = replace(turns, held=held, pending="", resumed=who, rejected=who,
                  paused=turns.used, used=())
    ctx.emit(ScheduleChanged(turns, new, f"the GM rejects {token.name}'s condition as too "
                                         f"generic (\"{condition}\"): {token.name}'s turn "
                                         f"comes back now, to act or hold with a specific "
                                         f"condition; {rules.who(state, turns.current)} waits"))


def resume(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """The GM resumes a held turn: it cuts in now; the interrupted turn goes on after."""
    state = ctx.state
    turns = rules.turns(state)
    who = cmd.detail.strip() or cmd.target
    condition = turns.condition_of(who)
    if condition is None:
        raise RuleError(f"{rules.who(state, who)} is not holding a turn")
    token = state.token(who)
    if turns.resumed:
        raise RuleError(f"{rules.who(state, turns.resumed)}'s held turn is under way; end it "
                        "first")
    if not token.alive:
        raise RuleError(f"{token.name} is dead: the held turn is lost")
    held = tuple(h for h in turns.held if h[0] != who)
    new = replace(turns, held=held, resumed=who, paused=turns.used, used=(), pending="")
    ctx.emit(ScheduleChanged(turns, new, f"the GM resumes {token.name}'s held turn "
                                         f"(\"{condition}\"); "
                                         f"{rules.who(state, turns.current)} waits"))
    rules.start_turn(ctx, who)
    reason = rules.turn_refusal(ctx.state, who)
    if reason:
        raise RuleError(reason)


def abstain(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """"abstaining from combat ... they must declare their intent and actions"."""
    state = ctx.state
    _normal_round(rules, state, "abstaining")
    token = rules.acting(state, cmd.actor)
    if token.values.get("abstain"):
        raise RuleError(f"{token.name} already abstains this turn ({token.values['abstain']})")
    if "standard" in rules.turns(state).used:
        raise RuleError(f"{token.name} has already acted this turn; abstaining comes first")
    intent = stated(state, cmd.detail, "the intent of abstaining",
                            "\"I stay out of the fight and run for the door.\"")
    rules.set_value(ctx, token, "abstain", intent, "abstains from combat this turn")
    ctx.emit(Said(f"{token.name} abstains from combat: \"{intent}\"", token.id))


def full_round(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """"Full Round Action > End": one action takes the whole turn."""
    state = ctx.state
    _normal_round(rules, state, "a full-round action")
    token = rules.acting(state, cmd.actor, ("full",))
    if not rules.fights(token):
        raise RuleError(f"{token.name} is incapacitated: half speed and a withdrawal or a "
                        "standard action, no other full-round action")
    what = cmd.detail.strip() or "a full-round action"
    rules.take(ctx, token, ("full",), what)
    ctx.emit(Said(f"{token.name} spends the whole turn: {what}", token.id))


def withdraw(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """A withdrawal: a full-round action of up to two moves that draws no opportunity attack."""
    state = ctx.state
    _normal_round(rules, state, "a withdrawal")
    token = rules.acting(state, cmd.actor, ("full",))
    rules.take(ctx, token, ("full",), "a withdrawal")
    rules.set_value(ctx, token, "withdrawing", True,
                    "withdraws: up to two moves, no attacks of opportunity")


def standard(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """A standard action that is not an attack (an incapacitated character may take one)."""
    state = ctx.state
    token = rules.acting(state, cmd.actor, ("standard",))
    what = cmd.detail.strip() or "a standard action"
    rules.take(ctx, token, ("standard",), what)
    ctx.emit(Said(f"{token.name}: {what}", token.id))


def bonus(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """"The Storyteller will determine whether or not a situational bonus should be given
    to the attacker – if so, it is declared." Detail: "+2 high ground"."""
    state = ctx.state
    rules.turns(state)
    token = state.token(cmd.target or cmd.actor)
    if not token.alive:
        raise RuleError(f"{token.name} is dead")
    if token.values.get("bonus"):
        raise RuleError(f"{token.name} already has a situational bonus for the next attack")
    head, _, why = cmd.detail.strip().partition(" ")
    amount = rules.data.challenge.bonus
    if head:
        try:
            amount = int(head)
        except ValueError:
            why = cmd.detail.strip()
    if amount == 0:
        raise RuleError("a situational bonus of 0 changes nothing")
    why = why.strip(" :") or "declared by the GM"
    rules.set_value(ctx, token, "bonus", (amount, why), "a situational bonus for the next attack")
    ctx.emit(Said(f"the GM gives {token.name} a situational bonus of {amount:+d} on the next "
                  f"attack: {why}", token.id))


def opportunity(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """The GM's side decides attacks of opportunity: roll, always take, or let them go."""
    rules.turns(ctx.state)
    stance = cmd.action.partition(":")[2] or cmd.detail.strip()
    if stance not in ("roll", "take", "pass"):
        raise RuleError(f"say roll, take or pass, not {stance!r}")
    if ctx.state.data.get("opportunity", rules.data.opportunity.decide) == stance:
        raise RuleError(f"attacks of opportunity are already on {stance!r}")
    rules.set_stance(ctx, stance)
    o = rules.data.opportunity
    words = {"roll": f"rolled for (d{o.die}: taken on {o.take_at_most} or less)",
             "take": "always taken", "pass": "never taken: runners go unimpeded"}[stance]
    ctx.emit(Said(f"the GM decides: attacks of opportunity are {words}"))


def _before(rules: Rules, ctx: Resolution, cmd: Act, what: str) -> Token:
    if _in_combat(ctx.state):
        raise RuleError(f"{what} is set before initiative, and combat has started")
    token = ctx.state.token(cmd.target or cmd.actor)
    if not token.alive:
        raise RuleError(f"{token.name} is dead")
    return token


def surprise(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """"hidden or out of range at the start of combat, the Storyteller may allow them to
    take an action ... prior to determining initiative order". Toggles the mark."""
    token = _before(rules, ctx, cmd, "who acts in the surprise round")
    on = not token.values.get("surprise")
    rules.set_value(ctx, token, "surprise", True if on else None,
                    "may act in the surprise round (hidden or out of range)" if on
                    else "will not act in the surprise round")


def initiator(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """"Advantage goes to the character initiating combat"."""
    token = _before(rules, ctx, cmd, "who starts the fight")
    for other in ctx.state.tokens.values():
        if other.values.get("initiator") and other.id != token.id:
            rules.set_value(ctx, other, "initiator", None, f"{token.name} starts the fight")
    if token.values.get("initiator"):
        raise RuleError(f"{token.name} is already marked as starting the fight")
    rules.set_value(ctx, token, "initiator", True, "starts the fight: advantage")


def no_advantage(rules: Rules, ctx: Resolution, cmd: Act) -> None:
    """"unless a condition exists that would prevent this": the GM names it."""
    token = _before(rules, ctx, cmd, "a condition against advantage")
    if not token.values.get("initiator"):
        raise RuleError(f"{token.name} is not marked as starting the fight")
    why = cmd.detail.strip() or "the GM rules that a condition prevents it"
    rules.set_value(ctx, token, "no_advantage", why, "no advantage")


HANDLERS: dict[str, Callable[[Rules, Resolution, Act], None]] = {
    "hold": hold, "reject_hold": reject_hold, "resume": resume, "abstain": abstain,
    "full_round": full_round,
    "withdraw": withdraw, "standard": standard, "bonus": bonus, "opportunity": opportunity,
    "surprise": surprise, "initiator": initiator, "no_advantage": no_advantage,
}
