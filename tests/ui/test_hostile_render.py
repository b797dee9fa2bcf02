"""Issue 17: every hostile file that ``check`` accepts also renders, on both views,
within 10 s and 1 GB, and a file ``check`` refuses is refused by ``render`` too.

The files come from the engine fuzz test's strategy (the demo with one or two
values replaced by something hostile), so both tests walk the same ground.
"""

from __future__ import annotations

import resource
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tacmap.cli import main
from tests.engine.test_hostile_fuzz import PATHS, hostile_file, hostile_values

GIB_KB = 1024 * 1024


@settings(max_examples=250, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(where=st.lists(st.sampled_from(PATHS), min_size=1, max_size=2),
       values=st.lists(hostile_values, min_size=1, max_size=2))
def test_a_hostile_file_check_accepts_renders_on_both_views_within_bounds(
        capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory,
        qapp: Any, where: list[tuple[Any, ...]], values: list[Any]) -> None:
    folder = tmp_path_factory.mktemp("render")
    file = hostile_file(folder, where, values)
    checked = main(["check", str(file)])
    capsys.readouterr()
    for player in (False, True):
        out = folder / f"out{int(player)}.png"
        base_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        code = main(["render", str(file), str(out), *(["--player"] if player else [])])
        took = time.perf_counter() - start
        _, err = capsys.readouterr()
        grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_kb
        assert code == (0 if checked == 0 else 2), err
        assert took < 10, f"render took {took:.1f} s"
        assert grown_kb < GIB_KB, f"render grew the process by {grown_kb // 1024} MB"
        if code == 0:
            assert out.stat().st_size > 0
        else:
            assert err.count("\n") == 1 and not out.exists()
    event("rendered (check 0)" if checked == 0 else "refused by both (check 2)")
