"""The attack roll the seed names but does not define, and its exact odds in the preview.

README "Attack": To-Hit is d20 + to_hit against the target's AC; reaching it by less than
the Glancing band (3) is a Glancing Hit for half damage, rounded down, at least 1.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from tacmap.engine.model.commands import Attack, StartCombat
from tacmap.engine.model.events import HpChanged
from tacmap.engine.model.state import Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import SeededDice
from tacmap.engine.rules.ruleset import Registry, Resolution
from tests.rulesets.speed_rank.helpers import referee, run

N = 20_000


def duel(registry: Registry, bo_hp: int = 9) -> Referee:
    """Ana (+3, longsword, +1 damage) against Bo (AC 14), Red first in phase 0."""
    ref = referee(registry, [
        Token("ana", "Ana", "Red", 5, 5, stats={"weapon": "longsword", "to_hit": 3,
                                               "damage": 1}),
        Token("bo", "Bo", "Blue", 6, 5, hp=bo_hp, max_hp=20, stats={"ac": 14}),
    ])
    run(ref, StartCombat(), [6, 3])
    return ref


def test_hit_glancing_hit_and_miss(registry: Registry) -> None:
    ref = duel(registry, bo_hp=20)
    out = run(ref, Attack("ana", "bo"), [14, 5])  # 17: reaches AC 14 by 3: a full hit
    assert "Ana scores a hit on Bo (17 against AC 14): 6 damage" in out
    ref = duel(registry, bo_hp=20)
    out = run(ref, Attack("ana", "bo"), [13, 5])  # 16: within 3 of AC 14: half of 6
    assert "Ana scores a Glancing Hit on Bo (16 against AC 14): 3 damage" in out
    ref = duel(registry, bo_hp=20)
    out = run(ref, Attack("ana", "bo"), [10])  # 13 < 14
    assert "Ana misses Bo (13 against AC 14)" in out
    ref = duel(registry, bo_hp=6)
    out = run(ref, Attack("ana", "bo"), [20, 5])
    assert "Bo is now dead" in out and ref.state.tokens["bo"].hp == 0


def test_preview_odds_are_exact(registry: Registry) -> None:
    ref = duel(registry)
    odds = ref.preview(Attack("ana", "bo")).odds
    assert odds is not None
    # d20 + 3 ≥ 14: faces 11-20 hit; 14-20 are full hits, 11-13 Glancing Hits.
    assert odds.success == pytest.approx(10 / 20)
    full, glance = Fraction(7, 10), Fraction(3, 10)
    want = {d: full / 8 for d in range(2, 10)}          # 1d8 + 1: 2 to 9
    for d in range(1, 5):                                 # halved: 1,1,2,2,3,3,4,4
        want[d] = want.get(d, Fraction(0)) + glance / 4
    assert dict(odds.damage) == pytest.approx({d: float(p) for d, p in want.items()})
    # Bo has 9 HP: only a full hit with the d8 on 8 drops him.
    assert odds.drop == pytest.approx(7 / 20 / 8)


def test_preview_refuses_with_the_reason_and_no_odds(registry: Registry) -> None:
    ref = duel(registry)
    preview = ref.preview(Attack("bo", "ana"))
    assert not preview.legal and preview.odds is None
    assert "it is Red's turn in phase 0 (Fast), not Blue's" in preview.reason


def test_odds_match_20000_seeded_attacks(registry: Registry) -> None:
    ref = duel(registry)
    rules = ref.ruleset
    odds = ref.preview(Attack("ana", "bo")).odds
    assert odds is not None
    dice = SeededDice(20240)
    hits = drops = 0
    seen: dict[int, int] = {}
    for _ in range(N):
        ctx = Resolution(ref.state, dice)
        rules.resolve(ctx, Attack("ana", "bo"))
        damage = [e.old - e.new for e in ctx.events if isinstance(e, HpChanged)]
        if damage:
            hits += 1
            seen[damage[0]] = seen.get(damage[0], 0) + 1
            drops += ref.state.tokens["bo"].hp <= 0
        ctx.rollback()
    assert ref.state.tokens["bo"].hp == 9  # every trial was rolled back

    def close(count: int, p: float, n: int = N) -> bool:
        return abs(count / n - p) <= 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9

    assert close(hits, odds.success)
    assert close(drops, odds.drop)
    for value, p in odds.damage:
        assert close(seen.get(value, 0), p, hits), (value, seen.get(value, 0) / hits, p)
    assert set(seen) == {d for d, _ in odds.damage}
