"""From an offered action to the command it stands for (DESIGN §3).

A ruleset lists what a token may do as ``ActionOption``s; the GM picks one and,
when it needs one, a target. ``command_for`` is the one place that turns that
choice into a ``Command``, so the window's buttons, its token menu, the odds
card and the tests all send exactly what the ruleset offered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tacmap.engine.model.commands import Act, Attack, Command, EndTurn, Move
from tacmap.engine.model.state import Cell, Encounter, OutOfFight, Template, marked_dead
from tacmap.engine.rules.views import ActionOption, TurnOrder


def command_for(actor: str, option: ActionOption, target: str = "", *,
                path: Sequence[Cell] = (), area: Template | None = None) -> Command:
    """The command ``actor`` sends by taking ``option`` (aimed at token ``target``).

    By key: ``"attack"`` is an ``Attack`` with the weapon the option names in its
    ``detail`` (empty: the weapon in hand); ``"end_turn"`` an ``EndTurn`` of
    ``actor``; ``"move"`` a ``Move`` through ``path``, the waypoints the GM
    dragged (a move cannot be made without them); every other key is an
    ``Act`` named by the key, carrying the target and the option's ``detail``
    (``"prepare:dodge"``, ``"wield:axe"``, ``"cast"`` …), and the ``area`` the GM
    placed for an option aimed at one. Nothing is checked here: the referee judges
    the command like any other.

    >>> command_for("ana", ActionOption("attack", "Attack (axe)", "token"), "brak")
    Attack(actor='ana', target='brak', weapon='')
    >>> command_for("ana", ActionOption("prepare:dodge", "Prepare: dodge", "token"), "brak")
    Act(actor='ana', action='prepare:dodge', target='brak', detail='', area=UNSET)
    >>> command_for("ana", ActionOption("end_turn", "End turn"))
    EndTurn(actor='ana')
    """
    if option.key == "attack":
        return Attack(actor, target, option.detail)
    if option.key == "end_turn":
        return EndTurn(actor)
    if option.key == "move":
        if not path:
            raise ValueError("a move needs the path the token is dragged along")
        return Move(actor, tuple(path))
    if area is not None:
        return Act(actor, option.key, target, option.detail, area)
    return Act(actor, option.key, target, option.detail)


def asked_words(option: ActionOption) -> str:
    """The suggested answer to ``option.prompt``: its ``detail``, or, for an option that
    also has ``choices``, what follows the picked values there.

    >>> asked_words(ActionOption("prepare:generic", "Prepare", "token",
    ...                          choices=(("When", ("attacks me",)),), detail="attacks me/duck"))
    'duck'
    """
    if not option.choices:
        return option.detail
    parts = option.detail.split("/", len(option.choices))
    return parts[-1] if len(parts) > len(option.choices) else ""


def with_words(option: ActionOption, words: str, picked: str | None = None) -> ActionOption:
    """``option`` carrying the GM's ``words`` (and the values ``picked`` on the odds card):
    an option with both ``choices`` and a ``prompt`` sends the picked values, then ``/``,
    then the words, in its ``detail``.

    >>> with_words(ActionOption("skill", "Skill"), "climb").detail
    'climb'
    >>> with_words(ActionOption("prepare:generic", "Prepare", "token", prompt="What?",
    ...                         choices=(("When", ("attacks me",)),), detail="attacks me/"),
    ...            "duck").detail
    'attacks me/duck'
    """
    if not option.choices:
        return replace(option, detail=words)
    if picked is None:
        picked = "/".join(option.detail.split("/", len(option.choices))[:len(option.choices)])
    return replace(option, detail=f"{picked}/{words}" if option.prompt else picked)


def acting_token(state: Encounter, order: TurnOrder | None, selected: str | None = None,
                 out: OutOfFight = marked_dead) -> str | None:
    """The token whose actions the Actions panel offers now.

    An acting token row is that token (the selected one, when several act). Where
    a whole side acts (side initiative), it is the selected token when it is on
    that side, else the side's first token still in the fight (not ``out``, the
    ruleset's ``out_of_fight``): a side has no actions, its members do.
    """
    if order is None:
        return None
    acting = [row for row in order.rows if row.state == "acting"]
    tokens = [row.id for row in acting if row.id in state.tokens]
    if tokens:
        return selected if selected in tokens else tokens[0]
    sides = {row.side for row in acting}
    members = [t for t in state.tokens.values() if t.side in sides and not out(t)]
    if selected is not None and any(t.id == selected for t in members):
        return selected
    return members[0].id if members else None


def stable_order(options: Sequence[ActionOption]) -> list[ActionOption]:
    """``options`` in the order the Actions panel lists them, the same for every token.

    Attacks first, then moving, then the ruleset's other actions in the ruleset's
    order, and ending the turn last: a button the GM clicked for one token is in
    the same place for the next (issue 22). A ruleset keeps its token-specific
    actions (abilities, spells, a GM choice) after the ones every token has.
    """
    def group(o: ActionOption) -> int:
        if o.key == "end_turn":
            return 3
        if o.key == "attack" or o.label.startswith("Attack"):
            return 0
        return 1 if o.key == "move" else 2

    return sorted(options, key=group)  # sorted() is stable: the ruleset's order within
