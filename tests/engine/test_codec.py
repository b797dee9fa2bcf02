"""The typed JSON codec: round trips, and one clear sentence for every bad value."""

from __future__ import annotations

import pytest

from tacmap.engine import codec
from tacmap.engine.commands import Attack, Command, Move
from tacmap.engine.dice import Roll
from tacmap.engine.errors import InputError
from tacmap.engine.events import DiceRolled, Event, TokenMoved


def test_records_round_trip() -> None:
    for obj in [Move("ana", ((3, 4), (5, 5))), Attack("ana", "brak"),
                DiceRolled("ana", "attack", Roll(6, (1, 6)))]:
        data = codec.encode(obj)
        kind = Command if isinstance(obj, Command) else Event
        assert codec.decode(data, kind) == obj


@pytest.mark.parametrize(("data", "message"), [
    ({"type": "move", "actor": 3, "path": [[1, 1]]}, "actor: expected text, got a number"),
    ({"type": "move", "actor": "a", "path": [[1, "x"]]}, "path[0][1]: expected a whole number"),
    ({"type": "move", "actor": "a", "path": [[1]]}, "path[0]: expected 2 values, got 1"),
    ({"type": "move", "actor": "a"}, "missing field 'path' for move"),
    ({"type": "move", "actor": "a", "path": [], "speed": 3}, "speed: unknown field for move"),
    ({"type": "fly", "actor": "a"}, "unknown command type 'fly'"),
    ({"type": "move", "actor": "a", "path": [[1e12, 0]]}, "out of range"),
    ({"actor": "a"}, "missing \"type\""),
    ([], "expected an object, got a list"),
])
def test_bad_values_name_their_place(data: object, message: str) -> None:
    with pytest.raises(InputError) as err:
        codec.decode(data, Command)
    assert message in str(err.value)


def test_an_event_is_not_a_command() -> None:
    with pytest.raises(InputError, match="unknown command type 'token_moved'"):
        codec.decode(codec.encode(TokenMoved("a", ((0, 0), (1, 0)), 1.0)), Command)
