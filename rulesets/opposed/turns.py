"""The round as the opposed rules play it: ``Turns``, an ``OrderedTurns`` that also knows
the surprise round, the turn shape used so far, held turns and a resumed one.

Turn shapes ("Move Action > Move Action > End OR Move Action > Standard Action > Move
Action > End OR Full Round Action > End") are sequences of action kinds; what a turn
has done must fit, in order, inside one of them (a move may be left out, the turn may
end early). Saved in encounter files under the record's tag, so a field renamed here is
a file format change.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from tacmap.api import OrderedTurns, Text

WORDS = {"move": "move", "standard": "standard", "full": "one full-round action"}


class Turns(OrderedTurns, frozen=True, tag="opposed_turns"):
    """The GM's (or Reflex's) order, with what the opposed rules add to a turn."""

    surprise: bool = False
    """True during the surprise round, before initiative."""
    after: tuple[Text, ...] = ()
    """The GM's order for the first normal round (empty: the rules set it)."""
    used: tuple[Text, ...] = ()
    """Action kinds the acting token has taken this turn: ``move``, ``standard``, ``full``."""
    held: tuple[tuple[Text, Text], ...] = ()
    """Held turns: (token id, the condition that resumes it, in the player's words)."""
    resumed: Text = ""
    """A held token taking its turn now, ahead of the one whose turn it is."""
    paused: tuple[Text, ...] = ()
    """What the interrupted token had used before the resumed turn cut in."""
    pending: Text = ""
    """A token whose held turn's condition the GM has not ruled on yet: accepted unless
    the GM rejects it before the next token acts."""
    rejected: Text = ""
    """A token taking its turn again because the GM rejected its held turn's condition:
    it may act, or hold again with another condition."""

    @property
    def current(self) -> str | None:
        """Whose turn it is: a resumed held turn first."""
        if self.resumed:
            return self.resumed
        return self.order[self.index] if self.order else None

    @property
    def in_order(self) -> str | None:
        """Whose place in the order it is (the interrupted token while a held turn runs)."""
        return self.order[self.index] if self.order else None

    def condition_of(self, who: str) -> str | None:
        """The condition ``who`` holds the turn for, or None."""
        return next((c for w, c in self.held if w == who), None)

    def take(self, kinds: Sequence[str]) -> Turns:
        """The acting token takes actions of these kinds (checked by the rules first)."""
        return replace(self, used=(*self.used, *kinds), pending="")

    def next_turn(self) -> Turns:
        """End the turn: back to an interrupted token, or the next in the order."""
        if self.resumed:
            return replace(self, resumed="", used=self.paused, paused=(), rejected="")
        nxt = super().end_turn()
        assert isinstance(nxt, Turns)
        return replace(nxt, used=())

    def reorder(self, order: Sequence[str]) -> Turns:
        """The same combatants in a new order; a resumed turn keeps running."""
        plain = replace(self, resumed="")
        new = OrderedTurns.reorder(plain, order)
        assert isinstance(new, Turns)
        return replace(new, resumed=self.resumed)


def fits(used: Sequence[str], shape: Sequence[str]) -> int | None:
    """Where ``used`` ends inside ``shape`` (in order, moves may be skipped), or None."""
    at = 0
    for kind in used:
        while at < len(shape) and shape[at] != kind:
            if shape[at] != "move":
                return None
            at += 1
        if at == len(shape):
            return None
        at += 1
    return at


def allowed(used: Sequence[str], shapes: Sequence[Sequence[str]]) -> bool:
    """True when ``used`` fits in one of the shapes."""
    return any(fits(used, s) is not None for s in shapes)


def remaining(used: Sequence[str], shapes: Sequence[Sequence[str]]) -> list[str]:
    """What is left of each shape ``used`` fits, in words ("standard + move")."""
    out: list[str] = []
    for s in shapes:
        at = fits(used, s)
        if at is None or at == len(s):
            continue
        text = " + ".join(WORDS[k] for k in s[at:])
        if text not in out:
            out.append(text)
    return out


def shapes_text(shapes: Sequence[Sequence[str]]) -> str:
    """"move + move, move + standard + move, or one full-round action"."""
    parts = [" + ".join(WORDS[k] for k in s) for s in shapes]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])}, or {parts[-1]}"


def either(parts: Sequence[str]) -> str:
    """"a, b or c"."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"
