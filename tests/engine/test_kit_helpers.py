"""Issue 38 item 4: what a ruleset author no longer writes by hand (``tacmap.api``): sides,
range and sight with the greyed reason, roll-under and roll-over saves with their odds,
the highest and lowest of mixed dice."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from tacmap.api import DiceRolled, FixedDice, Resolution, RuleError, odds
from tacmap.engine.model.state import Wall
from tacmap.engine.rules.ruleset import Registry
from tests.engine.helpers import skirmish_state


def test_allies_enemies_and_a_sides_fallen(registry: Registry) -> None:
    rules, state = registry.get("skirmish"), skirmish_state()
    ana, grul = state.tokens["ana"], state.tokens["grul"]
    assert [t.name for t in rules.allies(state, ana)] == ["Bo"]
    assert [t.name for t in rules.enemies(state, ana)] == ["Grul", "Zog"]
    assert rules.fallen(state, "orcs") == []
    grul.conditions = ("dead",)
    assert [t.name for t in rules.enemies(state, ana)] == ["Zog"]
    assert [t.name for t in rules.fallen(state, "orcs")] == ["Grul"]
    assert [t.name for t in rules.allies(state, state.tokens["zog"])] == []


def test_aim_says_why_a_target_is_out_of_range_or_out_of_sight(registry: Registry) -> None:
    rules, state = registry.get("skirmish"), skirmish_state()
    ana, grul, zog = (state.tokens[k] for k in ("ana", "grul", "zog"))
    assert rules.aim_problem(state, ana, grul, 1, "the spear", ranged=False) == ""
    assert rules.aim_problem(state, ana, zog, 3, "the bow") == \
        "Zog is 9 m away; the bow shoots 3 m"  # 7 across, 2 down
    assert rules.aim_problem(state, ana, zog, 1, "the spear", ranged=False) == \
        "Zog is 9 m away; the spear reaches 1 m"
    state.map.walls = (Wall(((5, 0), (5, 10))),)  # a wall across the map between them
    assert rules.aim_problem(state, ana, zog, 20, "the bow") == "Ana cannot see Zog"
    assert rules.aim_problem(state, ana, grul, 20, "the bow") == ""


def test_a_save_rolls_under_or_over_and_its_odds_match() -> None:
    state = skirmish_state()
    ctx = Resolution(state, FixedDice([12, 13, 12, 11, 3, 4, 2]))
    made = [ctx.save("ana", 12, "Strength save"), ctx.save("ana", 12, "Strength save"),
            ctx.save("ana", 12, "Dodge", under=False), ctx.save("ana", 12, "Dodge", under=False),
            ctx.save("ana", 10, "Luck", count=3, sides=6)]
    assert made == [True, False, True, False, True]  # 12 under 12 holds, 11 over 12 fails
    rolls = [e for e in ctx.events if isinstance(e, DiceRolled)]
    assert [r.why for r in rolls[:3]] == ["Strength save (12 or under)",
                                          "Strength save (12 or under)", "Dodge (12 or over)"]
    assert rolls[-1].roll.total == 9 and rolls[-1].who == "ana"  # logged as the GM sees it
    with pytest.raises(RuleError, match="at least one die"):
        ctx.save("ana", 10, "Luck", count=0)
    assert odds.save_chance(12) == pytest.approx(0.6)
    assert odds.save_chance(12, under=False) == pytest.approx(0.45)
    three = sum(1 for f in product(range(1, 7), repeat=3) if sum(f) <= 10) / 216
    assert odds.save_chance(10, count=3, sides=6) == pytest.approx(three)


@pytest.mark.parametrize("sides", [(8, 6), (20, 12, 4), (6, 6), (10,)])
def test_the_highest_and_lowest_of_mixed_dice_are_exact(sides: tuple[int, ...]) -> None:
    throws = list(product(*(range(1, s + 1) for s in sides)))
    for pick, dist in ((max, odds.highest_of(*sides)), (min, odds.lowest_of(*sides))):
        for value in range(1, max(sides) + 1):
            want = Fraction(sum(1 for t in throws if pick(t) == value), len(throws))
            assert dist.exact(value) == want, (pick.__name__, sides, value)
