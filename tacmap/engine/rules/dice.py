"""Dice: where faces come from, and the record of a roll with every face in order.

Three sources share one small protocol:

* ``SeededDice`` — the encounter's own stream. Face *n* of the stream depends
  only on the seed and *n*, so the state keeps a single counter and a log
  replays to the same faces. Nothing here touches the module-level ``random``.
* ``FixedDice`` — a list of faces, for tests and ``tacmap play --dice``.
* ``ManualDice`` — asks the GM, who rolled physical dice, to type the faces in.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Protocol

from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.records import LIMIT, LONG, Int, Record

MAX_DICE = 1000
MAX_SIDES = 1000


class Roll(Record, frozen=True, tag="roll"):
    """One throw of like dice, faces kept left to right as they fell."""

    sides: Int
    """Faces on each die (6 for d6)."""
    faces: Annotated[tuple[Int, ...], LONG]
    """What each die shows, in the order rolled; rulesets remove dice from the left."""

    @property
    def total(self) -> int:
        """Sum of the faces."""
        return sum(self.faces)

    def count(self, at_least: int) -> int:
        """How many dice show ``at_least`` or more."""
        return sum(1 for f in self.faces if f >= at_least)

    def drop_left(self, n: int) -> Roll:
        """The roll with the ``n`` leftmost dice removed.

        >>> Roll(6, (1, 5, 3)).drop_left(1).faces
        (5, 3)
        """
        return Roll(self.sides, self.faces[n:])

    def __str__(self) -> str:
        return f"{len(self.faces)}d{self.sides} [{' '.join(map(str, self.faces))}]"


class DiceSource(Protocol):
    """Anything that can throw ``count`` dice of ``sides`` faces."""

    def roll(self, count: int, sides: int, why: str = "") -> Roll:
        """Throw the dice; ``why`` tells a manual source what to ask for."""
        ...


def _check(count: int, sides: int) -> None:
    if not 0 <= count <= MAX_DICE:
        raise RuleError(f"cannot roll {count} dice (limit {MAX_DICE})")
    if not 2 <= sides <= MAX_SIDES:
        raise RuleError(f"a die needs 2 to {MAX_SIDES} sides, not {sides}")


def fresh_seed() -> int:
    """A new encounter's seed: random, and within the range a file may hold."""
    return int.from_bytes(os.urandom(8), "big") % LIMIT


def stream_face(seed: int, index: int, sides: int) -> int:
    """Face ``index`` of the stream for ``seed``: a pure function, so replay is exact.

    >>> stream_face(7, 0, 6) == stream_face(7, 0, 6)
    True
    """
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    # 64 bits against at most 1000 sides: the modulo bias is below 1e-16.
    return int.from_bytes(digest, "big") % sides + 1


class SeededDice:
    """The encounter's stream; ``drawn`` says how many faces were used already."""

    def __init__(self, seed: int, drawn: int = 0) -> None:
        self.seed = seed
        self.drawn = drawn

    def roll(self, count: int, sides: int, why: str = "") -> Roll:
        """Next ``count`` faces of the stream."""
        _check(count, sides)
        faces = tuple(stream_face(self.seed, self.drawn + i, sides) for i in range(count))
        self.drawn += count
        return Roll(sides, faces)


class FixedDice:
    """Faces given up front, used in order; running out is a clear error."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)
        self.used = 0

    def roll(self, count: int, sides: int, why: str = "") -> Roll:
        """Take the next ``count`` given faces, each checked against the die size."""
        _check(count, sides)
        if self.used + count > len(self.faces):
            left = len(self.faces) - self.used
            raise RuleError(f"need {count}d{sides} for {why or 'a roll'} but {left} dice are left")
        faces = tuple(self.faces[self.used : self.used + count])
        for f in faces:
            if not 1 <= f <= sides:
                raise RuleError(f"a d{sides} cannot show {f}")
        self.used += count
        return Roll(sides, faces)


class ManualDice:
    """Physical dice: ``ask(count, sides, why)`` returns the faces the GM typed in."""

    def __init__(self, ask: Callable[[int, int, str], Sequence[int]]) -> None:
        self.ask = ask

    def roll(self, count: int, sides: int, why: str = "") -> Roll:
        """Ask for the faces and check them."""
        _check(count, sides)
        faces = tuple(self.ask(count, sides, why))
        if len(faces) != count:
            raise RuleError(f"{why or 'the roll'} needs {count} dice, {len(faces)} were entered")
        for f in faces:
            if not 1 <= f <= sides:
                raise RuleError(f"a d{sides} cannot show {f}")
        return Roll(sides, faces)
