"""The unit a ruleset's distances are shown in (DESIGN §4): metres, or feet.

The grid is in cells; ``[grid] unit`` and ``cell_size`` in ruleset.toml say
what one cell is (1 m, or 5 ft on the usual 5-foot squares). The map, the CLI
and the log all print a distance through the ruleset's ``Units``::

    >>> Units("ft", 5).of(6)
    '30 ft'
    >>> METRES.of(1.5)
    '1.5 m'
"""

from __future__ import annotations

from dataclasses import dataclass

#: The units a grid may count in.
UNITS = ("m", "ft")


@dataclass(frozen=True)
class Units:
    """How one cell of the grid is shown."""

    unit: str = "m"
    """``"m"`` or ``"ft"``."""
    cell_size: float = 1.0
    """Distance of one cell in ``unit``."""

    def value(self, cells: float) -> float:
        """``cells`` in the unit."""
        return cells * self.cell_size

    def of(self, cells: float) -> str:
        """``cells`` as a distance with its unit: ``"30 ft"``."""
        return f"{self.value(cells):g} {self.unit}"

    def size(self, width: float, height: float) -> str:
        """A map size: ``"150×100 ft"``."""
        return f"{self.value(width):g}×{self.value(height):g} {self.unit}"


METRES = Units()

_BY_RULESET: dict[str, Units] = {}


def register(ruleset_id: str, units: Units) -> None:
    """Remember the units of a ruleset the registry found (the first of an id wins)."""
    _BY_RULESET.setdefault(ruleset_id, units)


def units_of(ruleset_id: str) -> Units:
    """The units of ``ruleset_id``'s grid (metres for a ruleset not loaded)."""
    return _BY_RULESET.get(ruleset_id, METRES)
