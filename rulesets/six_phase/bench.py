"""``tacmap bench`` figures six_phase owns (DESIGN §7): one attack executed, one odds preview."""

from __future__ import annotations

import itertools

from tacmap.api import (
    Act,
    BenchFigure,
    EndTurn,
    Ruleset,
    StartCombat,
    Token,
    attack_figures,
    attack_runner,
    duel,
    odds,
)


def figures(rules: Ruleset) -> list[BenchFigure]:
    """One melee attack declared and resolved (the phase's last declaration), one odds preview."""
    hero = Token("regdar", "Regdar", "party", 2, 2, hp=30, max_hp=30,
                 stats={"dex": 9, "str_bonus": 2, "weapon": "longsword", "armour": "chain"})
    foe = Token("orc", "Orc", "orcs", 3, 2, hp=20, max_hp=20,
                stats={"kind": "monster", "hd": 4, "weapon": "claws", "dex_mod": 1})
    referee = duel(rules, hero, foe)
    state = referee.state
    referee.execute(StartCombat())
    while state.schedule is not None and getattr(state.schedule, "index", 5) != 5:
        referee.execute(EndTurn())
    referee.execute(EndTurn("orc"))  # the orc passes, so Regdar's declaration resolves the phase
    attack = Act("regdar", "melee", "orc", "swing/head")

    execute_attack = attack_runner(referee, attack)

    details = itertools.cycle(("swing/head", "thrust/torso", "bash/left leg"))
    hps = itertools.cycle((6, 11, 18, 25))

    def attack_odds() -> object:
        odds.cache_clear()
        foe.hp = next(hps)
        return rules.preview(state, Act("regdar", "melee", "orc", next(details)))

    return attack_figures(execute_attack, attack_odds)
