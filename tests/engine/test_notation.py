"""Dice notation: what GMs type, its exact odds, and the roll itself."""

from __future__ import annotations

import pytest

from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.notation import parse


@pytest.mark.parametrize(("text", "read", "mean", "low", "high"), [
    ("2d6+3", "2d6+3", 10.0, 5, 15),
    ("4d6kh3", "4d6kh3", 12.2446, 3, 18),
    ("4d6dl1", "4d6kh3", 12.2446, 3, 18),
    ("d20 adv", "2d20kh1", 13.825, 1, 20),
    ("D20 Dis", "2d20kl1", 7.175, 1, 20),
    ("d20 + 5 adv", "2d20kh1+5", 18.825, 6, 25),
    ("3d8-1", "3d8-1", 12.5, 2, 23),
    ("d%", "d100", 50.5, 1, 100),
    ("2d6 - 1d4", "2d6-d4", 4.5, -2, 11),
    ("  1d6  ", "d6", 3.5, 1, 6),
])
def test_common_notation_is_read_with_its_exact_odds(text: str, read: str, mean: float,
                                                     low: int, high: int) -> None:
    notation = parse(text)
    chances = notation.distribution()
    assert str(notation) == read
    assert chances is not None
    assert chances.mean() == pytest.approx(mean, abs=1e-4)
    assert (chances.items()[0][0], chances.items()[-1][0]) == (low, high)
    assert sum(p for _, p in chances.items()) == pytest.approx(1.0)


def test_the_chance_to_reach_a_target() -> None:
    chances = parse("2d6+3").distribution()
    assert chances is not None
    assert chances.at_least(10) == pytest.approx(21 / 36)  # 7 or more on 2d6
    assert chances.at_least(5) == pytest.approx(1.0)
    assert chances.at_least(16) == 0.0


def test_a_roll_keeps_the_dice_it_says_and_shows_the_dropped_ones() -> None:
    rolled = parse("4d6kh3+1").roll(FixedDice([2, 6, 1, 5]))
    assert rolled.total == 2 + 6 + 5 + 1
    assert str(rolled) == "4d6kh3 [2 6 (1) 5] + 1 = 14"
    worse = parse("d20 dis").roll(FixedDice([17, 4]))
    assert (worse.total, str(worse)) == (4, "2d20kl1 [(17) 4] = 4")
    assert parse("2d6-d4").roll(FixedDice([3, 4, 2])).total == 5


def test_the_largest_roll_allowed_has_a_chart_at_once() -> None:
    chances = parse("100d1000").distribution()
    assert chances is not None
    assert chances.mean() == pytest.approx(50050.0)
    assert chances.at_least(50050) == pytest.approx(0.5, abs=0.01)


def test_keeping_a_few_of_a_big_pool_is_rolled_without_a_chart() -> None:
    notation = parse("10d100kh5")
    assert notation.distribution() is None
    assert notation.roll(FixedDice(range(1, 11))).total == 6 + 7 + 8 + 9 + 10


@pytest.mark.parametrize(("text", "sentence"), [
    ("2d6+x", "'x' is not dice (like 2d6 or 4d6kh3) or a number"),
    ("", "an empty roll"),
    ("2d6+", "a sign with nothing after it"),
    ("101d6", "'101d6' throws 101 dice; a roll has at most 100"),
    ("60d6+60d6", "60d6+60d6 throws 120 dice; a roll has at most 100"),
    ("d1001", "'d1001': a die has 2 to 1,000 sides"),
    ("3d1", "'3d1': a die has 2 to 1,000 sides"),
    ("0d6", "'0d6' throws no dice"),
    ("4d6kh5", "'4d6kh5' keeps 5 of 4 dice; keep 1 to 4"),
    ("2d6 adv", "advantage is for a roll of one die"),
    ("d20 adv dis", "say advantage or disadvantage once"),
    ("d20+100000", "the modifier 100000 is more than 10,000"),
    ("d6" * 150, "a roll is at most 200 characters"),
])
def test_a_malformed_roll_is_one_sentence_naming_the_wrong_part(text: str,
                                                                sentence: str) -> None:
    with pytest.raises(InputError, match="^" + sentence.replace("(", r"\(").replace(")", r"\)")
                       .replace("+", r"\+")) as err:
        parse(text)
    assert "\n" not in str(err.value)
