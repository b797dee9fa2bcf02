"""Exact odds for previews, from icepool. The only module that imports icepool.

Rulesets build distributions from a few cached primitives and combine them::

    >>> hits = successes(5, 6, 4)                 # 5d6, a 4+ is a success
    >>> round(hits.at_least(3), 4)
    0.5
    >>> dmg = hits.map(lambda m: dice(m, 6) if m else 0)
    >>> dmg.at_least(1) == hits.at_least(1)
    True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import icepool


@lru_cache(maxsize=1)
def _icepool() -> ModuleType:
    # Imported with the first odds asked for, not with the window: icepool costs a
    # fifth of a second, and the first paint shows no odds.
    return importlib.import_module("icepool")


class Distribution:
    """A finite distribution over whole numbers, exact (fractions inside)."""

    __slots__ = ("_die",)

    def __init__(self, die: icepool.Die[int]) -> None:
        self._die = die

    @staticmethod
    def constant(value: int) -> Distribution:
        """Always ``value``."""
        return _constant(value)

    def items(self) -> tuple[tuple[int, float], ...]:
        """(outcome, probability) pairs, lowest outcome first."""
        total = self._die.denominator()
        return tuple((int(o), q / total) for o, q in self._die.items())

    def exact(self, outcome: int) -> Fraction:
        """Exact probability of ``outcome``."""
        return Fraction(self._die.quantity(outcome), self._die.denominator())

    def chance(self, test: Callable[[int], bool]) -> float:
        """Probability that ``test(outcome)`` holds."""
        total: int = self._die.denominator()
        hits: int = sum(q for o, q in self._die.items() if test(int(o)))
        return hits / total

    def at_least(self, value: int) -> float:
        """Probability of ``value`` or more."""
        return self.chance(lambda o: o >= value)

    def at_most(self, value: int) -> float:
        """Probability of ``value`` or less."""
        return self.chance(lambda o: o <= value)

    def mean(self) -> float:
        """Expected value."""
        return float(self._die.mean())

    def map(self, fn: Callable[[int], int | Distribution]) -> Distribution:
        """Replace each outcome by a number or a distribution (a mixture)."""

        def repl(o: int) -> int | icepool.Die[int]:
            out = fn(int(o))
            return out._die if isinstance(out, Distribution) else out

        return Distribution(self._die.map(repl, star=False))

    def __add__(self, other: int | Distribution) -> Distribution:
        if isinstance(other, Distribution):
            return Distribution(self._die + other._die)
        return Distribution(self._die + other)

    def __neg__(self) -> Distribution:
        return Distribution(-self._die)

    def __repr__(self) -> str:
        shown = ", ".join(f"{o}: {p:.4f}" for o, p in self.items()[:8])
        return f"Distribution({shown}{', …' if len(self.items()) > 8 else ''})"


@lru_cache(maxsize=64)
def _constant(value: int) -> Distribution:
    return Distribution(_icepool().Die([value]))


@lru_cache(maxsize=1024)
def dice(count: int, sides: int) -> Distribution:
    """Sum of ``count`` dice of ``sides`` faces (0 dice: always 0)."""
    if count <= 0:
        return _constant(0)
    return Distribution(count @ _icepool().d(sides))


@lru_cache(maxsize=1024)
def successes(count: int, sides: int, at_least: int) -> Distribution:
    """How many of ``count`` dice of ``sides`` faces show ``at_least`` or more."""
    if count <= 0:
        return _constant(0)
    hits = max(0, min(sides, sides - at_least + 1))
    one = _icepool().Die({0: sides - hits, 1: hits})
    return Distribution(count @ one)


@lru_cache(maxsize=256)
def die(sides: int) -> Distribution:
    """One die."""
    return Distribution(_icepool().d(sides))


@lru_cache(maxsize=256)
def kept(count: int, sides: int, keep: int, highest: bool = True) -> Distribution:
    """Sum of the ``keep`` highest (or lowest) of ``count`` dice of ``sides`` faces.

    >>> round(kept(4, 6, 3).mean(), 4)      # 4d6, drop the lowest
    12.2446
    >>> round(kept(2, 20, 1, highest=False).at_least(11), 4)   # a d20 at disadvantage
    0.25
    """
    if keep >= count:
        return dice(count, sides)
    if count <= 0 or keep <= 0:
        return _constant(0)
    one = _icepool().d(sides)
    return Distribution(one.highest(count, keep) if highest else one.lowest(count, keep))


def highest(count: int, sides: int) -> Distribution:
    """The highest of ``count`` dice of ``sides`` faces (a d20 with advantage: 2 dice).

    >>> round(highest(2, 20).at_least(11), 4)
    0.75
    >>> highest(1, 6).items() == die(6).items()
    True
    """
    return kept(max(count, 1), sides, 1, highest=True)


def lowest(count: int, sides: int) -> Distribution:
    """The lowest of ``count`` dice of ``sides`` faces (a d20 with disadvantage: 2 dice).

    >>> round(lowest(2, 20).at_least(11), 4)
    0.25
    >>> round(lowest(3, 6).mean(), 4)
    2.0417
    """
    return kept(max(count, 1), sides, 1, highest=False)


@lru_cache(maxsize=256)
def highest_of(*sides: int) -> Distribution:
    """The highest of dice of mixed sizes (a d8 and a d6: ``highest_of(8, 6)``).

    >>> highest_of(8, 6).exact(8)
    Fraction(1, 8)
    >>> highest_of(8, 6).exact(6)    # (6·6 − 5·5) / 48
    Fraction(11, 48)
    """
    if len(sides) < 2:  # icepool reads a lone die as a pool of its faces
        return die(sides[0]) if sides else _constant(0)
    ip = _icepool()
    return Distribution(ip.highest(*(ip.d(s) for s in sides)))


@lru_cache(maxsize=256)
def lowest_of(*sides: int) -> Distribution:
    """The lowest of dice of mixed sizes (a d8 and a d6: ``lowest_of(8, 6)``).

    >>> lowest_of(8, 6).exact(1) == 1 - Fraction(7, 8) * Fraction(5, 6)
    True
    """
    if len(sides) < 2:  # icepool reads a lone die as a pool of its faces
        return die(sides[0]) if sides else _constant(0)
    ip = _icepool()
    return Distribution(ip.lowest(*(ip.d(s) for s in sides)))


def save_chance(target: int, count: int = 1, sides: int = 20, under: bool = True) -> float:
    """The chance a save made at ``target`` or under (``under``) or at ``target`` or over
    holds, on ``count`` dice of ``sides`` faces: what ``Resolution.save`` rolls.

    >>> save_chance(12)                       # d20 roll-under Strength 12
    0.6
    >>> save_chance(15, under=False)          # d20, 15 or more
    0.3
    >>> round(save_chance(10, count=3, sides=6), 4)   # 3d6 at 10 or under
    0.5
    """
    roll = dice(count, sides)
    return roll.at_most(target) if under else roll.at_least(target)


def cache_clear() -> None:
    """Forget every cached distribution (``tacmap bench`` times odds from cold)."""
    for cached in (_constant, dice, successes, die, kept, highest_of, lowest_of):
        cached.cache_clear()


def reach(roll: Distribution, target: int, bonus: int = 0) -> float:
    """The chance that ``roll`` plus ``bonus`` reaches ``target`` (meets or beats it).

    >>> reach(die(20), 15, bonus=4)          # d20 + 4 against 15
    0.5
    >>> round(reach(highest(2, 20), 15, bonus=4), 4)   # the same with advantage
    0.75
    >>> round(reach(kept(4, 6, 3), 15), 4)  # 4d6, keep the highest 3, 15 or more
    0.2315
    >>> round(reach(successes(6, 6, 5), 2), 4)   # 6d6, two or more 5+ successes
    0.6488
    """
    return roll.at_least(target - bonus)
