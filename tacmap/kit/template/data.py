"""The tables of ruleset.toml as typed records: a value that does not fit is named as it loads."""

from __future__ import annotations

from typing import Annotated

import msgspec

from tacmap.api import Table, TurnData

Die = Annotated[int, msgspec.Meta(ge=2)]


class Attack(Table):
    """[attack]: the die to hit and the damage die."""

    die: Die
    damage_die: Die


class Data(TurnData, kw_only=True):
    """The whole of ruleset.toml past the keys the engine reads itself ([turn] is the
    engine's ``Turn``, inherited from ``TurnData``)."""

    attack: Attack
