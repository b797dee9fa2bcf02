"""At the table (issue 12): what the GM and the players notice on the shared screen.

The player view and the main window fit their map to the window until someone
zooms; names and the turn order are large and whole; End turn stays put and
has one key; the status bar never resizes the map; a first-run hint; a file
that cannot be opened is said on screen too.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap import cli
from tacmap.engine.model.commands import EndTurn, StartCombat
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui import app as ui_app
from tacmap.ui.app import demo_path
from tacmap.ui.help import GETTING_STARTED
from tacmap.ui.map.hint import FIRST_RUN
from tacmap.ui.map.look import looks
from tacmap.ui.map.name_tags import TaggedToken
from tacmap.ui.map.token_item import CELL, TokenItem
from tacmap.ui.map.view import MapView
from tacmap.ui.panels.initiative import END_TURN_KEY
from tacmap.ui.player import PlayerView
from tacmap.ui.qt import (
    QApplication,
    QColor,
    QDialog,
    QImage,
    QLineEdit,
    QMessageBox,
    QPainter,
    QPoint,
    QPointF,
    QRectF,
    QStyleOptionGraphicsItem,
    Qt,
    submenu,
)
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import drag

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def make_window(qtbot: object, registry: Registry, path: Path,
                size: tuple[int, int] = (1280, 800)) -> MainWindow:
    """The main window on ``path``, shown at ``size``, left fitted (no zoom chosen)."""
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=lambda text: None)
    qtbot.addWidget(win)  # type: ignore[attr-defined]
    win.resize(*size)
    win.show()
    settle()
    return win


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    path = tmp_path / "demo.tacmap"
    shutil.copy(demo_path(), path)
    return path


@pytest.fixture
def speed_rank(tmp_path: Path) -> Path:
    path = tmp_path / "speed_rank_demo.tacmap"
    shutil.copy(RESOURCES / "speed_rank_demo.tacmap", path)
    return path


@pytest.fixture
def gm(qtbot: object, registry: Registry, demo: Path) -> Iterator[MainWindow]:
    """The GM's window on the demo, before combat."""
    yield make_window(qtbot, registry, demo)


def open_player(win: MainWindow, size: tuple[int, int]) -> PlayerView:
    win.show_player_view()
    player = win.player
    assert player is not None
    player.resize(*size)
    settle()
    return player


def on_screen(view: MapView, token_id: str) -> QRectF:
    """A token's footprint in viewport pixels."""
    t = view.map_scene.items_by_id[token_id].look
    return view.mapFromScene(QRectF(t.x * CELL, t.y * CELL, t.size * CELL,
                                    t.size * CELL)).boundingRect().toRectF()


def all_in_view(view: MapView) -> bool:
    room = QRectF(view.viewport().rect())
    return all(room.contains(on_screen(view, tid)) for tid in view.map_scene.items_by_id)


def tag_boxes(player: PlayerView) -> list[tuple[str, QRectF]]:
    """Every name tag in the player view's viewport pixels, with its text."""
    tags = player.scene.tags
    assert tags is not None
    move = player.view.viewportTransform()
    return [(look.name, rect.translated(move.dx(), move.dy()))
            for look, rect in tags.tags(player.view.zoom)]


# --- 1. the player view fits its screen --------------------------------------------------------


def test_the_player_view_fits_its_map_on_open_and_on_every_resize(gm: MainWindow) -> None:
    player = open_player(gm, (900, 600))
    small = player.view.zoom
    assert player.view.auto_fit and all_in_view(player.view)
    player.resize(1900, 1060)  # full screen at 1080p
    settle()
    assert player.view.zoom > small * 1.4  # not a small island any more
    assert all_in_view(player.view)
    # The map uses the room: the fitted encounter fills one of the view's dimensions.
    box = player.view.mapFromScene(player.view.encounter_rect()).boundingRect()
    room = player.view.viewport().rect()
    assert box.width() > room.width() * 0.75 or box.height() > room.height() * 0.75


def test_full_screen_refits_the_player_view(gm: MainWindow) -> None:
    player = open_player(gm, (500, 380))
    before = player.view.zoom
    player.toggle_full_screen()
    settle()
    assert player.isFullScreen()
    assert player.view.zoom > before and all_in_view(player.view)
    player.leave_full_screen()
    settle()
    assert not player.isFullScreen()


def test_zooming_the_player_view_stops_the_refit_and_ctrl_0_brings_it_back(
        gm: MainWindow, qtbot: object) -> None:
    player = open_player(gm, (1000, 700))
    player.activateWindow()
    qtbot.waitActive(player)  # type: ignore[attr-defined]
    qtbot.keyClick(player, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)  # type: ignore[attr-defined]
    zoomed = player.view.zoom
    assert not player.view.auto_fit
    player.resize(1600, 1000)
    settle()
    assert player.view.zoom == pytest.approx(zoomed)  # someone chose this zoom: kept
    qtbot.keyClick(player, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)  # type: ignore[attr-defined]
    settle()
    fitted = player.view.zoom
    assert player.view.auto_fit and fitted != pytest.approx(zoomed) and all_in_view(player.view)
    player.resize(900, 600)
    settle()
    assert player.view.zoom < fitted and all_in_view(player.view)


def test_panning_by_hand_also_stops_the_refit(gm: MainWindow, qtbot: object) -> None:
    player = open_player(gm, (1000, 700))
    player.view.setFocus()
    qtbot.keyClick(player.view, Qt.Key.Key_Left)  # type: ignore[attr-defined]
    assert not player.view.auto_fit


def test_the_player_view_brings_the_acting_token_into_view(gm: MainWindow) -> None:
    gm.run(StartCombat())
    player = open_player(gm, (1000, 700))
    view = player.view
    # Zoomed in on the far corner of the map, away from everyone.
    view.set_zoom(2.0)
    corner = gm.session.referee.state.map
    view.centerOn(QPointF(corner.width * CELL, corner.height * CELL))
    settle()
    room = QRectF(view.viewport().rect())
    assert gm.run(EndTurn())
    settle()
    acting = player.order.active
    assert acting is not None and room.contains(on_screen(view, acting))
    assert view.zoom == pytest.approx(2.0)  # panned, not refitted: the zoom was chosen


def test_player_view_names_are_at_least_14_pt_whole_and_on_screen(gm: MainWindow) -> None:
    player = open_player(gm, (1900, 1060))
    tags = player.scene.tags
    assert tags is not None and tags.font.pointSizeF() >= 14
    state = gm.session.referee.state
    boxes = tag_boxes(player)
    assert sorted(name for name, _ in boxes) == sorted(t.name for t in state.tokens.values()
                                                       if not t.hidden)
    room = QRectF(player.view.viewport().rect())
    for name, box in boxes:
        assert tags.metrics.horizontalAdvance(name) <= box.width()  # never "Ser …"
        assert room.contains(box), name  # nothing cut off at the edge
        assert box.height() >= 18  # about 14 pt or more on a 96 dpi screen


def test_speed_rank_tokens_keep_their_names_at_the_fitted_zoom(
        qtbot: object, registry: Registry, speed_rank: Path) -> None:
    win = make_window(qtbot, registry, speed_rank)
    assert win.run(StartCombat())  # the timeline takes its share of the screen
    # (a window smaller than full screen: full screen now draws them at 40 px or more)
    player = open_player(win, (1600, 900))
    view = player.view
    # The fitted map draws tokens too small for the map's own labels ...
    assert view.zoom * CELL < 40
    # ... but every token still has its whole name in a tag on screen.
    boxes = tag_boxes(player)
    assert {name for name, _ in boxes} == {look.name for look in
                                           looks(win.session.referee.state,
                                                 win.session.referee.ruleset, True)
                                           if not look.hidden}
    room = QRectF(view.viewport().rect())
    assert all(room.contains(box) for _, box in boxes)
    assert player.scene.tags is not None and player.scene.tags.isVisible()


def _label_ink(item: TokenItem) -> int:
    """Dark pixels the token item paints in the strip under its disc (its own name tag)."""
    edge = int(item.look.size * CELL)
    image = QImage(3 * edge, edge + 24, QImage.Format.Format_ARGB32)
    image.fill(QColor(255, 255, 255, 0))
    painter = QPainter(image)
    painter.translate(edge, 0)
    item.paint(painter, QStyleOptionGraphicsItem(), None)
    painter.end()
    return sum(1 for y in range(edge + 1, edge + 14) for x in range(image.width())
               if image.pixelColor(x, y).alpha() > 100)


def test_the_player_view_draws_each_name_once(gm: MainWindow) -> None:
    player = open_player(gm, (1200, 800))
    items = list(player.scene.items_by_id.values())
    assert items and all(isinstance(item, TaggedToken) for item in items)
    look = items[0].look
    assert _label_ink(TokenItem(look)) > 0  # the GM's token has its map-sized label ...
    assert _label_ink(TaggedToken(look)) == 0  # ... the player view's leaves it to the tag


def test_the_player_turn_order_is_large_and_never_clipped(
        qtbot: object, registry: Registry, speed_rank: Path) -> None:
    win = make_window(qtbot, registry, speed_rank)
    assert win.run(StartCombat())
    player = open_player(win, (1900, 1060))
    rows = player.order.rows
    assert rows.font().pointSizeF() >= 14 and player.order.title.font().pointSizeF() >= 14
    texts = [rows.item(i).text() for i in range(rows.count())]
    assert any("▶ acting" in text for text in texts)
    # Every row, the bold acting ones included, fits the list's width: nothing elided.
    assert rows.sizeHintForColumn(0) <= rows.viewport().width()
    for i in range(rows.count()):
        assert rows.visualItemRect(rows.item(i)).width() >= rows.sizeHintForColumn(0)


# --- 2. the main window -----------------------------------------------------------------------


def test_the_main_window_opens_on_the_whole_available_screen(
        qtbot: object, registry: Registry, demo: Path) -> None:
    win = MainWindow(registry, Session.open(registry, demo), ask=lambda q: False,
                     tell=lambda text: None)
    qtbot.addWidget(win)  # type: ignore[attr-defined]
    win.place()
    win.show()
    settle()
    screen = win.screen().availableGeometry()
    assert win.isMaximized() or (win.frameGeometry().size().width() >= screen.width() - 2
                                 and win.geometry().height() >= screen.height() * 0.9)


def test_the_main_window_comes_back_where_the_gm_left_it(
        qtbot: object, registry: Registry, demo: Path) -> None:
    first = make_window(qtbot, registry, demo, (700, 520))
    first.move(30, 40)
    settle()
    assert first.close()
    again = MainWindow(registry, Session.open(registry, demo), ask=lambda q: False,
                       tell=lambda text: None)
    qtbot.addWidget(again)  # type: ignore[attr-defined]
    again.place()
    again.show()
    settle()
    assert not again.isMaximized() and (again.width(), again.height()) == (700, 520)


def test_the_gm_map_refits_on_resize_until_the_gm_zooms(gm: MainWindow) -> None:
    small = gm.view.zoom
    gm.resize(1900, 1060)
    settle()
    assert gm.view.zoom > small and all_in_view(gm.view)
    gm.view.zoom_by(1.25)  # View ▸ Zoom In, the wheel: the GM's own zoom
    zoomed = gm.view.zoom
    gm.resize(1280, 800)
    settle()
    assert gm.view.zoom == pytest.approx(zoomed)
    menus = [submenu(m, gm.menuBar()) for m in gm.menuBar().actions()]
    fit = next(a for menu in menus if menu is not None
               for a in menu.actions() if a.text() == "&Fit Encounter")
    assert fit.shortcut().toString() == "Ctrl+0"
    fit.trigger()
    fitted = gm.view.zoom
    gm.resize(1900, 1060)
    settle()
    assert gm.view.zoom > fitted and all_in_view(gm.view)


# --- 3. End turn stays put and has one key -------------------------------------------------------


def test_the_end_turn_button_stays_in_one_place_across_turns(gm: MainWindow) -> None:
    panel = gm.order_panel
    assert panel.end_button.text() == f"End turn ({END_TURN_KEY})"
    gm.run(StartCombat())
    settle()
    places, action_counts = set(), set()
    for _ in range(6):
        places.add(panel.end_button.mapTo(gm, QPoint(0, 0)).toTuple())
        action_counts.add(panel.actions_layout.count())
        assert gm.run(EndTurn())
        settle()
    assert len(action_counts) > 1  # the actions under the list changed ...
    assert len(places) == 1  # ... and the button did not move


def test_the_e_key_ends_the_turn(gm: MainWindow, qtbot: object) -> None:
    gm.run(StartCombat())
    gm.activateWindow()
    qtbot.waitActive(gm)  # type: ignore[attr-defined]
    gm.view.setFocus()
    first = gm.order_panel.active
    qtbot.keyClick(gm.view, Qt.Key.Key_E)  # type: ignore[attr-defined]
    settle()
    assert gm.order_panel.active not in (None, first)
    assert "E" in [k.toString() for k in gm.end_turn_action.shortcuts()]
    assert not gm.end_turn_action.autoRepeat()  # holding E down ends one turn


def test_typing_an_e_in_a_text_field_does_not_end_the_turn(gm: MainWindow,
                                                          qtbot: object) -> None:
    gm.run(StartCombat())
    gm.activateWindow()
    qtbot.waitActive(gm)  # type: ignore[attr-defined]
    gm.roster_dock.raise_()
    field = gm.roster_panel.findChild(QLineEdit)
    assert isinstance(field, QLineEdit)
    field.setFocus()
    first = gm.order_panel.active
    qtbot.keyClicks(field, "ettin")  # type: ignore[attr-defined]
    settle()
    assert field.text() == "ettin" and gm.order_panel.active == first


# --- 4. the status bar never resizes the map -----------------------------------------------------


def test_the_status_bar_is_there_from_the_start_and_keeps_its_height(gm: MainWindow) -> None:
    bar = gm.statusBar()
    assert bar.isVisible()
    height, room = bar.height(), gm.view.viewport().size()
    gm.run(StartCombat())
    gm.view.set_zoom(1.0)
    gm.view.centerOn(QPointF(10 * CELL, 9 * CELL))
    settle()
    room = gm.view.viewport().size()
    # A drag mid-way writes its cost in the status bar: nothing moves.
    drag(gm.view, [(4, 9), (6, 9), (8, 9)], release=False)
    assert bar.currentMessage()
    assert bar.height() == height and gm.view.viewport().size() == room
    gm.view.controller.cancel()  # type: ignore[union-attr]
    bar.showMessage("A refusal that is quite a lot longer than the moves' costs, " * 3)
    settle()
    assert bar.height() == height and gm.view.viewport().size() == room


# --- 5. a file that cannot be opened -------------------------------------------------------------


@pytest.fixture
def boxes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The text of every QMessageBox shown (none blocks)."""
    shown: list[str] = []

    def fake_exec(box: QMessageBox) -> int:
        shown.append(box.text())
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    return shown


def _broken(tmp_path: Path) -> Path:
    path = tmp_path / "broken.tacmap"
    path.write_text('{"format": "tacmap", "vers')
    return path


def test_a_broken_file_without_a_screen_is_said_on_stderr_only(
        qtbot: object, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        boxes: list[str]) -> None:
    assert not ui_app.has_screen()  # the tests run offscreen
    code = cli.main([str(_broken(tmp_path))])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("tacmap: ") and "broken.tacmap" in err
    assert boxes == []


def test_a_broken_file_with_a_screen_is_said_in_a_dialog_too(
        qtbot: object, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        boxes: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ui_app, "has_screen", lambda: True)
    code = cli.main([str(_broken(tmp_path))])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0
    assert len(boxes) == 1 and err == f"tacmap: {boxes[0]}"  # the same sentence


@pytest.mark.parametrize(("env", "seen"), [
    ({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, False),
    ({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}, True),
    ({"QT_QPA_PLATFORM": "wayland", "WAYLAND_DISPLAY": "wayland-0"}, True),
])
def test_has_screen_reads_the_platform_and_the_display(
        monkeypatch: pytest.MonkeyPatch, env: dict[str, str], seen: bool) -> None:
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(ui_app.sys, "platform", "linux")
    assert ui_app.has_screen() is seen


# --- 6. the first-run hint and F1 ----------------------------------------------------------------


def test_the_first_run_hint_lies_on_the_map_until_combat_starts(gm: MainWindow,
                                                               qtbot: object) -> None:
    hint = gm.hint
    assert hint is not None and hint.isVisible() and hint.text() == FIRST_RUN
    assert gm.idle_text.text() == FIRST_RUN and gm.idle_text.isVisible()
    # On the map, whole, and out of the mouse's way.
    assert gm.view.rect().contains(hint.geometry())
    assert hint.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    assert hint.font().pointSizeF() >= 10
    qtbot.mouseClick(gm.order_panel.start_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    settle()
    assert not hint.isVisible() and gm.idle_text.text() != FIRST_RUN


def test_clicks_on_the_hint_reach_the_map(gm: MainWindow) -> None:
    hint = gm.hint
    assert hint is not None
    # What a click at the hint's centre lands on: the map under it, not the hint.
    assert gm.view.childAt(hint.geometry().center()) is gm.view.viewport()


def test_f1_opens_getting_started(gm: MainWindow, qtbot: object) -> None:
    gm.activateWindow()
    qtbot.waitActive(gm)  # type: ignore[attr-defined]
    qtbot.keyClick(gm, Qt.Key.Key_F1)  # type: ignore[attr-defined]
    settle()
    dialog = gm.findChild(QDialog, GETTING_STARTED)
    assert isinstance(dialog, QDialog) and dialog.isVisible()
    dialog.close()
