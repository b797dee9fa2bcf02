"""The tables of ruleset.toml as typed records: a value that does not fit is named as it loads."""

from __future__ import annotations

from typing import Annotated

import msgspec

from tacmap.api import Entry, Table, TurnData


class Save(Table):
    """[save]: the die every save rolls, made at the stat or under."""

    die: Annotated[int, msgspec.Meta(ge=2)] = 20


class Morale(Table):
    """[morale]: the share of a side out of the fight that makes the rest check."""

    share: Annotated[float, msgspec.Meta(gt=0, le=1)] = 0.5


class Weapon(Entry):
    """A row of [weapons.*]: its damage die and, for a bow, its range in metres."""

    name: str
    die: Annotated[int, msgspec.Meta(ge=1)]
    range: Annotated[int, msgspec.Meta(ge=0)] = 0


class Data(TurnData, kw_only=True):
    """ruleset.toml past the keys the engine reads itself ([turn] is the engine's)."""

    save: Save = msgspec.field(default_factory=Save)
    morale: Morale = msgspec.field(default_factory=Morale)
    weapons: dict[str, Weapon]
