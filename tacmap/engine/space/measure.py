"""The ruler: a path through waypoints as the grid counts it, and how long it is.

The length follows the encounter's diagonal rule and is shown in the ruleset's
unit, with the straight-line distance from the first cell to the last beside it:

>>> from tacmap.engine.model.units import Units
>>> reading = measure("rectilinear", [(0, 0), (2, 2), (4, 2)])
>>> reading.text(METRES)
'6 m along · 4.5 m straight'
>>> measure("chebyshev", [(0, 0), (3, 4)]).text(Units("ft", 5))
'20 ft along · 25 ft straight'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tacmap.engine.model.state import Cell
from tacmap.engine.model.units import METRES, Units
from tacmap.engine.space import grid


def distance(units: Units, cells: float) -> str:
    """``cells`` in the unit, to a tenth at most: ``"5.4 m"``, ``"30 ft"``."""
    return f"{round(units.value(cells), 1):g} {units.unit}"


@dataclass(frozen=True)
class Reading:
    """What the ruler shows for one path."""

    points: tuple[Cell, ...]
    """The first cell, the waypoints, and the cell under the mouse."""
    cells: tuple[Cell, ...]
    """Every cell the path walks through, as the diagonal rule routes it."""
    along: float
    """Length of the path under the diagonal rule, in cells."""
    straight: float
    """Straight-line distance from the first cell's centre to the last's, in cells."""

    def text(self, units: Units = METRES) -> str:
        """``"7 m along · 5.4 m straight"`` in the ruleset's unit."""
        return f"{distance(units, self.along)} along · {distance(units, self.straight)} straight"


def measure(rule: str, points: Sequence[Cell]) -> Reading:
    """The ruler's reading through ``points`` (start first, at least one) under ``rule``."""
    grid.check_rule(rule)
    kept: list[Cell] = []
    for p in points:
        if not kept or kept[-1] != p:
            kept.append(p)  # a waypoint dropped twice on one cell counts once
    (x0, y0), (x1, y1) = kept[0], kept[-1]
    return Reading(tuple(kept), tuple(grid.route(rule, kept)), grid.path_length(rule, kept),
                   math.hypot(x1 - x0, y1 - y0))
