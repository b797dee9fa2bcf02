"""Dice sources and roll records."""

from __future__ import annotations

import random

import pytest

from tacmap.engine.model.errors import RuleError
from tacmap.engine.rules.dice import FixedDice, ManualDice, Roll, SeededDice


def test_the_seeded_stream_is_a_pure_function_of_seed_and_position() -> None:
    a = SeededDice(42).roll(10, 6)
    b = SeededDice(42)
    first, rest = b.roll(4, 6), b.roll(6, 6)
    assert a.faces == first.faces + rest.faces
    assert SeededDice(42, drawn=4).roll(6, 6) == rest
    assert SeededDice(43).roll(10, 6) != a


def test_the_stream_is_fair_enough_and_never_touches_module_random() -> None:
    state = random.getstate()
    faces = SeededDice(1).roll(1000, 6).faces
    assert random.getstate() == state
    counts = [faces.count(f) for f in range(1, 7)]
    assert min(counts) > 120 and max(counts) < 215


def test_roll_keeps_faces_in_order_and_drops_from_the_left() -> None:
    roll = Roll(6, (1, 5, 3, 6))
    assert roll.drop_left(2).faces == (3, 6)
    assert roll.count(5) == 2
    assert roll.total == 15
    assert str(roll) == "4d6 [1 5 3 6]"


def test_fixed_dice_run_out_with_a_clear_reason() -> None:
    dice = FixedDice([4, 2])
    assert dice.roll(2, 6).faces == (4, 2)
    with pytest.raises(RuleError, match="need 1d6 for damage but 0 dice are left"):
        dice.roll(1, 6, "damage")


def test_fixed_and_manual_dice_refuse_impossible_faces() -> None:
    with pytest.raises(RuleError, match="a d6 cannot show 7"):
        FixedDice([7]).roll(1, 6)
    with pytest.raises(RuleError, match="needs 2 dice, 1 were entered"):
        ManualDice(lambda n, s, why: [3]).roll(2, 6)
    asked = []
    manual = ManualDice(lambda n, s, why: asked.append((n, s, why)) or [6] * n)
    assert manual.roll(3, 6, "attack").faces == (6, 6, 6)
    assert asked == [(3, 6, "attack")]


@pytest.mark.parametrize(("count", "sides"), [(-1, 6), (1001, 6), (1, 1), (1, 5000)])
def test_impossible_rolls_are_refused(count: int, sides: int) -> None:
    with pytest.raises(RuleError):
        SeededDice(0).roll(count, sides)
