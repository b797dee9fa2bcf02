"""Map tools let go (issue 22, item 1): each shows that it is on, Esc and right-click put it
down, and arming an action puts it down so the next click on a token is the action's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tacmap.engine.model.commands import StartCombat
from tacmap.engine.model.state import Wall
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.app import demo_path
from tacmap.ui.map.token_item import CELL
from tacmap.ui.menus import TOOLS
from tacmap.ui.qt import (
    QApplication,
    QEvent,
    QKeyEvent,
    QMouseEvent,
    QPointF,
    QPushButton,
    Qt,
    QToolButton,
)
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import NO_KEYS, _send, drag, point, shown

KEYS = [key for key, *_ in TOOLS]


@pytest.fixture
def window(qtbot: object, registry: Registry, tmp_path: Path) -> MainWindow:
    """The action_pool demo, combat started: Ser Aldric (4, 9) acts, Barry stands at (14, 9)."""
    path = tmp_path / "demo.tacmap"
    shutil.copy(demo_path(), path)
    session = Session.open(registry, path)
    session.referee.execute(StartCombat())
    win = MainWindow(registry, session, ask=lambda q: False, tell=lambda text: None)
    win.ask_words = lambda question, suggested: "Smoke"  # type: ignore[method-assign]
    win.ask_metres = lambda shown: None  # type: ignore[method-assign]
    return shown(qtbot, win, (1400, 900), (9, 9))


def toolbar_button(win: MainWindow, key: str) -> QToolButton:
    button = win.tools_bar.widgetForAction(win.tool_actions[key])
    assert isinstance(button, QToolButton)
    return button


def assert_on(win: MainWindow, key: str) -> None:
    """What tells the GM a tool is on: the tick, the pressed button, the cursor, the line."""
    tool = win.view.tool
    assert tool is not None and win.build.tool_key == key
    assert win.tool_actions[key].isChecked() and toolbar_button(win, key).isChecked()
    assert win.view.viewport().cursor().shape() == tool.pointer
    assert win.tool_text.isVisible()
    label = next(text for k, text, *_ in TOOLS if k == key).replace("&", "")
    assert win.tool_text.text().startswith(label) and "Esc or right-click" in win.tool_text.text()


def assert_off(win: MainWindow) -> None:
    """No tool on: nothing ticked or pressed, the arrow cursor, no tool line."""
    assert win.view.tool is None and win.build.tool_key is None
    assert not any(a.isChecked() for a in win.tool_actions.values())
    assert not any(toolbar_button(win, k).isChecked() for k in KEYS)
    assert win.view.viewport().cursor().shape() == Qt.CursorShape.ArrowCursor
    assert not win.tool_text.isVisible()
    assert not win.leave_tool_action.isEnabled()  # Esc does its usual work again


def right_click(win: MainWindow, cell: tuple[float, float]) -> None:
    at = point(win.view, cell)
    right = Qt.MouseButton.RightButton
    _send(win.view, QEvent.Type.MouseButtonPress, at, right, right, NO_KEYS)
    _send(win.view, QEvent.Type.MouseButtonRelease, at, right, Qt.MouseButton.NoButton, NO_KEYS)
    QApplication.processEvents()


def click_corner(win: MainWindow, x: float, y: float) -> None:
    vp = win.view.viewport()
    at = QPointF(win.view.mapFromScene(QPointF(x * CELL, y * CELL)))
    left = Qt.MouseButton.LeftButton
    for kind, buttons in ((QEvent.Type.MouseButtonPress, left),
                          (QEvent.Type.MouseButtonRelease, Qt.MouseButton.NoButton)):
        QApplication.sendEvent(vp, QMouseEvent(kind, at, QPointF(vp.mapToGlobal(at.toPoint())),
                                               left, buttons, NO_KEYS))


def test_the_tools_bar_and_the_build_menu_share_one_action_per_tool(window: MainWindow) -> None:
    assert [a for a in window.tools_bar.actions()] == list(window.tool_actions.values())
    assert_off(window)
    toolbar_button(window, "wall").click()
    assert_on(window, "wall")
    window.tool_actions["door"].trigger()  # one tool at a time
    assert_on(window, "door")
    assert not window.tool_actions["wall"].isChecked()
    toolbar_button(window, "door").click()  # clicking the pressed button puts it down
    assert_off(window)


@pytest.mark.parametrize("key", KEYS)
def test_esc_puts_each_tool_down(window: MainWindow, key: str) -> None:
    window.tool_actions[key].trigger()
    assert_on(window, key)
    QApplication.sendEvent(window.view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Escape,
                                                  NO_KEYS))
    assert_off(window)


@pytest.mark.parametrize("key", KEYS)
def test_right_click_puts_each_tool_down(window: MainWindow, key: str) -> None:
    logged = len(window.session.referee.log)
    window.tool_actions[key].trigger()
    assert_on(window, key)
    right_click(window, (9, 4))
    assert_off(window)
    assert len(window.session.referee.log) == logged  # nothing was drawn, nothing was done


def test_esc_puts_the_tool_down_while_a_dock_has_the_keyboard(window: MainWindow) -> None:
    window.tool_actions["reveal"].trigger()
    assert window.leave_tool_action.isEnabled()
    assert window.leave_tool_action.shortcut().toString() == "Esc"
    window.leave_tool_action.trigger()  # what Esc runs from anywhere in the window
    assert_off(window)


def test_right_click_keeps_the_wall_drawn_so_far_and_puts_the_tool_down(
        window: MainWindow) -> None:
    ref = window.session.referee
    walls = ref.state.map.walls
    window.tool_actions["wall"].trigger()
    click_corner(window, 9, 2)
    click_corner(window, 12, 2)
    right_click(window, (11.5, 1.5))
    assert ref.state.map.walls == (*walls, Wall(((9.0, 2.0), (12.0, 2.0))))
    assert_off(window)


def test_esc_drops_a_half_drawn_wall(window: MainWindow) -> None:
    ref = window.session.referee
    window.tool_actions["wall"].trigger()
    click_corner(window, 9, 2)
    click_corner(window, 12, 2)
    QApplication.sendEvent(window.view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Escape,
                                                  NO_KEYS))
    assert len(ref.log) == 1 and window.build.sketch is not None  # StartCombat only
    assert window.build.sketch.path().isEmpty()
    assert_off(window)


def test_a_kept_template_does_not_take_the_attack_click(window: MainWindow) -> None:
    """Build ▸ Area Template, a cone kept on the map, then Attack… and a click on an enemy."""
    view, ref = window.view, window.session.referee
    window.shape_actions["cone"].trigger()
    assert_on(window, "template")
    drag(view, [(8, 4), (11, 4)])
    menu = window.build.area_menu
    assert menu is not None
    next(a for a in menu.actions() if a.text() == "Keep on map").trigger()
    menu.hide()
    assert [p.label for p in ref.state.templates] == ["Smoke"]
    assert_on(window, "template")  # still on: the GM may lay another
    attack = next(b for b in window.order_panel.actions_box.findChildren(QPushButton)
                  if b.text().startswith("Attack"))
    attack.click()  # Ser Aldric: Attack (…) — click the target
    assert_off(window)
    assert "click the target" in window.statusBar().currentMessage()
    barry = ref.state.tokens["barry"]
    drag(view, [barry.cell])
    card = window.odds_card
    assert card is not None and card.isVisible()
    assert card.target == "Barry the Guard"
    assert len(ref.state.templates) == 1 and not view.area_preview.hint.isVisible()
    card.close()


def test_an_armed_area_puts_a_building_tool_down(window: MainWindow) -> None:
    from tacmap.engine.rules.views import ActionOption, AreaSpec

    window.tool_actions["wall"].trigger()
    option = ActionOption("cast", "Cast Fireball", "area", detail="fireball",
                          area=AreaSpec("circle", 1))
    window.combat.arm("aldric", option)
    assert window.view.tool is not None and window.view.tool.name == "aim"
    assert not any(a.isChecked() for a in window.tool_actions.values())
    assert not window.tool_text.isVisible()
    assert window.view.viewport().cursor().shape() == Qt.CursorShape.CrossCursor
    right_click(window, (9, 4))  # right-click drops the area, as Esc does
    assert window.view.tool is None
    assert window.view.viewport().cursor().shape() == Qt.CursorShape.ArrowCursor


def test_esc_cancels_an_area_armed_from_a_button_in_a_dock(window: MainWindow,
                                                          qtbot: object) -> None:
    """Cast Fireball is a button in the Actions dock: after the click the keyboard was
    the dock's, so Esc never reached the map and the template kept following the mouse
    (while the status bar said "Esc cancels")."""
    from tacmap.engine.rules.views import ActionOption, AreaSpec

    option = ActionOption("cast", "Cast Fireball", "area", detail="fireball",
                          area=AreaSpec("circle", 1))
    logged = len(window.session.referee.log)
    window.activateWindow()
    window.order_panel.setFocus()  # where a click on an Actions button leaves it
    window.combat.arm("aldric", option)
    assert window.view.tool is not None and window.view.tool.name == "aim"
    assert "Esc cancels" in window.statusBar().currentMessage()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)  # type: ignore[attr-defined]
    assert window.view.tool is None
    assert "Esc cancels" not in window.statusBar().currentMessage()
    assert len(window.session.referee.log) == logged  # nothing was cast


def test_taking_up_another_tool_keeps_the_wall_drawn_so_far(window: MainWindow) -> None:
    """Wall, three corners, then Measure: the wall is laid, not lost."""
    walls = len(window.session.referee.state.map.walls)
    window.tool_actions["wall"].trigger()
    tool = window.view.tool
    assert tool is not None
    for x, y in ((1, 6), (4, 6), (4, 8)):
        tool.press(QPointF(x * CELL, y * CELL), Qt.MouseButton.LeftButton)
    window.tool_actions["measure"].trigger()
    state = window.session.referee.state
    assert len(state.map.walls) == walls + 1
    assert state.map.walls[-1].points == ((1.0, 6.0), (4.0, 6.0), (4.0, 8.0))
