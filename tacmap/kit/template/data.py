"""The tables of ruleset.toml as typed records: a value that does not fit is named as it loads."""

from __future__ import annotations

from typing import Annotated

import msgspec

from tacmap.api import RulesetData, Table

Die = Annotated[int, msgspec.Meta(ge=2)]


class Turn(Table):
    """[turn]: actions a turn, and how far one move goes."""

    actions: Annotated[int, msgspec.Meta(ge=1)]
    move: Annotated[float, msgspec.Meta(ge=0)]


class Attack(Table):
    """[attack]: the die to hit and the damage die."""

    die: Die
    damage_die: Die


class Data(RulesetData, kw_only=True):
    """The whole of ruleset.toml past the keys the engine reads itself."""

    turn: Turn
    attack: Attack
