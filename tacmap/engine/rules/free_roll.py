"""A free roll told in words: the result, its average and range, the chance of a target.

``tacmap roll`` prints it; the window's Dice dock shows the same numbers.
"""

from __future__ import annotations

from tacmap.engine.rules.dice import DiceSource
from tacmap.engine.rules.notation import Chances, Notation, Rolled

#: Bars of the text chart at their longest.
BAR = 40
#: A chart of more totals than this is summed up instead of drawn line by line.
MAX_LINES = 40


def odds_lines(notation: Notation, chances: Chances | None, target: int | None) -> list[str]:
    """The roll's odds before it is rolled: average, range, the chance of ``target``."""
    if chances is None:
        return [f"{notation}: too many ways to keep dice to count them exactly; "
                "it is rolled all the same"]
    totals = chances.items()
    lines = [f"{notation}: average {chances.mean():.2f}, from {totals[0][0]} to {totals[-1][0]}"]
    if target is not None:
        lines.append(f"chance to reach {target}: {100 * chances.at_least(target):.2f}%")
    return lines


def chart_lines(chances: Chances) -> list[str]:
    """A text bar chart of the totals (for a handful of totals; else nothing)."""
    totals = chances.items()
    if len(totals) > MAX_LINES:
        return []
    top = max(p for _, p in totals)
    width = max(len(str(t)) for t, _ in totals)
    return [f"{t:>{width}} {'#' * max(1 if p > 0 else 0, round(BAR * p / top))} "
            f"{100 * p:.2f}%" for t, p in totals]


def roll_text(notation: Notation, source: DiceSource, target: int | None) -> tuple[Rolled, str]:
    """Roll ``notation`` and say how it went (and whether it reached ``target``)."""
    rolled = notation.roll(source)
    verdict = "" if target is None else (
        f" — reaches {target}" if rolled.total >= target else f" — short of {target}")
    return rolled, f"{rolled}{verdict}"
