"""``tacmap bench`` figures opposed owns (DESIGN §7): one attack executed, one odds preview."""

from __future__ import annotations

import itertools

from tacmap.api import (
    Attack,
    BenchFigure,
    Ruleset,
    StartCombat,
    Token,
    attack_figures,
    attack_runner,
    duel,
    odds,
)


def figures(rules: Ruleset) -> list[BenchFigure]:
    """One attack executed (hit, miss, critical, armour), one exact odds preview."""
    hero = Token("ana", "Ana", "party", 2, 2, hp=30, max_hp=30,
                 stats={"weapon": "sword", "weapon_sl": 2, "form_sl": 2, "defense_sl": 2,
                        "shield": "light", "armour": "light"})
    foe = Token("brak", "Brak", "foes", 3, 2, hp=30, max_hp=30,
                stats={"weapon": "keen_axe", "defense_sl": 1, "shield": "medium",
                       "shield_sl": 2, "armour": "medium", "armour_sl": 5, "vigor": 14})
    referee = duel(rules, hero, foe)
    state = referee.state
    referee.execute(StartCombat(("ana", "brak")))
    attack = Attack("ana", "brak")

    execute_attack = attack_runner(referee, attack)

    levels = itertools.cycle(range(0, 13))
    hps = itertools.cycle((4, 11, 18, 25))

    def attack_odds() -> object:
        # Uncached, and a different attacker and target each call, as a GM hovering would.
        odds.cache_clear()
        sl = next(levels)
        hero.stats = {**hero.stats, "weapon_sl": sl, "form_sl": 12 - sl}
        foe.hp = next(hps)
        return rules.preview(state, attack)

    return attack_figures(execute_attack, attack_odds)
