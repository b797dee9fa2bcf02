"""Area templates in the window: drawn by drag with the tokens inside named by the mouse,
kept on the map or discarded, removed by right-click; an action's area placed and cancelled."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.state import Encounter, MapSpec, Template, Token, Wall
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import ActionOption, AreaSpec
from tacmap.ui.player import PlayerView
from tacmap.ui.qt import QAction, QApplication, QEvent, QKeyEvent, Qt
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import NO_KEYS, _send, point, shown


def cone_state() -> Encounter:
    """A caster facing three orcs in the open and a fourth behind a wall."""
    state = Encounter("skirmish", ruleset_version="1.0", diagonal="chebyshev",
                      map=MapSpec(14, 10, walls=(Wall(((7, 2), (7, 8))),)))
    for t in [Token("ana", "Ana", "party", 3, 5),
              Token("ash", "Ash", "orcs", 5, 4), Token("bek", "Bek", "orcs", 6, 5),
              Token("cole", "Cole", "orcs", 5, 6), Token("dun", "Dun", "orcs", 7, 5)]:
        state.tokens[t.id] = t
    return state


@pytest.fixture
def window(qtbot: object, registry: Registry, tmp_path: Path) -> MainWindow:
    path = tmp_path / "cone.tacmap"
    storage.save(path, cone_state(), [])
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=lambda text: None)
    win.ask_words = lambda question, suggested: "Burning hands"  # type: ignore[method-assign]
    return shown(qtbot, win, (1200, 800), (6, 5))


def menu_action(window: MainWindow, text: str) -> QAction:
    menu = window.build.area_menu
    assert menu is not None and menu.isVisible()
    return next(a for a in menu.actions() if a.text() == text)


def test_a_dragged_cone_lists_the_three_tokens_in_the_open_and_not_the_one_behind_a_wall(
        window: MainWindow) -> None:
    view, ref = window.view, window.session.referee
    window.shape_actions["cone"].trigger()
    assert view.tool is not None and view.tool.name == "template"
    press, aim = point(view, (4, 5)), point(view, (8, 5))
    _send(view, QEvent.Type.MouseButtonPress, press, Qt.MouseButton.LeftButton,
          Qt.MouseButton.LeftButton, NO_KEYS)
    _send(view, QEvent.Type.MouseMove, aim, Qt.MouseButton.NoButton, Qt.MouseButton.LeftButton,
          NO_KEYS)
    hint = view.area_preview.hint
    assert hint.isVisible()
    assert hint.text() == "Cone, length 4, 90°: Ash, Bek, Cole"
    assert view.area_preview.inside == ["ash", "bek", "cole"]
    assert not window.scene.inside_rings.path().isEmpty()
    _send(view, QEvent.Type.MouseButtonRelease, aim, Qt.MouseButton.LeftButton,
          Qt.MouseButton.NoButton, NO_KEYS)
    # Released: keep it on the map or discard it.
    assert [a.text() for a in window.build.area_menu.actions()][1:] == \
        ["Keep on map", "Discard"]  # type: ignore[union-attr]
    menu_action(window, "Keep on map").trigger()
    window.build.area_menu.hide()  # type: ignore[union-attr]
    QApplication.processEvents()
    assert not hint.isVisible() and window.scene.inside_rings.path().isEmpty()
    placed = ref.state.templates
    assert [p.label for p in placed] == ["Burning hands"]
    assert placed[0].template == Template("cone", (4, 5), 4, (8, 5))
    assert ref.log[-1].events[0].text(ref.state) == "Burning hands placed: covers Ash, Bek, Cole"
    item = window.scene.lasting.items[placed[0].id]
    assert (6, 5) in item.cells and (8, 5) not in item.cells and item.isVisible()
    # Right-click on it: Remove.
    window.tool_actions["template"].trigger()  # back to moving tokens
    assert view.tool is None
    _send(view, QEvent.Type.MouseButtonPress, point(view, (6, 3)), Qt.MouseButton.RightButton,
          Qt.MouseButton.RightButton, NO_KEYS)
    menu_action(window, "Remove Burning hands").trigger()
    assert ref.state.templates == () and window.scene.lasting.items == {}
    window.undo_action.trigger()
    assert [p.label for p in ref.state.templates] == ["Burning hands"]


@pytest.mark.parametrize(("menu", "choice", "shape", "hint"), [
    ("angle", 45.0, "cone", "Cone, length 4, 45°: Bek"),
    ("angle", 120.0, "cone", "Cone, length 4, 120°: Ash, Bek, Cole"),
    ("width", 1, "line", "Line, length 4, 1 wide: Bek"),
    ("width", 3, "line", "Line, length 4, 3 wide: Ash, Bek, Cole"),
])
def test_the_cone_angle_and_line_width_menus_shape_what_is_drawn(
        window: MainWindow, menu: str, choice: float, shape: str, hint: str) -> None:
    view = window.view
    actions = window.angle_actions if menu == "angle" else window.width_actions
    actions[choice].trigger()  # type: ignore[index]
    assert window.shape_actions[shape].isChecked() and actions[choice].isChecked()  # type: ignore[index]
    assert view.tool is not None and view.tool.name == "template"
    _send(view, QEvent.Type.MouseButtonPress, point(view, (4, 5)), Qt.MouseButton.LeftButton,
          Qt.MouseButton.LeftButton, NO_KEYS)
    _send(view, QEvent.Type.MouseMove, point(view, (8, 5)), Qt.MouseButton.NoButton,
          Qt.MouseButton.LeftButton, NO_KEYS)
    assert view.area_preview.hint.text() == hint


def test_a_discarded_template_leaves_nothing(window: MainWindow) -> None:
    view, ref = window.view, window.session.referee
    window.shape_actions["circle"].trigger()
    _send(view, QEvent.Type.MouseButtonPress, point(view, (5, 5)), Qt.MouseButton.LeftButton,
          Qt.MouseButton.LeftButton, NO_KEYS)
    _send(view, QEvent.Type.MouseMove, point(view, (5, 6)), Qt.MouseButton.NoButton,
          Qt.MouseButton.LeftButton, NO_KEYS)
    assert view.area_preview.hint.text() == "Circle, radius 1: Ash, Bek, Cole"
    _send(view, QEvent.Type.MouseButtonRelease, point(view, (5, 6)), Qt.MouseButton.LeftButton,
          Qt.MouseButton.NoButton, NO_KEYS)
    menu_action(window, "Discard").trigger()
    window.build.area_menu.hide()  # type: ignore[union-attr]
    assert ref.log == [] and ref.state.templates == ()
    assert window.scene.sketch_area.path().isEmpty()


def test_an_armed_area_follows_the_mouse_and_esc_cancels_it(window: MainWindow) -> None:
    view, ref = window.view, window.session.referee
    option = ActionOption("cast", "Cast Fireball", "area", detail="fireball",
                          area=AreaSpec("circle", 1))
    window.combat.arm("ana", option)
    assert view.tool is not None and view.tool.name == "aim"
    _send(view, QEvent.Type.MouseMove, point(view, (6, 5)), Qt.MouseButton.NoButton,
          Qt.MouseButton.NoButton, NO_KEYS)
    text = view.area_preview.hint.text()
    assert text.startswith("Ana: Cast Fireball: Ash, Bek, Cole\n")  # Dun: behind the wall
    assert "✗" in text, "the referee's reason shows when the rules would refuse it"
    QApplication.sendEvent(view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Escape, NO_KEYS))
    assert view.tool is None and not view.area_preview.hint.isVisible()
    assert ref.log == []


def test_a_lasting_template_is_drawn_on_the_player_view(window: MainWindow,
                                                       registry: Registry) -> None:
    from tacmap.engine.model.commands import PlaceTemplate

    window.run(PlaceTemplate(Template("circle", (10, 5), 2), "Cloud of fog"))
    players = PlayerView(window.session)
    players.show()
    QApplication.processEvents()
    items = players.scene.lasting.items
    assert [i.label.text() for i in items.values()] == ["Cloud of fog"]
    players.close()


def test_token_tooltips_stay_out_of_the_way_while_a_template_is_placed(
        window: MainWindow, qtbot: object) -> None:
    """The list of tokens inside sits by the mouse; a token's tooltip would cover it."""
    from tacmap.ui.qt import QHelpEvent, QToolTip

    view = window.view
    over_bek = point(view, (6, 5))

    def tooltip_at_bek() -> bool:
        QToolTip.hideText()
        qtbot.waitUntil(lambda: not QToolTip.isVisible())  # type: ignore[attr-defined]
        event = QHelpEvent(QEvent.Type.ToolTip, over_bek, view.viewport().mapToGlobal(over_bek))
        QApplication.sendEvent(view.viewport(), event)
        return QToolTip.isVisible() and "Bek" in QToolTip.text()

    assert tooltip_at_bek()  # moving tokens: hovering names the token
    window.shape_actions["cone"].trigger()
    assert not tooltip_at_bek()
    window.tool_actions["template"].trigger()
    assert tooltip_at_bek()


@pytest.mark.parametrize(("rule", "radius"), [("chebyshev", 2), ("rectilinear", 4),
                                              ("euclidean", 3), ("alternating", 3)])
def test_a_dragged_circle_reaches_the_cell_under_the_mouse_by_the_diagonal_rule(
        window: MainWindow, rule: str, radius: int) -> None:
    """Two cells diagonally is 2 under chebyshev, 4 when a diagonal costs 2, 3 in between."""
    from tacmap.engine.model.commands import SetDiagonal
    from tacmap.engine.space.templates import cells

    view = window.view
    if window.session.referee.state.diagonal != rule:
        window.run(SetDiagonal(rule))
    window.shape_actions["circle"].trigger()
    _send(view, QEvent.Type.MouseButtonPress, point(view, (3, 3)), Qt.MouseButton.LeftButton,
          Qt.MouseButton.LeftButton, NO_KEYS)
    _send(view, QEvent.Type.MouseMove, point(view, (5, 5)), Qt.MouseButton.NoButton,
          Qt.MouseButton.LeftButton, NO_KEYS)
    assert view.area_preview.hint.text().startswith(f"Circle, radius {radius}")
    drawn = Template("circle", (3, 3), radius)
    assert (5, 5) in cells(drawn, window.session.referee.state)  # the cell under the mouse
