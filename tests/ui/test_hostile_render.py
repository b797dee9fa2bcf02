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


def _portrait(kind: str, w: int, h: int, tag: int) -> bytes:
    """A portrait of ``kind``: a PNG of w×h pixels, a small JPEG, WebP or BMP, or worse."""
    from tests.ui.test_hostile_images import GIF, huge_png, qt_encoded, svg_bomb, tagged

    if kind == "png":
        return tagged(huge_png(w, h), tag)
    if kind == "png, truncated":
        return tagged(huge_png(w, h), tag)[:60]
    if kind in ("JPEG", "WEBP", "BMP"):
        return qt_encoded(kind, 120, 90)  # (a BMP much larger passes no text limit)
    if kind == "svg":
        return svg_bomb(6, 6)
    return GIF


#: Sides at and just past the 1-megapixel portrait limit, and far past it.
SIDES = st.sampled_from([(1, 1), (128, 128), (129, 127), (1000, 1000), (1000, 1001),
                         (1, 1_000_000), (1, 1_000_001), (8000, 8000)])


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(portraits=st.lists(st.tuples(
    st.sampled_from(["png", "png, truncated", "JPEG", "WEBP", "BMP", "svg", "gif"]), SIDES),
    min_size=1, max_size=4))
def test_portraits_at_and_past_their_limits_render_within_bounds(
        capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory,
        qapp: Any, portraits: list[tuple[str, tuple[int, int]]]) -> None:
    """Issue 23: whatever a portrait is, ``render`` draws the map, names each one it
    leaves out in one line, and stays within 10 s and 1 GB."""
    from tests.ui.test_hostile_images import _encounter, uri

    folder = tmp_path_factory.mktemp("portraits")
    path = _encounter(folder, [uri(_portrait(kind, w, h, i))
                               for i, (kind, (w, h)) in enumerate(portraits)])
    base_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    code = main(["render", str(path), str(folder / "out.png")])
    took = time.perf_counter() - start
    _, err = capsys.readouterr()
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_kb
    assert code == 0, err
    assert took < 10, f"render took {took:.1f} s"
    assert grown_kb < GIB_KB, f"render grew the process by {grown_kb // 1024} MB"
    told = err.splitlines()
    assert all(line.startswith("tacmap: ") and "the portrait of P" in line
               and line.endswith("drawn without it") for line in told), err
    refused = {kind for kind, (w, h) in portraits
               if kind in ("BMP", "svg", "gif", "png, truncated")
               or (kind == "png" and w * h > 1_000_000)}
    assert len(told) <= len(portraits) and bool(told) == bool(refused)
    event(f"{len(told)} of {len(portraits)} portraits left out")


def test_walls_through_one_point_are_each_drawn_whole(
        tmp_path: Any, capsys: pytest.CaptureFixture[str], qapp: Any) -> None:
    """Issue 33 item 11: the walls layer strokes wall by wall (one path of a thousand
    walls through a point took Qt 11 s); every wall still shows out to its end."""
    from tacmap.ui.qt import QColor, QImage
    from tests.engine.test_vision import star

    walls = star(120)
    doc = [{"type": "wall", "points": list(map(list, w.points))} for w in walls]
    file = hostile_file(tmp_path, [("encounter", "map", "walls")], [doc])
    out = tmp_path / "star.png"
    assert main(["render", str(file), str(out), "--scale", "20"]) == 0
    capsys.readouterr()
    image = QImage(str(out))
    for wall in walls:
        (ax, ay), (bx, by) = wall.points
        for k in (0.02, 0.98):  # a hair inside each end
            x, y = ax + (bx - ax) * k, ay + (by - ay) * k
            near = [QColor(image.pixel(round(x * 20) + i, round(y * 20) + j))
                    for i in (-1, 0, 1) for j in (-1, 0, 1)]
            assert min(max(c.red(), c.green(), c.blue()) for c in near) < 80, (wall, k)
