"""Dice notation as GMs write it: ``2d6+3``, ``4d6kh3``, ``d20 adv``, ``3d8-1``, ``d%``.

``parse`` reads a roll into a ``Notation``; the notation gives its exact
distribution (for the odds shown before the roll) and rolls itself from any
``DiceSource``, so the encounter's seeded stream, physical dice and fixed
test dice all work alike::

    >>> n = parse("4d6kh3")
    >>> round(n.distribution().mean(), 2)  # type: ignore[union-attr]
    12.24
    >>> n.roll(FixedDice([6, 1, 4, 5])).total
    15
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.dice import DiceSource, FixedDice, Roll
from tacmap.engine.rules.odds import kept

#: At most this many dice in one roll, of at most this many sides.
MAX_DICE = 100
MAX_SIDES = 1000
#: A flat modifier stays within this.
MAX_MODIFIER = 10_000
#: Text longer than this is not a roll anybody typed.
MAX_TEXT = 200

#: Keeping two or more dice of a pool is charted only up to this (dice kept × sides):
#: past it the exact count takes seconds, and the roll is rolled without a chart.
MAX_KEPT_WORK = 150

_TERM = re.compile(r"(?P<count>\d*)d(?P<sides>\d+|%)(?:(?P<keep>k[hl]?|d[hl]?)(?P<n>\d+))?$")
_NUMBER = re.compile(r"\d+$")
_ADVANTAGE = {"adv": True, "advantage": True, "dis": False, "disadvantage": False}


@dataclass(frozen=True)
class DiceTerm:
    """One group of like dice in a roll, possibly keeping only some of them."""

    count: int
    """Dice thrown."""
    sides: int
    """Faces on each die."""
    keep: int
    """Dice that count (``count`` unless some are dropped)."""
    highest: bool = True
    """Keep the highest dice (else the lowest)."""
    sign: int = 1
    """+1, or -1 for a term that is taken away."""

    def __str__(self) -> str:
        count = "" if self.count == 1 else str(self.count)
        keep = "" if self.keep == self.count else f"k{'h' if self.highest else 'l'}{self.keep}"
        return f"{count}d{self.sides}{keep}"

    def kept_faces(self, roll: Roll) -> tuple[int, ...]:
        """Indexes (in the order rolled) of the faces that count.

        >>> DiceTerm(4, 6, 3).kept_faces(Roll(6, (6, 1, 4, 5)))
        (0, 2, 3)
        """
        order = sorted(range(len(roll.faces)), key=lambda i: roll.faces[i],
                       reverse=self.highest)
        return tuple(sorted(order[: self.keep]))


@dataclass(frozen=True)
class Rolled:
    """A notation rolled: every die as it fell, which ones counted, and the total."""

    notation: Notation
    """What was rolled."""
    rolls: tuple[Roll, ...]
    """One roll per dice term, faces in the order they fell."""
    total: int
    """The result."""

    def __str__(self) -> str:
        parts: list[str] = []
        for term, roll in zip(self.notation.terms, self.rolls, strict=True):
            keep = set(term.kept_faces(roll))
            faces = " ".join(str(f) if i in keep else f"({f})" for i, f in enumerate(roll.faces))
            parts.append(f"{'-' if term.sign < 0 else '+'} {term} [{faces}]")
        mod = self.notation.modifier
        if mod:
            parts.append(f"{'-' if mod < 0 else '+'} {abs(mod)}")
        text = " ".join(parts)
        return f"{text[2:] if text.startswith('+ ') else text} = {self.total}"


@dataclass(frozen=True)
class Notation:
    """A roll in dice notation, read and checked."""

    terms: tuple[DiceTerm, ...]
    """The dice, left to right."""
    modifier: int = 0
    """The flat number added (negative: taken away)."""

    def __str__(self) -> str:
        text = ""
        for term in self.terms:
            text += f"{'-' if term.sign < 0 else '+'}{term}"
        if self.modifier:
            text += f"{'-' if self.modifier < 0 else '+'}{abs(self.modifier)}"
        return (text[1:] if text.startswith("+") else text) or "0"

    @property
    def dice(self) -> int:
        """How many dice are thrown."""
        return sum(t.count for t in self.terms)

    def distribution(self) -> Chances | None:
        """The chance of every total; None when keeping dice of a pool too large to count.

        Sums of like dice are convolved (by FFT past a few dice, so 100d1000 takes
        milliseconds); kept dice are counted exactly by icepool.
        """
        low, probs = self.modifier, np.ones(1)
        for t in self.terms:
            if 1 < t.keep < t.count and t.keep * t.sides > MAX_KEPT_WORK:
                return None
            if t.keep < t.count:
                items = kept(t.count, t.sides, t.keep, t.highest).items()
                t_low = items[0][0]
                part = np.zeros(items[-1][0] - t_low + 1)
                for outcome, p in items:
                    part[outcome - t_low] = p
            else:
                t_low, part = t.count, _sum_of(t.count, t.sides)
            if t.sign < 0:
                t_low, part = -(t_low + len(part) - 1), part[::-1]
            low, probs = low + t_low, _convolve(probs, part)
        probs = np.clip(probs, 0.0, None)
        return Chances(low, tuple((probs / probs.sum()).tolist()))

    def roll(self, source: DiceSource, why: str = "") -> Rolled:
        """Throw every term's dice from ``source`` (in order) and add them up."""
        rolls = tuple(source.roll(t.count, t.sides, why or str(self)) for t in self.terms)
        total = self.modifier
        for term, roll in zip(self.terms, rolls, strict=True):
            total += term.sign * sum(roll.faces[i] for i in term.kept_faces(roll))
        return Rolled(self, rolls, total)


@dataclass(frozen=True)
class Chances:
    """The chance of each total of a roll, from ``low`` up."""

    low: int
    """The lowest total."""
    probs: tuple[float, ...]
    """Chance of ``low``, ``low + 1`` …"""

    def items(self) -> tuple[tuple[int, float], ...]:
        """(total, chance) pairs, lowest first."""
        return tuple((self.low + i, p) for i, p in enumerate(self.probs))

    def at_least(self, target: int) -> float:
        """The chance to reach ``target``."""
        return float(sum(self.probs[max(0, target - self.low):]))

    def mean(self) -> float:
        """The average total."""
        return float(sum((self.low + i) * p for i, p in enumerate(self.probs)))


def _sum_of(count: int, sides: int) -> np.ndarray:
    """Chances of count, count + 1 … count × sides for the sum of ``count`` d``sides``."""
    one = np.full(sides, 1.0 / sides)
    result, power, n = np.ones(1), one, count
    while n:  # by squaring: log2(count) convolutions
        if n & 1:
            result = _convolve(result, power)
        n >>= 1
        if n:
            power = _convolve(power, power)
    return result


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if min(len(a), len(b)) < 64:
        return np.convolve(a, b)
    size = len(a) + len(b) - 1
    n = 1 << (size - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(a, n) * np.fft.rfft(b, n), n)[:size]


def parse(text: str) -> Notation:
    """Read a roll; one InputError sentence that names the wrong part.

    >>> str(parse("d20 adv + 5"))
    '2d20kh1+5'
    >>> parse("2d6+x")
    Traceback (most recent call last):
    ...
    tacmap.engine.model.errors.InputError: 'x' is not dice (like 2d6 or 4d6kh3) or a number
    """
    if len(text) > MAX_TEXT:
        raise InputError(f"a roll is at most {MAX_TEXT} characters ({len(text):,} given)")
    words = text.lower().split()
    said = [w for w in words if w in _ADVANTAGE]
    if len(said) > 1:
        raise InputError(f"say advantage or disadvantage once, not {' and '.join(said)}")
    advantage = _ADVANTAGE[said[0]] if said else None
    body = "".join(w for w in words if w not in _ADVANTAGE)
    if not body:
        raise InputError("an empty roll: type dice like 2d6+3, 4d6kh3 or d20 adv")
    terms: list[DiceTerm] = []
    modifier = 0
    for sign, part in _split(body):
        if _NUMBER.match(part):
            modifier += sign * int(part)
            if abs(modifier) > MAX_MODIFIER:
                raise InputError(f"the modifier {part} is more than {MAX_MODIFIER:,}")
            continue
        terms.append(_term(part, sign))
    if advantage is not None:
        terms = [_with_advantage(terms, advantage)]
    notation = Notation(tuple(terms), modifier)
    if notation.dice > MAX_DICE:
        raise InputError(f"{notation} throws {notation.dice} dice; a roll has at most "
                         f"{MAX_DICE}")
    return notation


def _split(body: str) -> list[tuple[int, str]]:
    """``2d6-1+d4`` → [(1, '2d6'), (-1, '1'), (1, 'd4')]."""
    parts: list[tuple[int, str]] = []
    sign, start = 1, 0
    if body[0] in "+-":
        sign, start = (-1 if body[0] == "-" else 1), 1
    for i in range(start, len(body) + 1):
        if i == len(body) or body[i] in "+-":
            part = body[start:i]
            if not part:
                raise InputError(f"a sign with nothing after it in {body!r}")
            parts.append((sign, part))
            if i < len(body):
                sign, start = (-1 if body[i] == "-" else 1), i + 1
    return parts


def _term(part: str, sign: int) -> DiceTerm:
    match = _TERM.match(part)
    if match is None:
        raise InputError(f"{part!r} is not dice (like 2d6 or 4d6kh3) or a number")
    count = int(match["count"] or 1)
    sides = 100 if match["sides"] == "%" else int(match["sides"])
    if count < 1:
        raise InputError(f"{part!r} throws no dice")
    if count > MAX_DICE:
        raise InputError(f"{part!r} throws {count} dice; a roll has at most {MAX_DICE}")
    if not 2 <= sides <= MAX_SIDES:
        raise InputError(f"{part!r}: a die has 2 to {MAX_SIDES:,} sides")
    keep, highest = count, True
    if match["keep"]:
        n = int(match["n"])
        dropping = match["keep"].startswith("d")
        highest = match["keep"] in ("k", "kh", "dl", "d")
        keep = count - n if dropping else n
        if not 1 <= keep <= count:
            raise InputError(f"{part!r} keeps {keep} of {count} dice; keep 1 to {count}")
    return DiceTerm(count, sides, keep, highest, sign)


def _with_advantage(terms: list[DiceTerm], advantage: bool) -> DiceTerm:
    """``d20 adv``: the roll's single die thrown twice, the better (or worse) kept."""
    word = "advantage" if advantage else "disadvantage"
    if len(terms) != 1 or terms[0].count != 1:
        raise InputError(f"{word} is for a roll of one die (like d20 {word[:3]}), not "
                         f"{' and '.join(str(t) for t in terms) or 'a number'}")
    only = terms[0]
    return DiceTerm(2, only.sides, 1, advantage, only.sign)


__all__ = ["MAX_DICE", "MAX_SIDES", "Chances", "DiceTerm", "FixedDice", "Notation", "Rolled",
           "parse"]
