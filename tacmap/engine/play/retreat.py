"""A forecast option (issue 39): a side that flees, when half of it is down or after a
round, ends the fight as a retreat rather than a win. Apart from the forecast so that the
window's dock offers it without loading the forecast's workers and policy."""

from __future__ import annotations

from dataclasses import dataclass

from tacmap.engine.model.state import Encounter
from tacmap.engine.play.hints import Hints


@dataclass(frozen=True)
class Retreat:
    """A forecast option: ``side`` flees when half of it is down, or after ``after``
    rounds; the fight then ends as a retreat, not a win."""

    side: str
    """The side that flees."""
    after: int = 0
    """The last round it fights (0: it flees when half of it is out instead)."""

    def due(self, state: Encounter, hints: Hints, at_start: int, rounds: int) -> bool:
        """Whether the side flees now: ``at_start`` of it were in the fight when it began,
        ``rounds`` have begun since."""
        if self.after:
            return rounds > self.after
        out = sum(1 for t in state.tokens.values() if t.side == self.side and hints.out(t))
        return at_start > 0 and 2 * out >= at_start

    def describe(self) -> str:
        """``goblins flee when half are down`` or ``goblins flee after round 3``."""
        return f"{self.side} flee after round {self.after}" if self.after \
            else f"{self.side} flee when half are down"
