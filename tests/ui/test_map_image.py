"""File ▸ Load Map Image (issue 22, item 2): the image shows at once, under the grid, in the
GM's map and the player view, also before the encounter is first saved."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.map.scene import GRID, GRID_MAJOR
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.view import MapView
from tacmap.ui.qt import QAction, QApplication, QColor, QImage, QPointF
from tacmap.ui.session import Session, home
from tacmap.ui.window import MainWindow
from tests.ui.conftest import shown

PAINT = QColor("#336699")


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    """A 300×200 pixel picture in one colour, somewhere outside any encounter's folder."""
    folder = tmp_path / "downloads"
    folder.mkdir()
    image = QImage(300, 200, QImage.Format.Format_RGB32)
    image.fill(PAINT)
    path = folder / "cave.png"
    assert image.save(str(path))
    return path


@pytest.fixture
def untitled(qtbot: object, registry: Registry) -> MainWindow:
    """File ▸ New: an empty 12×8 skirmish map, never saved (fog off: the table sees it all)."""
    start = Session(registry, registry.get("skirmish").new_map("Start", 1, 4, 4))
    win = MainWindow(registry, start, ask=lambda q: False, tell=lambda text: None)
    win.start_new("skirmish", 12, 8, "Cave")
    win.fog_action.trigger()
    assert not win.session.referee.state.fog.enabled
    return shown(qtbot, win, (1100, 750), (6, 4))


def seen(view: MapView) -> QImage:
    """What the view shows now, as the GM sees it."""
    QApplication.processEvents()
    return view.grab().toImage()


def colour_at(view: MapView, image: QImage, x: float, y: float) -> QColor:
    """The colour the view shows at the scene point (x, y) in metres."""
    p = view.mapFromScene(QPointF(x * CELL, y * CELL))
    return image.pixelColor(p.x(), p.y())


def grid_drawn_over_image(view: MapView) -> bool:
    """A row of pixels across one metre shows the picture and, on the cell's edge, the grid."""
    image = seen(view)
    left = view.mapFromScene(QPointF(3 * CELL, 2.5 * CELL))
    right = view.mapFromScene(QPointF(4 * CELL, 2.5 * CELL))
    colours = {image.pixelColor(x, left.y()).name() for x in range(left.x() - 2, right.x() + 3)}
    return PAINT.name() in colours and bool(colours & {GRID.name(), GRID_MAJOR.name()})


def test_an_untitled_encounter_takes_a_map_image_and_shows_it_at_once(
        untitled: MainWindow, picture: Path) -> None:
    window = untitled
    window.use_image(picture)
    assert window.session.referee.state.map.image == "cave.png"
    kept = window.session.image_folder / "cave.png"
    assert kept.is_file() and home() in kept.parents  # kept with the autosave
    assert colour_at(window.view, seen(window.view), 3.5, 2.5) == PAINT
    assert grid_drawn_over_image(window.view)
    window.show_player_view()
    player = window.player
    assert player is not None
    player.view.set_zoom(1.0)
    player.view.centerOn(QPointF(6 * CELL, 4 * CELL))
    assert colour_at(player.view, seen(player.view), 3.5, 2.5) == PAINT
    assert grid_drawn_over_image(player.view)


def test_the_first_save_copies_the_image_beside_the_file_and_reopening_keeps_the_grid_on_top(
        untitled: MainWindow, picture: Path, tmp_path: Path, registry: Registry) -> None:
    window = untitled
    window.use_image(picture)
    before = window.session.image_folder
    path = tmp_path / "saved" / "cave.tacmap"
    path.parent.mkdir()
    assert window.files.save_to(path)
    assert (path.parent / "images" / "cave.png").is_file()
    assert not before.exists()  # nothing left behind with the autosave
    assert colour_at(window.view, seen(window.view), 3.5, 2.5) == PAINT
    assert window.open_path(path)
    window.view.set_zoom(1.0)
    window.view.centerOn(QPointF(6 * CELL, 4 * CELL))
    assert colour_at(window.view, seen(window.view), 3.5, 2.5) == PAINT
    assert grid_drawn_over_image(window.view)


def test_an_image_loaded_after_the_first_save_shows_at_once(
        untitled: MainWindow, picture: Path, tmp_path: Path) -> None:
    window = untitled  # File ▸ New, then File ▸ Save, then File ▸ Load Map Image
    assert window.files.save_to(tmp_path / "cave.tacmap")
    window.use_image(picture)
    assert (tmp_path / "images" / "cave.png").is_file()
    assert colour_at(window.view, seen(window.view), 3.5, 2.5) == PAINT
    assert grid_drawn_over_image(window.view)


def test_hiding_the_grid_leaves_the_image(untitled: MainWindow, picture: Path) -> None:
    window = untitled
    window.use_image(picture)
    grid = next(a for a in window.findChildren(QAction) if a.text() == "Show &Grid")
    grid.trigger()
    assert not grid_drawn_over_image(window.view)
    assert colour_at(window.view, seen(window.view), 3.0, 2.5) == PAINT


def test_a_crash_keeps_an_untitled_encounters_image(untitled: MainWindow, picture: Path,
                                                    registry: Registry) -> None:
    from tacmap.ui.session import restore_untitled, untitled_autosaves

    window = untitled
    window.use_image(picture)
    window.session.autosave_now()  # what the timer writes a moment after the command
    window.session.release()  # the process dies: its claim on the autosave goes with it
    [auto] = untitled_autosaves()
    restored = restore_untitled(registry, auto)
    assert restored.referee.state.map.image == "cave.png"
    assert (restored.image_folder / "cave.png").is_file()
    window.bind(restored)
    window.view.set_zoom(1.0)
    window.view.centerOn(QPointF(6 * CELL, 4 * CELL))
    assert colour_at(window.view, seen(window.view), 3.5, 2.5) == PAINT
