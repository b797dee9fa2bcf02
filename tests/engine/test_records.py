"""Records and their JSON: round trips, and one clear sentence for every bad value."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Generic, TypeVar

import msgspec
import pytest

from tacmap.engine.model import records
from tacmap.engine.model.commands import Attack, Command, Move, SetValue
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.events import DiceRolled, Event, ScheduleChanged, TokenMoved, ValueChanged
from tacmap.engine.model.state import Token
from tacmap.engine.rules.dice import Roll
from tacmap.engine.rules.schedule import OrderedTurns, Schedule


def test_records_round_trip() -> None:
    for obj in [Move("ana", ((3, 4), (5, 5))), Attack("ana", "brak"),
                DiceRolled("ana", "attack", Roll(6, (1, 6))),
                ScheduleChanged(None, OrderedTurns.start(("ana", "brak")), "go")]:
        kind = Command if isinstance(obj, Command) else Event
        assert records.decode(records.encode(obj), kind) == obj
        assert records.convert(records.plain(obj), kind) == obj


def test_records_are_written_tagged_with_every_field() -> None:
    assert records.encode(Attack("ana", "brak")) == \
        b'{"type":"attack","actor":"ana","target":"brak","weapon":""}'
    assert records.plain(Roll(6, (1, 6))) == {"type": "roll", "sides": 6, "faces": [1, 6]}


@pytest.mark.parametrize(("data", "message"), [
    ({"type": "move", "actor": 3, "path": [[1, 1]]}, "actor: expected text, got 3"),
    ({"type": "move", "actor": "a", "path": [[1, "x"]]},
     "path[0][1]: expected a whole number, got 'x'"),
    ({"type": "move", "actor": "a", "path": [[1.5, 0]]},
     "path[0][0]: expected a whole number, got 1.5"),
    ({"type": "move", "actor": "a", "path": [[1]]}, "path[0]: expected 2 values, got 1"),
    ({"type": "move", "actor": "a"}, "missing field 'path' for move"),
    ({"type": "move", "actor": "a", "path": [], "speed": 3}, "speed: unknown field for move"),
    ({"type": "fly", "actor": "a"}, "unknown command type 'fly'"),
    ({"type": 5, "actor": "a"}, "unknown command type 5"),
    ({"type": "move", "actor": "a", "path": [[10**12, 0]]},
     "path[0][0]: number 1e+12 is out of range (limit ±1,000,000,000)"),
    ({"type": "move", "actor": "x" * 100_001, "path": []},
     "actor: text is too long (100,001 characters; at most 100,000)"),
    ({"type": "set_value", "token": "a", "key": "k", "value": [1, [2, -3e9]]},
     "value[1][1]: number -3e+09 is out of range (limit ±1,000,000,000)"),
    ({"actor": "a"}, "missing \"type\""),
    ([], "expected an object, got a list"),
])
def test_bad_values_name_their_place(data: object, message: str) -> None:
    for read in (lambda: records.convert(data, Command),
                 lambda: records.decode(json.dumps(data), Command)):
        with pytest.raises(InputError) as err:
            read()
        assert str(err.value) == message


def test_the_place_of_the_whole_value_comes_first() -> None:
    with pytest.raises(InputError) as err:
        records.decode(b'{"id": "orc", "name": "Orc", "side": "foes", "x": 1, "y": "x"}', Token,
                       "encounter.tokens[3]")
    assert str(err.value) == "encounter.tokens[3].y: expected a whole number, got 'x'"


def test_an_event_is_not_a_command() -> None:
    with pytest.raises(InputError, match="unknown command type 'token_moved'"):
        records.decode(records.encode(TokenMoved("a", ((0, 0), (1, 0)), 1.0)), Command)


def test_a_literal_and_a_check_in_post_init_are_named() -> None:
    with pytest.raises(InputError) as err:
        records.convert({"keys": [["a", 1]], "phase": "dance"},
                        records.resolve(Schedule) | None)
    assert "missing \"type\"" in str(err.value)
    bad = {"type": "ordered_turns", "order": ["a", "a"]}
    with pytest.raises(InputError, match="names a twice"):
        records.convert(bad, Schedule)


def test_json_values_are_checked_and_frozen() -> None:
    token = records.decode(b'{"id": "a", "name": "A", "side": "s", "x": 0, "y": 0, '
                           b'"stats": {"abilities": ["x", ["y"]], "pool": {"d6": 3}}}', Token)
    assert token.stats == {"abilities": ("x", ("y",)), "pool": {"d6": 3}}
    event = records.convert({"type": "value_changed", "token": "a", "key": "faces",
                             "old": None, "new": [3, 1]}, Event)
    assert isinstance(event, ValueChanged) and event.new == (3, 1)
    hash(event)  # a frozen event holds only tuples, so it hashes
    deep: object = 1
    for _ in range(records.MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(InputError) as err:
        records.convert({"type": "set_value", "token": "a", "key": "k", "value": deep}, Command)
    assert str(err.value) == "value: the value is nested too deeply (more than 100 levels)"


def test_freeze_checks_plain_python_values() -> None:
    assert records.freeze({"a": [1, (2, [3])]}) == {"a": (1, (2, (3,)))}
    with pytest.raises(InputError, match=r"^stats\.dex: number nan is out of range"):
        records.freeze({"dex": float("nan")}, "stats")
    with pytest.raises(InputError, match="unsupported value set"):
        records.freeze({"x": {1}})


def test_bad_json_text_is_one_sentence_with_line_and_column() -> None:
    cases = [(b"", "the file is empty"),
             (b'{"type": "move",\n "actor": }', "not valid JSON at line 2, column 11"),
             (b'{"type": "move", "path": [[NaN, 1]]}', "NaN is not a number"),
             (b'{"x": -Infinity}', "-Infinity is not a number"),
             (b'{"type": "move", "actor": "a', "ends too early"),
             (b'\xff{}', "not UTF-8 text (byte 0)")]
    for raw, words in cases:
        with pytest.raises(InputError) as err:
            records.decode(raw, Command)
        assert words in str(err.value)
    with pytest.raises(InputError, match="nested too deeply"):
        records.parse(b"[" * 100_000 + b"]" * 100_000)


def test_a_record_class_defined_later_is_read_by_its_base() -> None:
    records.decode(records.encode(Attack("a", "b")), Command)  # decoders built before it exists

    class Shout(Command, frozen=True, tag="test_records_shout"):
        actor: records.Text
        words: records.Text = ""

    assert records.decode(b'{"type": "test_records_shout", "actor": "a"}', Command) == \
        Shout("a")


C = TypeVar("C", bound=Command)


class Wrapped(Event, Generic[C], frozen=True, tag="test_records_wrapped"):
    """An event holding any command, as a ruleset may define one."""

    command: C
    """The command."""


def test_a_field_holding_any_command_needs_a_type_variable() -> None:
    event = records.decode(b'{"type": "test_records_wrapped", "command": {"type": "set_value", '
                           b'"token": "a", "key": "k", "value": [1]}}', Event)
    assert event == Wrapped(SetValue("a", "k", (1,)))


# A record class cannot be taken back once defined: these mistakes run in a process of their own.
MISTAKES = """
import sys
from tacmap.engine.model import records
from tacmap.engine.model.commands import Command
from tacmap.engine.model.events import Event

class Wrong(Event, frozen=True, tag="wrong"):
    command: Command

class Once(Command, frozen=True, tag="twice"):
    pass

class Again(Command, frozen=True, tag="twice"):
    pass

for kind in (Event, Command):
    try:
        records.decode(b"{}", kind)
    except TypeError as err:
        print(err)
"""


def test_mistakes_in_record_classes_are_bugs_named_in_one_line() -> None:
    done = subprocess.run([sys.executable, "-c", MISTAKES], capture_output=True, text=True,
                          check=True)
    assert done.stdout.splitlines() == [
        "Wrong.command holds any Command: declare it with a TypeVar bound to Command, "
        "as ScheduleChanged does",
        "record name 'twice' is taken by Once and Again",
    ]


def test_the_json_shape_of_a_record_is_its_msgspec_shape() -> None:
    turns = OrderedTurns.start(("ana", "brak"))
    assert records.encode(turns) == msgspec.json.encode(turns)
    assert records.name_of(turns) == "ordered_turns" == records.tag_of(OrderedTurns)
    assert records.tag_of(Schedule) is None


@pytest.mark.parametrize(("data", "message"), [
    ({"type": {"a": 1}}, 'unknown command type {"a":1}'),
    ({"type": True}, "unknown command type true"),
    ({"type": "move", "actor": "a", "path": [[1, True]]},
     "path[0][1]: expected a whole number, got true"),
    ({"type": "set_value", "token": "a", "key": "k", "value": 1, "x": None},
     "x: unknown field for set_value"),
])
def test_a_refusal_shows_the_value_as_json(data: dict[str, object], message: str) -> None:
    """Issue 23: the value as the file holds it, never Python's True or {'a': 1}."""
    with pytest.raises(InputError) as err:
        records.decode(json.dumps(data), Command)
    assert str(err.value) == message


def test_a_key_too_long_is_named_by_its_start_not_by_dots() -> None:
    """Issue 23: a bad key of a table is the key, not ``values....``, in plain words."""
    key = "k" * (records.MAX_TEXT + 1)
    raw = json.dumps({"id": "orc", "name": "Orc", "side": "foes", "x": 1, "y": 1,
                      "values": {"ok": 1, key: 1}})
    with pytest.raises(InputError) as err:
        records.decode(raw, Token, "token")
    assert str(err.value) == (f"token.values.{'k' * 40}…: text is too long (100,001 "
                              "characters; at most 100,000)")
