"""Exact odds: checked against counting by hand and against the seeded stream."""

from __future__ import annotations

import doctest
from fractions import Fraction

import pytest

from tacmap.engine.rules import odds
from tacmap.engine.rules.dice import SeededDice


def test_successes_is_binomial() -> None:
    hits = odds.successes(3, 6, 5)  # each die succeeds on 5 or 6: p = 1/3
    assert hits.exact(0) == Fraction(8, 27)
    assert hits.exact(3) == Fraction(1, 27)
    assert abs(hits.mean() - 1.0) < 1e-12


def test_sum_of_dice_and_mixtures() -> None:
    assert odds.dice(2, 6).exact(7) == Fraction(6, 36)
    assert odds.dice(0, 6).items() == ((0, 1.0),)
    damage = odds.successes(1, 2, 2).map(lambda m: odds.dice(m, 6) + 1 if m else 0)
    assert damage.exact(0) == Fraction(1, 2)
    assert damage.exact(7) == Fraction(1, 12)


def test_exact_odds_agree_with_20000_seeded_rolls() -> None:
    dice = SeededDice(2024)
    n = 20_000
    hits = sum(1 for _ in range(n) if dice.roll(4, 6).count(5) >= 2)
    exact = odds.successes(4, 6, 5).at_least(2)
    assert abs(hits / n - exact) < 0.015


def test_higher_and_lower_of_n_dice_by_counting() -> None:
    # 2d6: the higher is 6 unless both miss it (25/36 miss); the lower is 1 unless both do.
    assert odds.highest(2, 6).exact(6) == Fraction(11, 36)
    assert odds.lowest(2, 6).exact(1) == Fraction(11, 36)
    assert odds.highest(3, 20).at_least(20) == pytest.approx(1 - (19 / 20) ** 3)
    assert odds.lowest(2, 20).at_most(10) == pytest.approx(0.75)


def test_a_chance_to_reach_a_target() -> None:
    assert odds.reach(odds.die(20), 21, bonus=0) == 0.0
    assert odds.reach(odds.die(20), 5, bonus=4) == 1.0
    assert odds.reach(odds.lowest(2, 20), 11) == pytest.approx(0.25)
    assert odds.reach(odds.successes(4, 6, 6), 1) == pytest.approx(1 - (5 / 6) ** 4)


def test_the_examples_in_the_docstrings_hold() -> None:
    result = doctest.testmod(odds)
    assert result.attempted >= 10 and result.failed == 0
