"""Issue 36 item 2: the map holds still, scale and position, whatever a dock does; the
Forecast dock opening on the map's left is the dock a GM opens most."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.rules.ruleset import Registry
from tests.ui.test_view_holds_still import DEMOS, open_demo, settle


def near(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Within a pixel: a scroll bar moves in whole pixels, the map by fractions."""
    return abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def on_screen(win: object) -> tuple[int, int]:
    """Where the map's top-left corner is on the screen, in pixels."""
    view = win.view  # type: ignore[attr-defined]
    at = view.viewport().mapToGlobal(view.mapFromScene(view.map_rect().topLeft()))
    return at.x(), at.y()


@pytest.mark.parametrize("name", DEMOS)
def test_opening_and_closing_the_forecast_dock_leaves_the_map_where_it_was(
        qtbot: object, registry: Registry, tmp_path: Path, name: str) -> None:
    win = open_demo(qtbot, registry, tmp_path, name)
    view = win.view
    zoom, where = view.zoom, on_screen(win)
    win.forecast.open()
    settle()
    assert win.forecast.dock.isVisible()
    assert view.viewport().mapTo(win, view.viewport().rect().topLeft()).x() > 100, \
        "the dock took room on the map's left"
    assert (view.zoom, on_screen(win)) == (pytest.approx(zoom), where)
    win.forecast.dock.close()
    settle()
    assert (view.zoom, on_screen(win)) == (pytest.approx(zoom), where)
    for _ in range(6):  # a GM opens and closes it all evening: no drift adds up
        win.forecast.open()
        settle()
        assert near(on_screen(win), where)
        win.forecast.dock.close()
        settle()
        assert view.zoom == pytest.approx(zoom) and near(on_screen(win), where)
    # The whole map in view again: no scroll bar for nothing.
    assert not view.horizontalScrollBar().isVisible()
    assert not view.verticalScrollBar().isVisible()


def test_a_map_zoomed_and_panned_by_hand_holds_still_too(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    win = open_demo(qtbot, registry, tmp_path, "speed_rank_demo")
    view = win.view
    view.zoom_by(1.6)
    view.horizontalScrollBar().setValue(view.horizontalScrollBar().value() + 40)
    settle()
    zoom, where = view.zoom, on_screen(win)
    win.forecast.open()
    settle()
    assert (view.zoom, on_screen(win)) == (pytest.approx(zoom), where)
    # What the dock covers is still in reach: the view scrolls back over the map's left.
    assert view.horizontalScrollBar().value() > view.horizontalScrollBar().minimum()
    win.forecast.dock.close()
    settle()
    assert (view.zoom, on_screen(win)) == (pytest.approx(zoom), where)
