"""Issue 23: hypothesis puts lists and walls at and just past their limits anywhere in the demo.

Values are the sizes README "Limits" names (items of one free-form value, keys of a
table, items of a list field, walls, copies of one wall): ``check`` answers 0 or 2 in
one line, and a file it accepts takes a move with fog on, a save and a load.
Run with ``--hypothesis-show-statistics`` for the count of each kind of example.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.commands import Move
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import MAX_WALLS
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tests.engine.helpers import examples
from tests.engine.test_hostile_fuzz import PATHS, hostile_file

WALL = {"type": "wall", "points": [[10.0, 3.0], [10.0, 12.0]]}

VALUE = ("encounter", "tokens", 0, "values", "v")
WALLS = ("encounter", "map", "walls")

#: (name, value, the place it belongs): each limit, at it and one past it.
SIZED: list[tuple[str, Any, tuple[Any, ...]]] = []
for n in (records.MAX_ITEMS, records.MAX_ITEMS + 1):
    SIZED.append((f"a value of {n:,} numbers", [0] * n, VALUE))
    SIZED.append((f"a value of {n:,} items in lists of one", [[0]] * (n // 2) + [0] * (n % 2),
                  VALUE))
for n in (records.MAX_KEYS, records.MAX_KEYS + 1):
    SIZED.append((f"{n:,} values", {f"k{i}": 0 for i in range(n)},
                  ("encounter", "tokens", 0, "values")))
    SIZED.append((f"{n:,} conditions", [f"c{i}" for i in range(n)],
                  ("encounter", "tokens", 0, "conditions")))
for n in (MAX_WALLS, MAX_WALLS + 1):
    SIZED.append((f"{n:,} copies of one wall", [WALL] * n, WALLS))
SIZED.append(("10,000 overlapping walls",
              [{"type": "wall", "points": [[10.0, 3 + i * 1e-4], [10.0, 12 + i * 1e-4]]}
               for i in range(MAX_WALLS)], WALLS))
for n in (records.MAX_TEXT, records.MAX_TEXT + 1):
    SIZED.append((f"text of {n:,} characters", "x" * n, VALUE))


@settings(max_examples=examples(60), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sized=st.sampled_from(SIZED), home=st.booleans(), elsewhere=st.sampled_from(PATHS))
def test_a_list_at_or_past_its_limit_is_refused_in_a_line_or_plays(
        capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory,
        sized: tuple[str, Any, tuple[Any, ...]], home: bool,
        elsewhere: tuple[Any, ...]) -> None:
    name, value, place = sized
    where = place if home else elsewhere
    file = hostile_file(tmp_path_factory.mktemp("limits"), [where], [value])
    code = main(["check", str(file)])
    _, err = capsys.readouterr()
    assert code in (0, 2), err
    event(f"{name}{'' if home else ' elsewhere'}: {'refused' if code == 2 else 'accepted'}")
    if code == 2:
        assert err.count("\n") == 1
        return
    loaded = storage.load(file, Registry())
    referee = Referee(loaded.state, Registry().get(loaded.state.ruleset), loaded.log)
    token = next(iter(referee.state.tokens.values()))
    with contextlib.suppress(RuleError):  # fog is on in the demo: sight meets every wall
        referee.execute(Move(token.id, ((token.x + 1, token.y),)))
    storage.save(file, referee.state, referee.log, loaded.images)
    assert storage.load(file, Registry()).state == referee.state
