"""Choices the seed gives to people, asked of the GM instead of rolled or fixed.

Slip: "they may choose to do one of these" (two on a Glancing save); Battlefield
Damaged: "Select Battlefield Feature or Terrain Feature"; Close Quarters: "Select Two
Combatants in Threat Range". Where the seed says "Select Random" a die picks; where it
says "Select" or "choose", the GM does. A choice with one possible answer is no choice.

An open choice is kept in ``state.data["choices"]`` (oldest first), each with its
options (code, label) and the default. The Actions panel lists the options of the
oldest one as ``choose`` actions (``act <any token> choose detail=<code>``); any other
command first applies the default, and the log says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tacmap.api import DataChanged, Encounter, Resolution, Said

KEY = "choices"
"""Where the open choices live in ``state.data``."""


def pending(state: Encounter) -> list[dict[str, Any]]:
    """The open choices, oldest first."""
    found = state.data.get(KEY)
    return [dict(c) for c in found] if isinstance(found, list | tuple) else []


def options_of(choice: dict[str, Any]) -> list[tuple[str, str]]:
    """(code, label) of each answer."""
    return [(str(o[0]), str(o[1])) for o in choice["options"]]


def ask(ctx: Resolution, event: str, name: str, who: str, options: Sequence[tuple[str, str]],
        default: str, question: str) -> str | None:
    """Ask the GM ``question``; returns the answer at once when there is only one."""
    if len(options) == 1:
        return options[0][0]
    old = ctx.state.data.get(KEY)
    # Tuples, as a file reads them back: a reopened encounter equals the one saved.
    new = (*pending(ctx.state), {"event": event, "name": name, "who": who,
                                 "options": tuple((c, label) for c, label in options),
                                 "default": default})
    ctx.emit(DataChanged(KEY, old, new))
    listed = "; ".join(f"{c} = {label}" for c, label in options)
    ctx.emit(Said(f"{name}: {question}. The GM chooses ({listed}); "
                  f"if nobody does, {dict(options)[default]}", who))
    return None


def take(ctx: Resolution, code: str | None) -> tuple[dict[str, Any], str] | None:
    """Close the oldest choice with ``code`` (None: its default); None when none is open.

    Raises ValueError with the sentence to show when ``code`` is not one of its answers.
    """
    open_ = pending(ctx.state)
    if not open_:
        return None
    choice = open_[0]
    answers = dict(options_of(choice))
    given = code is not None
    code = str(choice["default"]) if code is None else code.strip()
    if code not in answers:
        raise ValueError(f"{choice['name']}: choose one of "
                         + ", ".join(f"{c} ({label})" for c, label in answers.items()))
    ctx.emit(DataChanged(KEY, ctx.state.data.get(KEY), tuple(open_[1:]) or None))
    how = "the GM chooses" if given else "no choice was given, so by default"
    ctx.emit(Said(f"{choice['name']}: {how}: {answers[code]}", str(choice["who"])))
    return choice, code
