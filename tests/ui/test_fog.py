"""Fog of war at the table: what the player view hides, and the GM's fog and door tools."""

from __future__ import annotations

from pathlib import Path

import pytest
import shapely

from tacmap.engine.files import storage
from tacmap.engine.model.commands import SetFog, SetWalls, StartCombat
from tacmap.engine.model.state import Encounter, MapSpec, Token, Wall
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.space import vision
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import QApplication, QEvent, QMouseEvent, QPointF, Qt
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import drag, shown

CLUB = {"ac": 1, "con": 1, "str": 1, "dex": 1, "weapon": "club", "proficiency": {"club": 0}}


def two_rooms() -> Encounter:
    """Two rooms split at x = 10 by a wall with a closed door at y 4–6; an orc beyond it."""
    state = Encounter(ruleset="action_pool", ruleset_version="1.0", map=MapSpec(20, 10))
    state.map.walls = (Wall(((10, 0), (10, 4))), Wall(((10, 6), (10, 10))),
                       Wall(((10, 4), (10, 6)), kind="door"))
    state.tokens["ana"] = Token("ana", "Ana", "heroes", 3, 4, stats=CLUB)
    state.tokens["orc"] = Token("orc", "Orc", "orcs", 15, 4, stats=CLUB)
    state.tokens["gob"] = Token("gob", "Gob", "orcs", 6, 2, stats=CLUB)
    return state


@pytest.fixture
def window(qtbot: object, registry: Registry, tmp_path: Path) -> MainWindow:
    path = tmp_path / "rooms.tacmap"
    storage.save(path, two_rooms(), [])
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=lambda text: None)
    return shown(qtbot, win, (1200, 800), (10, 5))


def press(win: MainWindow, x: float, y: float, button: Qt.MouseButton,
          kinds: tuple[QEvent.Type, ...] = (QEvent.Type.MouseButtonPress,
                                            QEvent.Type.MouseButtonRelease)) -> None:
    vp = win.view.viewport()
    at = QPointF(win.view.mapFromScene(QPointF(x * CELL, y * CELL)))
    for kind in kinds:
        buttons = button if kind != QEvent.Type.MouseButtonRelease else Qt.MouseButton.NoButton
        QApplication.sendEvent(vp, QMouseEvent(kind, at, QPointF(vp.mapToGlobal(at.toPoint())),
                                               button, buttons, Qt.KeyboardModifier.NoModifier))
    QApplication.processEvents()


def order_names(win: MainWindow) -> list[str]:
    assert win.player is not None
    rows = win.player.order.rows
    return [rows.item(i).text() for i in range(rows.count())]


def test_the_player_view_hides_an_enemy_behind_a_door_until_it_opens(window: MainWindow) -> None:
    window.run(SetFog(True))
    window.show_player_view()
    player = window.player
    assert player is not None
    assert "orc" not in player.scene.items_by_id and "gob" in player.scene.items_by_id
    assert "orc" in window.scene.items_by_id  # the GM sees everyone
    orc = window.session.referee.state.tokens["orc"]
    assert player.scene.token_at(orc.cell) is None  # hovering finds nothing to show
    assert window.scene.token_at(orc.cell) == orc
    window.run(StartCombat(("ana", "orc", "gob")))
    names = " ".join(order_names(window))
    assert "Orc" not in names and "Gob" in names and "Ana" in names
    # Right-click the door on the GM's map: Open door.
    press(window, 10.05, 5, Qt.MouseButton.RightButton, (QEvent.Type.MouseButtonPress,))
    menu = window.menu
    assert [a.text() for a in menu.actions()] == ["Open door"]
    menu.actions()[0].trigger()
    menu.close()
    assert window.session.referee.state.map.walls[2].open
    assert "orc" in player.scene.items_by_id
    assert "Orc" in " ".join(order_names(window))
    window.undo_action.trigger()
    assert not window.session.referee.state.map.walls[2].open
    assert "orc" not in player.scene.items_by_id


def test_the_fog_menu_and_the_reveal_and_hide_tools_are_logged_and_undone(
        window: MainWindow) -> None:
    ref = window.session.referee
    window.fog_action.trigger()
    assert ref.state.fog.enabled and window.fog_action.isChecked()
    window.tool_actions["reveal"].trigger()
    drag_rect(window, (12, 1), (18, 3))
    assert vision.area_shape(ref.state.fog.revealed).contains(shapely.Point(15, 2))
    window.show_player_view()
    assert window.player is not None
    window.tool_actions["hide"].trigger()
    drag_rect(window, (1, 1), (5, 3))
    hidden = vision.area_shape(ref.state.fog.hidden)
    assert hidden.contains(shapely.Point(3, 2))
    assert not vision.area_shape(ref.state.fog.explored).contains(shapely.Point(3, 2))
    window.undo_action.trigger()
    assert ref.state.fog.hidden == ()
    window.undo_action.trigger()
    assert ref.state.fog.revealed == ()
    window.tool_actions["hide"].trigger()
    window.fog_action.trigger()
    assert not ref.state.fog.enabled


def drag_rect(win: MainWindow, a: tuple[float, float], b: tuple[float, float]) -> None:
    vp = win.view.viewport()
    pa = QPointF(win.view.mapFromScene(QPointF(a[0] * CELL, a[1] * CELL)))
    pb = QPointF(win.view.mapFromScene(QPointF(b[0] * CELL, b[1] * CELL)))
    left = Qt.MouseButton.LeftButton
    for kind, at, buttons in ((QEvent.Type.MouseButtonPress, pa, left),
                              (QEvent.Type.MouseMove, pb, left),
                              (QEvent.Type.MouseButtonRelease, pb, Qt.MouseButton.NoButton)):
        QApplication.sendEvent(vp, QMouseEvent(kind, at, QPointF(vp.mapToGlobal(at.toPoint())),
                                               left, buttons, Qt.KeyboardModifier.NoModifier))
    QApplication.processEvents()


def test_doors_and_windows_are_drawn_with_their_tools(window: MainWindow,
                                                      qtbot: object) -> None:
    ref = window.session.referee
    ref.execute(SetWalls(()))
    for key, kind in (("door", "door"), ("window", "window")):
        window.tool_actions[key].trigger()
        y = 2 if key == "door" else 7
        press(window, 3, y, Qt.MouseButton.LeftButton)
        press(window, 5, y, Qt.MouseButton.LeftButton)  # the second click lays it
        assert ref.state.map.walls[-1].kind == kind
        assert ref.state.map.walls[-1].points == ((3.0, float(y)), (5.0, float(y)))
    window.tool_actions["window"].trigger()
    assert window.view.tool is None
    assert not window.scene.walls_item.doors.isEmpty()
    assert not window.scene.walls_item.windows.isEmpty()


def test_a_move_in_the_window_explores_and_undo_forgets(window: MainWindow) -> None:
    ref = window.session.referee
    window.run(SetFog(True))
    ref.execute(SetWalls(ref.state.map.walls[:2]))  # the doorway stands empty
    before = ref.state.fog.explored
    drag(window.view, [(3, 4), (4, 4), (5, 4)])
    assert ref.state.tokens["ana"].cell == (5, 4)
    assert ref.state.fog.explored != before  # closer to the doorway, it sees more beyond
    window.undo_action.trigger()
    assert ref.state.fog.explored == before


def test_a_hide_polygon_is_clicked_corner_by_corner_and_a_double_click_closes_it(
        window: MainWindow) -> None:
    ref = window.session.referee
    window.fog_action.trigger()
    window.tool_actions["hide"].trigger()
    vp = window.view.viewport()
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton

    def at(x: float, y: float) -> QPointF:
        return QPointF(window.view.mapFromScene(QPointF(x * CELL, y * CELL)))

    def send(kind: QEvent.Type, p: QPointF, buttons: Qt.MouseButton) -> None:
        QApplication.sendEvent(vp, QMouseEvent(kind, p, QPointF(vp.mapToGlobal(p.toPoint())),
                                               left, buttons, Qt.KeyboardModifier.NoModifier))

    for corner in ((1, 1), (6, 1)):
        send(QEvent.Type.MouseButtonPress, at(*corner), left)
        send(QEvent.Type.MouseButtonRelease, at(*corner), none)
    last = at(1, 6)
    send(QEvent.Type.MouseButtonPress, last, left)
    send(QEvent.Type.MouseButtonRelease, last, none)
    send(QEvent.Type.MouseButtonDblClick, last, left)
    send(QEvent.Type.MouseButtonRelease, last, none)
    QApplication.processEvents()
    hidden = vision.area_shape(ref.state.fog.hidden)
    assert hidden.area == pytest.approx(12.5)  # the triangle (1,1) (6,1) (1,6)
    assert hidden.contains(shapely.Point(2, 2)) and not hidden.contains(shapely.Point(5, 5))
    window.undo_action.trigger()
    assert ref.state.fog.hidden == ()
