"""Exact odds: checked against counting by hand and against the seeded stream."""

from __future__ import annotations

from fractions import Fraction

from tacmap.engine import odds
from tacmap.engine.dice import SeededDice


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
