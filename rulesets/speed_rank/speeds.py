"""Speed ranks as the rules work them out, remembered by the stats they depend on.

Passing the turn and offering the actions ask every combatant's first phase and
its weapon's first strike at every step (a forecast plays hundreds of steps a
fight), and a handful of (race, Dexterity, weapon, side shift) combinations answer
them all: each answer is worked out once and kept (``remember``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tacmap.api import Token, earliest, phase_index, speed_rank

from . import facts
from .data import Weapon
from .round import Round

#: Answers a table keeps before it starts afresh (side names, the GM's words, are in keys).
LIMIT = 4096

K = TypeVar("K")
V = TypeVar("V")


def remember(table: dict[K, V], key: K, make: Callable[[], V]) -> V:
    """``table[key]``, made by ``make()`` the first time it is asked for."""
    known = table.get(key)
    if known is None:
        if len(table) >= LIMIT:
            table.clear()
        known = table[key] = make()
    return known


class Speeds:
    """Base speed, weapon speed and earliest phases of Speed Rank, with their answers kept."""

    def __init__(self, races: dict[str, int], dex_table: Sequence[tuple[int, int]],
                 default: Callable[[str], Any]) -> None:
        self.races = races
        self.dex_table = dex_table
        self.default = default
        self._mods: dict[int, int] = {}
        self._base: dict[tuple[Any, Any], int] = {}
        self._earliest: dict[tuple[Any, Any, int | None, int], tuple[str, int]] = {}
        self._phases: dict[tuple[Any, Any, int, int], tuple[int, int]] = {}
        self._reasons: dict[tuple[Any, ...], str] = {}

    def stat(self, token: Token, key: str) -> Any:
        """A stat from the token's block, or its default from [stat_block]."""
        stats = token.stats
        return stats[key] if key in stats else self.default(key)

    def modifier(self, dex: int) -> int:
        """The Dexterity speed modifier (18 → +1, 5 → −1 in the text)."""
        return remember(self._mods, dex, lambda: self._modifier(dex))

    def _modifier(self, dex: int) -> int:
        mod = self.dex_table[0][1]
        for low, m in self.dex_table:
            if dex >= low:
                mod = m
        return mod

    def base(self, token: Token) -> int:
        """Speed rank from race, with the Dexterity modifier taken away."""
        race, dex = self.stat(token, "race"), self.stat(token, "dex")
        return remember(self._base, (race, dex),
                        lambda: speed_rank(self.races[race], self.modifier(int(dex))))

    def weapon(self, token: Token, weapon: Weapon) -> int:
        """The weapon's speed with the wielder's Dexterity modifier taken away."""
        return speed_rank(weapon.speed, self.modifier(int(self.stat(token, "dex"))))

    def earliest(self, rnd: Round, token: Token, weapon: Weapon | None) -> tuple[str, int]:
        """First phase ``token`` may act in (attack with ``weapon``) this round: label, index."""
        dex = self.stat(token, "dex")
        key = (self.stat(token, "race"), dex, None if weapon is None else weapon.speed,
               facts.of(rnd).shift.get(token.side, 0))

        def work_out() -> tuple[str, int]:
            speed = None if weapon is None else self.weapon(token, weapon)
            label = earliest(self.base(token), speed, key[3])
            return label, phase_index(label)

        return remember(self._earliest, key, work_out)

    def phases(self, known: facts.RoundFacts, token: Token, weapon: Weapon) -> tuple[int, int]:
        """Indices of the token's first phase and of its first strike with ``weapon``."""
        dex = self.stat(token, "dex")
        key = (self.stat(token, "race"), dex, weapon.speed, known.shift.get(token.side, 0))

        def work_out() -> tuple[int, int]:
            base = self.base(token)
            strike = earliest(base, speed_rank(weapon.speed, self.modifier(int(dex))), key[3])
            return phase_index(earliest(base, None, key[3])), phase_index(strike)

        return remember(self._phases, key, work_out)

    def reason(self, rnd: Round, token: Token, weapon: Weapon | None) -> str:
        """Why ``token`` is not ready yet: its speeds and its side's shift, in words."""
        shift = facts.of(rnd).shift.get(token.side, 0)
        key = (self.stat(token, "race"), self.stat(token, "dex"), weapon and weapon.key,
               token.side, shift, rnd.initiative.of(token.side).roll if shift else 0)
        return remember(self._reasons, key, lambda: self._reason(rnd, token, weapon, shift))

    def _reason(self, rnd: Round, token: Token, weapon: Weapon | None, shift: int) -> str:
        race, dex = self.stat(token, "race"), int(self.stat(token, "dex"))
        base = self.base(token)
        parts = [f"base speed {base} ({race} {self.races[race]}, Dexterity {dex} "
                 f"{self.modifier(dex):+d})"]
        speed = self.weapon(token, weapon) if weapon is not None else base
        if weapon is not None and speed > base:
            parts.append(f"{weapon.name} speed {speed} ({weapon.speed}, Dexterity "
                         f"{self.modifier(dex):+d})")
        elif weapon is not None and speed < base:
            parts.append(f"the {weapon.name} (speed {weapon.speed}, {speed} with Dexterity "
                         f"{self.modifier(dex):+d}) is faster than its wielder, "
                         "so base speed counts")
        if shift:
            roll = rnd.initiative.of(token.side).roll
            parts.append(f"{token.side} rolled a {roll}: "
                         + ("delayed one phase" if shift > 0 else "moved up one phase"))
        return "; ".join(parts)
