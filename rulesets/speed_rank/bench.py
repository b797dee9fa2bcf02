"""``tacmap bench`` figures Speed Rank owns (DESIGN §7): one attack executed, one previewed."""

from __future__ import annotations

from tacmap.api import (
    Attack,
    BenchFigure,
    EndTurn,
    FixedDice,
    Referee,
    Ruleset,
    StartCombat,
    Token,
    attack_figures,
    attack_runner,
    duel,
)

from .round import Round


def figures(rules: Ruleset) -> list[BenchFigure]:
    """Figures for ``tacmap bench``: one attack executed, one attack's odds."""
    referee = duel(rules, Token("ana", "Ana", "Adventurers", 5, 5, hp=40, max_hp=40,
                                stats={"weapon": "longsword", "to_hit": 3, "ac": 14}),
                   Token("brak", "Brak", "Red Company", 6, 5, hp=40, max_hp=40,
                         stats={"weapon": "mace", "ac": 13}), seed=7, size=(30, 20))
    # Fixed initiative with no tie, so the set-up never meets a Combat Event.
    referee.execute(StartCombat(), FixedDice([9, 4]))
    while _turn(referee) != ("0", "Adventurers"):
        referee.execute(EndTurn())
    attack = Attack("ana", "brak")

    def preview() -> None:
        found = referee.preview(attack)
        assert found.odds is not None

    return attack_figures(attack_runner(referee, attack), preview)


def _turn(referee: Referee) -> tuple[str, str]:
    rnd = referee.state.schedule
    assert isinstance(rnd, Round)
    return rnd.phase, rnd.current_side
