"""Issue 17: structurally valid but hostile encounter files, made by hypothesis.

Each example is the shipped demo with one value replaced by something hostile
(extreme numbers, deep nesting, odd text, long lists). ``check`` must answer 0
or 2 quickly; a file it accepts must then take a move, a save and a load
without an internal error.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.model.commands import FreeMove, Move
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tests.engine.helpers import examples

DEMO = Path(__file__).parents[2] / "resources" / "demo.tacmap"
BASE = json.loads(DEMO.read_text(encoding="utf-8"))


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            out += _paths(v, (*here, i))
    return out


PATHS = [p for p in _paths(BASE) if p]


def _deep(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


hostile_values = st.one_of(
    st.integers(-2, 40),
    st.integers(-(10**12), 10**12),
    st.sampled_from([10**9, -(10**9), 10**9 + 1, 10**18, 10**400, -(10**400), 2**63, 0, -1]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e9, -1e9, 1e308, 5e-324, -0.0]),
    st.text(max_size=20),
    st.sampled_from(["\ud800", "\udc80Barry", "a\x00b", "<img src=/etc/passwd>", "../..",
                     "data:/../x", "x" * 200_000, "", " ", "\u202e", "\U0001f600"]),
    st.integers(0, 500).map(_deep),
    st.integers(0, 5000).map(lambda n: [0] * n),
    st.none(), st.booleans(),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for part in path[:-1]:
        doc = doc[part]
    doc[path[-1]] = value


def hostile_file(folder: Path, where: list[tuple[Any, ...]], values: list[Any]) -> Path:
    """The demo with each of ``values`` put at the place ``where`` names, as ``folder/f.tacmap``."""
    doc = json.loads(json.dumps(BASE))
    for path, value in zip(where, values, strict=False):
        with contextlib.suppress(KeyError, IndexError, TypeError):  # gone under an earlier change
            _set(doc, path, value)
    file = folder / "f.tacmap"
    file.write_text(_dumps(doc), encoding="utf-8")
    return file


def _dumps(doc: Any) -> str:
    """JSON as a hostile editor might write it: lone surrogates and all."""
    return json.dumps(doc)


@settings(max_examples=examples(300), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(where=st.lists(st.sampled_from(PATHS), min_size=1, max_size=2),
       values=st.lists(hostile_values, min_size=1, max_size=2))
def test_a_hostile_file_is_checked_fast_and_a_file_check_accepts_plays(
        capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory,
        registry: Registry, where: list[tuple[Any, ...]], values: list[Any]) -> None:
    file = hostile_file(tmp_path_factory.mktemp("fuzz"), where, values)
    start = time.perf_counter()
    code = main(["check", str(file)])
    _, err = capsys.readouterr()
    assert time.perf_counter() - start < 5
    assert code in (0, 2), err
    event("refused (exit 2)" if code == 2 else "accepted (exit 0)")
    if code == 2:
        assert err.count("\n") == 1
        return
    loaded = storage.load(file, Registry())
    referee = Referee(loaded.state, Registry().get(loaded.state.ruleset), loaded.log)
    start = time.perf_counter()
    for token in list(referee.state.tokens.values())[:2]:
        for cmd in (Move(token.id, ((token.x + 1, token.y),)),
                    FreeMove(token.id, (max(0, token.x - 1), token.y))):
            try:
                referee.preview(cmd)
                referee.execute(cmd)
            except RuleError:
                pass
    assert time.perf_counter() - start < 10
    storage.save(file, referee.state, referee.log, loaded.images)
    again = storage.load(file, Registry())
    storage.verify(again)
    assert again.state == referee.state


def test_the_strategy_reaches_the_places_that_matter() -> None:
    joined = {".".join(map(str, p)) for p in PATHS}
    for place in ("images", "encounter.data", "encounter.tokens.0.x", "encounter.seed",
                  "encounter.map.walls.0.points", "encounter.tokens.0.name"):
        assert place in joined
    with pytest.raises(InputError):
        storage.loads(_dumps({**BASE, "images": "data:/../../x"}), Registry())
