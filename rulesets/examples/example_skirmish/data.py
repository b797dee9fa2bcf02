"""The tables of ruleset.toml as typed records ([turn] is the engine's ``Turn``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from tacmap.api import Entry, Table, TurnData

Face = Annotated[int, msgspec.Meta(ge=1)]


class Attack(Table):
    """[attack]: the die to hit, and the faces that always hit (critical) or miss."""

    die: Annotated[int, msgspec.Meta(ge=2)] = 20
    critical: Face = 20
    fumble: Face = 1


class Weapon(Entry):
    """A row of [weapons.*]: its damage dice."""

    dice: Annotated[int, msgspec.Meta(ge=1, le=10)]
    die: Annotated[int, msgspec.Meta(ge=2)]


class Data(TurnData, kw_only=True):
    """ruleset.toml past the keys the engine reads itself."""

    attack: Attack = msgspec.field(default_factory=Attack)
    weapons: dict[str, Weapon]
