"""The exact odds an attack preview shows agree with the real roller, and react to the rules."""

from __future__ import annotations

from collections import Counter

import pytest

from tacmap.engine.model.commands import Act, Attack, EndTurn
from tacmap.engine.model.events import ConditionChanged, DiceRolled, HpChanged, Said
from tacmap.engine.rules.dice import SeededDice
from tacmap.engine.rules.ruleset import Ruleset
from tacmap.engine.rules.views import Odds

from .conftest import BRAK, Build, token

ROLLS = 20_000


def simulate(fight: Build, cmd: Attack | Act, target_hp: int, flat: int,
             prepare_dodge: bool = False) -> tuple[Odds, float, Counter[int], float]:
    """The preview's odds, then the hit rate, damage counts and drop rate of real attacks."""
    ana = token("ana", "party", 2, 2, str=4, con=2, weapon="longsword",
                proficiency={"longsword": 2}, abilities=("mighty_blow",))
    brak = token("brak", "foes", 3, 2, hp=target_hp, ac=4, dex=5, con=2)
    referee = fight(brak, ana)
    if prepare_dodge:
        referee.execute(Act("brak", "prepare:dodge", "ana"))
    referee.execute(EndTurn())
    preview = referee.preview(cmd)
    assert preview.legal and preview.odds is not None
    # One seeded stream through the real resolve; undo puts the state (and the
    # prepared dodge) back, so every attack starts from the same position.
    dice = SeededDice(20_240_601)
    hits, drops = 0, 0
    damage: Counter[int] = Counter()
    for _ in range(ROLLS):
        events = referee.execute(cmd, dice)
        referee.undo()
        rolls = [e for e in events if isinstance(e, DiceRolled)]
        if any(isinstance(e, Said) and " hits:" in e.message for e in events):
            hits += 1
            dealt = rolls[1].roll.total if len(rolls) > 1 else 0
            damage[dealt + flat] += 1
        drops += any(isinstance(e, ConditionChanged) and e.condition == "dead" for e in events)
    return preview.odds, hits / ROLLS, damage, drops / ROLLS


def ks_distance(exact: tuple[tuple[int, float], ...], seen: Counter[int]) -> float:
    """Largest gap between the exact and the observed cumulative damage distributions."""
    n = sum(seen.values())
    gap, f_exact, f_seen = 0.0, 0.0, 0.0
    for value in sorted({d for d, _ in exact} | set(seen)):
        f_exact += dict(exact).get(value, 0.0)
        f_seen += seen[value] / n
        gap = max(gap, abs(f_exact - f_seen))
    return gap


@pytest.mark.parametrize(("case", "prepare_dodge"), [("basic", False), ("dodged", True),
                                                     ("mighty_blow", False)])
def test_exact_odds_match_twenty_thousand_seeded_attacks(fight: Build, case: str,
                                                          prepare_dodge: bool) -> None:
    cmd: Attack | Act = Act("ana", "mighty_blow", "brak") if case == "mighty_blow" \
        else Attack("ana", "brak")
    odds, hit_rate, damage, drop_rate = simulate(fight, cmd, target_hp=18, flat=4,
                                                 prepare_dodge=prepare_dodge)
    # Four standard errors of a rate over 20,000 rolls is at most 0.014.
    assert hit_rate == pytest.approx(odds.success, abs=0.014)
    assert drop_rate == pytest.approx(odds.drop, abs=0.014)
    assert sum(p for _, p in odds.damage) == pytest.approx(1.0)
    hits = sum(damage.values())
    mean = sum(d * n for d, n in damage.items()) / hits
    assert mean == pytest.approx(odds.mean_damage, rel=0.02)
    # Kolmogorov–Smirnov: ~1.63/sqrt(n) is the 1% critical value.
    assert ks_distance(odds.damage, damage) < 1.63 / hits ** 0.5


def braced_odds(fight: Build, dodge: bool) -> Odds:
    """Ana's odds against Brak (AC 4, DEX 5), with or without his prepared dodge."""
    ana = token("ana", "party", 2, 2, str=4, con=2, weapon="longsword",
                proficiency={"longsword": 2})
    brak = token("brak", "foes", 3, 2, ac=4, dex=5)
    referee = fight(brak, ana)
    if dodge:
        referee.execute(Act("brak", "prepare:dodge", "ana"))
    referee.execute(EndTurn())
    preview = referee.preview(Attack("ana", "brak"))
    assert preview.odds is not None
    return preview.odds


def test_a_prepared_dodge_lowers_the_odds(fight: Build) -> None:
    # DT 2 without the dodge, 2 + DEX 5 ÷ 2 = 4 with it, on a pool of 6d6.
    plain, braced = braced_odds(fight, dodge=False), braced_odds(fight, dodge=True)
    assert plain.success == pytest.approx(1 - (1 + 6) / 64)
    assert braced.success == pytest.approx((15 + 6 + 1) / 64)


def test_known_odds_for_a_small_pool(fight: Build) -> None:
    """Pool 5d6 at 4+ against DT 1: a miss needs five failures, (1/2)^5."""
    referee = fight(token("ana", "party", 2, 2, str=3, con=2, weapon="longsword",
                          proficiency={"longsword": 2}),
                    token("brak", "foes", 3, 2, hp=30, **BRAK))
    preview = referee.preview(Attack("ana", "brak"))
    assert preview.odds is not None
    assert preview.odds.success == pytest.approx(1 - 0.5 ** 5)
    # One success (margin 0) already rolls 2d8 + STR 3, so the least damage is 5; five
    # successes (margin 4) roll 6d8 + 3, so the most is 51.
    assert preview.odds.damage[0][0] == 5
    assert preview.odds.damage[-1][0] == 51


def test_drop_chance_counts_damage_reaching_the_targets_hp(fight: Build, rules: Ruleset) -> None:
    referee = fight(token("ana", "party", 2, 2, str=3, con=2, weapon="longsword",
                          proficiency={"longsword": 2}),
                    token("brak", "foes", 3, 2, hp=12, **BRAK))
    odds = referee.preview(Attack("ana", "brak")).odds
    assert odds is not None
    expected = odds.success * sum(p for d, p in odds.damage if d >= 12)
    assert odds.drop == pytest.approx(expected)
    assert 0 < odds.drop < odds.success


def test_illegal_attack_previews_its_reason_and_no_odds(fight: Build) -> None:
    referee = fight(token("ana", "party", 2, 2, weapon="longsword"),
                    token("brak", "foes", 6, 2))
    preview = referee.preview(Attack("ana", "brak"))
    assert not preview.legal
    assert preview.reason == "Brak is 4 m away; Ana's longsword reaches 1 m"
    assert preview.odds is None


def test_preview_changes_nothing(fight: Build) -> None:
    referee = fight(token("ana", "party", 2, 2, weapon="longsword"),
                    token("brak", "foes", 3, 2, dex=4))
    referee.execute(Act("ana", "prepare:dodge", "brak"))
    referee.execute(EndTurn())
    before = referee.state.copy()
    preview = referee.preview(Attack("brak", "ana"))
    assert preview.legal
    assert any("DT" in n for n in preview.notes)
    assert referee.state == before
    assert not any(isinstance(e, HpChanged) for entry in referee.log for e in entry.events)


def test_a_negative_dt_is_certain_and_adds_margin(fight: Build) -> None:
    """Proficiency 4 against AC 2: DT −2. Every roll succeeds, and even 0 successes
    give margin 2: at least (2 + 4) = 6 damage dice, at most (pool + 2 + 4)."""
    ana = token("ana", "party", 2, 2, str=1, con=2, weapon="longsword",
                proficiency={"longsword": 4})  # pool 1 + 4 = 5
    brak = token("brak", "foes", 3, 2, hp=200, ac=2)
    referee = fight(ana, brak)
    preview = referee.preview(Attack("ana", "brak"))
    assert preview.odds is not None and "DT -2 = AC 2 − proficiency 4" in preview.notes[0]
    assert preview.odds.success == pytest.approx(1.0)
    damage = [d for d, _ in preview.odds.damage]
    # (0 + 2 + 4)d8 + STR 1 at least 6 + 1; (5 + 2 + 4)d8 + 1 at most 88 + 1.
    assert (min(damage), max(damage)) == (7, 89)
