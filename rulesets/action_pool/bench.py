"""``tacmap bench`` figures action_pool owns (DESIGN §7): one attack executed, one odds preview."""

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
    """The DESIGN §7 figures this ruleset owns: one attack executed, one odds preview."""
    hero = Token("ana", "Ana", "party", 2, 2, hp=30, max_hp=30,
                 stats={"str": 3, "dex": 2, "con": 2, "ac": 3, "weapon": "longsword",
                        "proficiency": {"longsword": 2}})
    foe = Token("brak", "Brak", "foes", 3, 2, hp=18, max_hp=18,
                stats={"str": 3, "con": 2, "ac": 4, "weapon": "axe",
                       "proficiency": {"axe": 1}, "abilities": ("riposte",)})
    referee = duel(rules, hero, foe)
    state = referee.state
    referee.execute(StartCombat(("ana", "brak")))
    attack = Attack("ana", "brak")

    execute_attack = attack_runner(referee, attack)

    sizes = itertools.cycle(range(3, 13))
    hps = itertools.cycle((6, 11, 18, 25))

    def attack_odds() -> object:
        # Uncached: clear the odds module's caches and vary the pool and the
        # target's HP each call, as a GM hovering over different targets would.
        odds.cache_clear()
        hero.values["pool"] = next(sizes)
        foe.hp = next(hps)
        return rules.preview(state, attack)

    return attack_figures(execute_attack, attack_odds)

