"""``tacmap bench`` figures reflex owns (DESIGN §7): one attack executed, one odds preview."""

from __future__ import annotations

import itertools

from tacmap.api import (
    Act,
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
    """One attack in the action phase executed; the exact odds of a declared attack."""
    hero = Token("ana", "Ana", "party", 2, 2, hp=30, max_hp=30,
                 stats={"rfx": 6, "melee": 5, "defence": 1, "weapons": ("sword",)})
    foe = Token("brak", "Brak", "foes", 3, 2, hp=30, max_hp=30,
                stats={"rfx": 2, "melee": 4, "defence": 1, "weapons": ("axe",)})
    referee = duel(rules, hero, foe)
    state = referee.state
    referee.execute(StartCombat())
    declare = Act("brak", "declare:attack", "ana", "axe")
    # The odds of Brak's declaration, before anyone has declared.
    planning = state.copy()
    referee.execute(declare)
    referee.execute(Act("ana", "declare:attack", "brak", "sword"))
    attack = Attack("ana", "brak")

    execute_attack = attack_runner(referee, attack)

    sizes = itertools.cycle(range(2, 14))
    hps = itertools.cycle((6, 11, 18, 25))
    target = planning.tokens["ana"]
    actor = planning.tokens["brak"]

    def attack_odds() -> object:
        # Uncached: clear the odds module's caches and vary the pool and the target's
        # HP each call, as a GM hovering over different targets would.
        odds.cache_clear()
        actor.stats["melee"] = next(sizes)
        target.hp = next(hps)
        return rules.preview(planning, declare)

    return attack_figures(execute_attack, attack_odds)
