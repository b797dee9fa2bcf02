"""The ruler, pings and dropped files (issue 24, items 1, 5 and 6), by real gestures."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from PySide6.QtCore import QUrl

from tacmap.engine.files import storage
from tacmap.engine.model.state import Token
from tacmap.ui.map.pings import PingRing
from tacmap.ui.map.ruler import centre
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.view import MapView
from tacmap.ui.qt import (
    QApplication,
    QDragEnterEvent,
    QDropEvent,
    QEvent,
    QImage,
    QKeyEvent,
    QMimeData,
    QPointF,
    Qt,
    QWidget,
)
from tacmap.ui.window import MainWindow
from tests.engine.helpers import skirmish_state
from tests.ui.conftest import NO_KEYS, _send, drag, point

LEFT = Qt.MouseButton.LeftButton


def key(view: MapView, which: Qt.Key, release: bool = False) -> None:
    """Press (or release) a key on the map."""
    kind = QEvent.Type.KeyRelease if release else QEvent.Type.KeyPress
    QApplication.sendEvent(view, QKeyEvent(kind, which, NO_KEYS))


def measure_with_waypoint(win: MainWindow, by_key: bool = False) -> str:
    """Take the Measure tool (M's action), drag (1, 5) → (3, 7) waypoint → (6, 7); the label."""
    win.tool_actions["measure"].trigger()
    assert win.view.tool is not None and win.view.tool.name == "measure"
    if by_key:
        drag(win.view, [(1, 5), (3, 7)], release=False)
        key(win.view, Qt.Key.Key_W)
        drag_on(win.view, (6, 7))
    else:
        drag(win.view, [(1, 5), (2, 6), (3, 7), (5, 7), (6, 7)], waypoints=(2,))
    mark = win.pointing.mark
    assert mark is not None and mark.edge.isVisible()
    return mark.label.text


def drag_on(view: MapView, cell: tuple[int, int]) -> None:
    """Move the held left button to ``cell`` and let go."""
    _send(view, QEvent.Type.MouseMove, point(view, cell), Qt.MouseButton.NoButton, LEFT, NO_KEYS)
    _send(view, QEvent.Type.MouseButtonRelease, point(view, cell), LEFT,
          Qt.MouseButton.NoButton, NO_KEYS)


@pytest.mark.parametrize("by_key", [False, True])
def test_the_ruler_reads_a_diagonal_path_with_a_waypoint_under_rectilinear(
        window: MainWindow, by_key: bool) -> None:
    log = list(window.session.referee.log)
    state = msgspec.json.encode(window.session.referee.state)
    text = measure_with_waypoint(window, by_key)
    assert text == "7 m along · 5.4 m straight"  # a diagonal step is 2 m
    assert window.statusBar().currentMessage() == text
    # A measurement, not a move: nothing logged, nothing changed, the tool still in hand.
    assert window.session.referee.log == log and not window.session.referee.redo_stack
    assert msgspec.json.encode(window.session.referee.state) == state
    assert window.view.tool is not None and window.tool_actions["measure"].isChecked()


def test_the_ruler_counts_feet_in_speed_rank(window: MainWindow) -> None:
    window.start_new("speed_rank", 12, 10)
    window.view.set_zoom(1.0)
    window.view.centerOn(QPointF(5 * CELL, 5 * CELL))
    # Diagonals count 5, 10 ft there; the straight line is in feet as well.
    assert measure_with_waypoint(window) == "30 ft along · 26.9 ft straight"


def test_the_ruler_stays_after_the_release_until_the_next_press(window: MainWindow) -> None:
    measure_with_waypoint(window)
    mark = window.pointing.mark
    assert mark is not None
    drag(window.view, [(4, 8), (4, 9)])
    assert mark.edge.isVisible() and mark.label.text == "1 m along · 1 m straight"


def test_esc_takes_the_ruler_away_and_puts_the_tool_down(window: MainWindow) -> None:
    measure_with_waypoint(window)
    key(window.view, Qt.Key.Key_Escape)
    mark = window.pointing.mark
    assert mark is not None and not mark.edge.isVisible()
    assert window.view.tool is None and not window.tool_actions["measure"].isChecked()
    # The reading goes with the ruler (issue 36 item 20): the status bar no longer says it.
    assert "straight" not in window.statusBar().currentMessage()


def test_a_right_click_without_a_drag_puts_the_ruler_down(window: MainWindow) -> None:
    measure_with_waypoint(window)
    right = Qt.MouseButton.RightButton
    _send(window.view, QEvent.Type.MouseButtonPress, point(window.view, (5, 5)), right, right,
          NO_KEYS)
    mark = window.pointing.mark
    assert mark is not None and not mark.edge.isVisible() and window.view.tool is None


def test_the_players_see_the_ruler_only_when_the_gm_says_so(window: MainWindow) -> None:
    window.show_player_view()
    measure_with_waypoint(window)
    assert window.pointing.player_mark is None or not window.pointing.player_mark.edge.isVisible()
    show = next(a for a in window.findChildren(type(window.tool_actions["measure"]))
                if a.text() == "Show Ruler to P&layers")
    show.trigger()
    player = window.pointing.player_mark
    assert player is not None and player.edge.isVisible()
    assert player.scene is window.players.window.scene  # type: ignore[union-attr]
    assert player.label.text == "7 m along · 5.4 m straight"


# --- pings -----------------------------------------------------------------------------------

def rings(win: MainWindow) -> list[int]:
    """How many ping rings the GM's map and the player view show."""
    player = win.players.window
    assert player is not None
    return [sum(isinstance(i, PingRing) for i in scene.items())
            for scene in (win.scene, player.scene)]


def test_alt_click_pings_both_views_for_two_seconds(window: MainWindow, qtbot: object) -> None:
    window.show_player_view()
    log = list(window.session.referee.log)
    _send(window.view, QEvent.Type.MouseButtonPress, point(window.view, (1, 3)), LEFT, LEFT,
          Qt.KeyboardModifier.AltModifier)
    _send(window.view, QEvent.Type.MouseButtonRelease, point(window.view, (1, 3)), LEFT,
          Qt.MouseButton.NoButton, Qt.KeyboardModifier.AltModifier)
    assert rings(window) == [1, 1]
    ring = next(i for i in window.scene.items() if isinstance(i, PingRing))
    assert ring.pos() == window.view.mapToScene(point(window.view, (1, 3)))
    # Alt+click on Bo only points at him: Ana stays selected, nothing is logged.
    assert window.actor == "ana" and window.session.referee.log == log
    qtbot.waitUntil(lambda: rings(window) == [0, 0], timeout=20000)  # type: ignore[attr-defined]


def test_a_long_press_pings(window: MainWindow, qtbot: object) -> None:
    window.show_player_view()
    _send(window.view, QEvent.Type.MouseButtonPress, point(window.view, (4, 7)), LEFT, LEFT,
          NO_KEYS)
    qtbot.waitUntil(lambda: rings(window) == [1, 1], timeout=20000)  # type: ignore[attr-defined]
    _send(window.view, QEvent.Type.MouseButtonRelease, point(window.view, (4, 7)), LEFT,
          Qt.MouseButton.NoButton, NO_KEYS)


def test_space_centres_the_player_view_on_the_mouse_and_pings(window: MainWindow) -> None:
    window.show_player_view()
    player = window.players.window
    assert player is not None
    player.resize(600, 400)
    QApplication.processEvents()
    player.view.set_zoom(2.0)  # the players see a part of the map: room to move it
    player.view.centerOn(QPointF(CELL, CELL))
    _send(window.view, QEvent.Type.MouseMove, point(window.view, (9, 8)),
          Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, NO_KEYS)
    key(window.view, Qt.Key.Key_Space)
    key(window.view, Qt.Key.Key_Space, release=True)
    spot = window.view.mapToScene(point(window.view, (9, 8)))
    middle = player.view.mapToScene(player.view.viewport().rect().center())
    assert abs(middle.x() - spot.x()) < CELL and abs(middle.y() - spot.y()) < CELL
    assert rings(window) == [1, 1]


# --- dropped files ---------------------------------------------------------------------------

def drop(target: QWidget, at: QPointF, *paths: Path) -> bool:
    """Drag ``paths`` from the desktop over ``target`` and let go at ``at``: accepted?"""
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    enter = QDragEnterEvent(at.toPoint(), Qt.DropAction.CopyAction, data, LEFT, NO_KEYS)
    QApplication.sendEvent(target, enter)
    if not enter.isAccepted():
        return False
    event = QDropEvent(at, Qt.DropAction.CopyAction, data, LEFT, NO_KEYS)
    QApplication.sendEvent(target, event)
    QApplication.processEvents()
    return True


def picture(path: Path, width: int = 480, height: int = 360) -> Path:
    """A PNG of that size."""
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.darkGreen)
    assert image.save(str(path))
    return path


def on_cell(view: MapView, cell: tuple[int, int]) -> QPointF:
    return QPointF(view.mapFromScene(centre(cell)))


@pytest.mark.parametrize("where", ["map", "dock"])
def test_a_dropped_encounter_opens(window: MainWindow, tmp_path: Path, qtbot: object,
                                   where: str) -> None:
    other = skirmish_state()
    other.name = "The crypt"
    path = tmp_path / "crypt.tacmap"
    storage.save(path, other, [])
    if where == "map":
        assert drop(window.view.viewport(), on_cell(window.view, (5, 5)), path)
    else:
        log = window.log_panel
        assert drop(log, QPointF(log.rect().center()), path)
    qtbot.waitUntil(  # type: ignore[attr-defined]
        lambda: window.session.path == path, timeout=20000)
    assert window.session.referee.state.name == "The crypt"


def test_a_picture_dropped_on_the_map_becomes_its_image_then_is_aligned(
        window: MainWindow, tmp_path: Path) -> None:
    image = picture(tmp_path / "cave.png")
    assert drop(window.view.viewport(), on_cell(window.view, (5, 7)), image)
    state = window.session.referee.state
    assert state.map.image == "cave.png"
    assert (window.session.image_folder / "cave.png").exists()
    # The alignment step starts: the Scale Map Image by Two Points tool is in hand.
    assert window.view.tool is not None and window.build.tool_key == "scale"
    assert window.tool_actions["scale"].isChecked()


@pytest.mark.parametrize("how", ["dropped", "loaded"])
def test_a_picture_named_with_its_grid_covers_that_many_cells(
        window: MainWindow, tmp_path: Path, how: str) -> None:
    image = picture(tmp_path / "Crypt [24x18].png", 480, 360)
    if how == "dropped":
        assert drop(window.view.viewport(), on_cell(window.view, (5, 7)), image)
    else:
        window.use_image(image)
    m = window.session.referee.state.map
    assert m.image == "Crypt [24x18].png" and m.image_offset == (0.0, 0.0)
    assert (480 * m.image_scale, 360 * m.image_scale) == pytest.approx((24, 18))
    assert window.view.tool is None  # nothing to align


def test_a_picture_dropped_on_a_token_becomes_its_portrait(
        window: MainWindow, tmp_path: Path) -> None:
    image = picture(tmp_path / "ana.png", 64, 64)
    assert drop(window.view.viewport(), on_cell(window.view, (1, 1)), image)
    state = window.session.referee.state
    ana: Token = state.tokens["ana"]
    assert ana.image == "ana.png" and (window.session.image_folder / "ana.png").exists()
    assert state.map.image is None and window.view.tool is None
    window.combat.undo()
    assert window.session.referee.state.tokens["ana"].image is None


def test_a_file_that_is_not_a_picture_is_one_sentence(window: MainWindow,
                                                      tmp_path: Path) -> None:
    fake = tmp_path / "notes.png"
    fake.write_text("not a picture")
    assert drop(window.view.viewport(), on_cell(window.view, (5, 7)), fake)
    assert window.session.referee.state.map.image is None
    assert window.told == ["notes.png is not a picture tacmap can read."]  # type: ignore[attr-defined]


def test_other_files_are_not_taken(window: MainWindow, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    before = window.session.path
    drop(window.view.viewport(), on_cell(window.view, (5, 7)), notes)
    assert window.session.path == before and window.session.referee.state.map.image is None
    assert window.told == [] and window.view.tool is None  # type: ignore[attr-defined]


def test_a_dropped_encounter_asks_to_save_the_current_one_first(
        window: MainWindow, tmp_path: Path, qtbot: object) -> None:
    path = tmp_path / "crypt.tacmap"
    storage.save(path, skirmish_state(), [])
    before = window.session.path
    asked: list[str] = []
    window.ask_save = lambda question: asked.append(question)
    assert window.session.dirty
    assert drop(window.view.viewport(), on_cell(window.view, (5, 5)), path)
    qtbot.waitUntil(lambda: bool(asked), timeout=20000)  # type: ignore[attr-defined]
    # Cancel: the encounter on screen stays.
    assert asked == ["This encounter has unsaved changes. Save them first?"]
    assert window.session.path == before
