"""Issue 12, at the table: what the GM notices while running a fight on the demo maps."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.model.commands import (
    AddToken,
    Attack,
    EndTurn,
    FreeMove,
    Move,
    SetHp,
    StartCombat,
)
from tacmap.engine.model.state import Token
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.app import demo_path
from tacmap.ui.map.look import looks
from tacmap.ui.map.scene import FloatingText, place_labels
from tacmap.ui.map.token_item import CELL, HIDDEN_OPACITY, NAME_FONT, TokenItem
from tacmap.ui.panels import log as log_module
from tacmap.ui.qt import (
    QApplication,
    QEnterEvent,
    QEvent,
    QFontMetricsF,
    QHelpEvent,
    QMouseEvent,
    QPoint,
    QPointF,
    QPushButton,
    Qt,
    QToolTip,
)
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import drag, point, shown

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
CLUB = {"ac": 1, "con": 1, "str": 1, "dex": 1, "weapon": "club", "proficiency": {"club": 0}}


def open_copy(qtbot: object, registry: Registry, source: Path, tmp_path: Path,
              centre: tuple[float, float] = (8, 9)) -> MainWindow:
    path = tmp_path / source.name
    shutil.copy(source, path)
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=lambda text: None)
    return shown(qtbot, win, (1280, 800), centre)


@pytest.fixture
def demo(qtbot: object, registry: Registry, tmp_path: Path) -> Iterator[MainWindow]:
    """The action_pool demo, combat started: Ser Aldric (4, 9) acts first."""
    win = open_copy(qtbot, registry, demo_path(), tmp_path)
    win.run(StartCombat())
    QApplication.processEvents()
    yield win


def status(win: MainWindow) -> str:
    return win.statusBar().currentMessage()


def mouse(win: MainWindow, kind: QEvent.Type, at: QPoint,
          button: Qt.MouseButton = Qt.MouseButton.NoButton) -> None:
    viewport = win.view.viewport()
    event = QMouseEvent(kind, QPointF(at), QPointF(viewport.mapToGlobal(at)), button, button,
                        Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, event)
    QApplication.processEvents()


def floats(win: MainWindow) -> list[str]:
    return [item.text() for item in win.scene.items() if isinstance(item, FloatingText)]


# --- 1. hovering the token next to the acting one -------------------------------------------


def test_hovering_the_acting_tokens_neighbour_shows_the_neighbours_tooltip_and_reach(
        demo: MainWindow) -> None:
    demo.run(FreeMove("wren", (5, 9)))  # Wren beside Ser Aldric, whose turn it is
    demo.view.centerOn(QPointF(5 * CELL, 9 * CELL))
    QApplication.processEvents()
    at = point(demo.view, (5, 9))
    mouse(demo, QEvent.Type.MouseMove, at)
    wren, aldric = demo.scene.items_by_id["wren"], demo.scene.items_by_id["aldric"]
    assert wren.hovered and not aldric.hovered
    viewport = demo.view.viewport()
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, at, viewport.mapToGlobal(at)))
    assert QToolTip.text().startswith("Wren (heroes)")
    state = demo.session.referee.state
    reach = {(round(r.x() / CELL), round(r.y() / CELL)) for r in demo.scene.reach_item.zone}
    assert reach == set(demo.scene.reach_cells(state.tokens["wren"]))
    assert reach != set(demo.scene.reach_cells(state.tokens["aldric"]))


def test_a_token_takes_hovers_and_clicks_on_its_own_cells_only(demo: MainWindow) -> None:
    demo.run(FreeMove("wren", (5, 9)))
    aldric = demo.scene.items_by_id["aldric"]
    shape = aldric.mapToScene(aldric.shape())
    for dx, dy in ((0.05, 0.05), (0.5, 0.5), (0.95, 0.95)):
        assert shape.contains(QPointF((4 + dx) * CELL, (9 + dy) * CELL))
    # Not Wren's cell, though Ser Aldric's full name tag runs under it.
    assert not shape.contains(QPointF(5.5 * CELL, 9.5 * CELL))
    assert aldric.sceneBoundingRect().contains(QPointF(5.5 * CELL, 10.05 * CELL))
    under = [i for i in demo.scene.items(QPointF(5.5 * CELL, 9.5 * CELL))
             if isinstance(i, TokenItem)]
    assert [i.token_id for i in under] == ["wren"]


# --- 2. hidden tokens on the GM's map --------------------------------------------------------


def test_a_hidden_token_is_dimmed_and_dashed_on_the_gm_map_and_absent_for_players(
        demo: MainWindow) -> None:
    demo.run(AddToken(Token("ambush", "Ambusher", "bandits", 10, 8, hp=9, max_hp=9,
                            hidden=True, stats=CLUB)))
    hidden, seen = demo.scene.items_by_id["ambush"], demo.scene.items_by_id["barry"]
    assert hidden.opacity() == HIDDEN_OPACITY < 1 and seen.opacity() == 1
    assert hidden.outline_pen().style() in (Qt.PenStyle.DashLine, Qt.PenStyle.CustomDashLine)
    assert seen.outline_pen().style() == Qt.PenStyle.SolidLine
    demo.show_player_view()
    assert demo.player is not None and "ambush" not in demo.player.scene.items_by_id


# --- 3. reactions and refusals ----------------------------------------------------------------


def test_an_opportunity_attack_floats_over_the_reacting_token_and_is_told(
        demo: MainWindow) -> None:
    demo.run(FreeMove("mott", (4, 10)))  # Mott (Opportunist) right under Ser Aldric
    demo.view.centerOn(QPointF(4 * CELL, 8 * CELL))
    QApplication.processEvents()
    drag(demo.view, [(4, 9), (4, 8), (4, 7)])  # out of Mott's reach
    assert demo.session.referee.state.tokens["aldric"].cell == (4, 7)
    assert "Mott reacts with Opportunist" in status(demo)
    assert "Opportunist!" in floats(demo)


def test_a_riposte_is_told_in_the_status_bar(demo: MainWindow) -> None:
    demo.run(FreeMove("aldric", (13, 9)))  # beside Barry, who ripostes
    demo.select("aldric")
    demo.token_clicked("barry")
    card = demo.odds_card
    assert card is not None
    card.confirm_button.click()
    QApplication.processEvents()
    assert status(demo).startswith("Barry the Guard reacts with Riposte")
    assert "Riposte!" in floats(demo)


def test_a_greyed_menu_item_gives_its_reason_as_tooltip_and_in_the_status_bar(
        demo: MainWindow) -> None:
    demo.select("wren")  # not her turn: everything she could do to Barry is greyed
    menu = demo.combat.build_token_menu("barry")
    assert menu.toolTipsVisible()
    greyed = [a for a in menu.actions() if not a.isEnabled() and not a.isSeparator()]
    assert greyed
    options = {o.label: o for o in demo.combat.aimed_options("wren", "barry")}
    for action in greyed:
        reason = options[action.text().removeprefix("Wren: ")].reason
        assert reason and action.toolTip() == reason
    menu.popup(QPoint(100, 100))
    QApplication.processEvents()
    centre = menu.actionGeometry(greyed[0]).center()
    move = QMouseEvent(QEvent.Type.MouseMove, QPointF(centre), QPointF(menu.mapToGlobal(centre)),
                       Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(menu, move)
    assert status(demo) == greyed[0].toolTip() == "it is Ser Aldric's turn"
    menu.close()


def test_a_greyed_action_button_says_why_when_hovered(demo: MainWindow) -> None:
    demo.run(Move("aldric", ((4, 8),)))  # one action spent: the whole-turn action greys out
    QApplication.processEvents()  # the new buttons show
    buttons = demo.order_panel.actions_box.findChildren(QPushButton)
    long = next(b for b in buttons if b.isVisible() and b.text().startswith("Long"))
    assert not long.isEnabled()
    assert long.toolTip() == long.statusTip() == "needs 2 actions, 1 left"
    at = QPointF(5, 5)
    # Laid out under a resting pointer as the turn changes, it leaves the turn's line be.
    demo.statusBar().showMessage("Round 1: Ser Aldric to act")
    QApplication.sendEvent(long, QEnterEvent(at, at, QPointF(long.mapToGlobal(QPoint(5, 5)))))
    assert status(demo) == "Round 1: Ser Aldric to act"
    # Pointed at, it says why.
    QApplication.sendEvent(long, QMouseEvent(QEvent.Type.MouseMove, at,
                                             QPointF(long.mapToGlobal(QPoint(5, 5))),
                                             Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                                             Qt.KeyboardModifier.NoModifier))
    assert status(demo) == "needs 2 actions, 1 left"


def test_speed_rank_clicking_an_enemy_you_cannot_attack_says_why_and_keeps_the_selection(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    win = open_copy(qtbot, registry, RESOURCES / "speed_rank_demo.tacmap", tmp_path, (10, 10))
    win.order_panel.start_button.click()
    QApplication.processEvents()
    state, ruleset = win.session.referee.state, win.session.referee.ruleset
    order = ruleset.turn_order(state)
    assert order is not None
    acting = next(r.id for r in order.rows if r.state == "acting" and r.id in state.tokens)
    enemy = next(t.id for t in state.tokens.values() if t.side != state.tokens[acting].side)
    attack = next(o for o in ruleset.actions_for(state, acting) if o.key == "attack")
    assert not attack.enabled  # phase S: nobody strikes yet
    win.select(acting)
    win.token_clicked(enemy)
    assert win.actor == acting and win.odds_card is None
    name, target = state.tokens[acting].name, state.tokens[enemy].name
    assert status(win) == f"{name} cannot attack {target}: {attack.reason}"
    assert f"✗ {attack.label}" in floats(win)


def test_an_enemy_out_of_reach_is_refused_without_an_odds_card(demo: MainWindow) -> None:
    demo.select("aldric")
    demo.token_clicked("barry")  # ten metres off
    assert demo.odds_card is None and demo.actor == "aldric"
    assert status(demo).startswith("Ser Aldric cannot attack Barry the Guard: Barry the Guard is")


def test_clicking_the_next_to_act_selects_them(demo: MainWindow) -> None:
    demo.select("aldric")
    demo.run(EndTurn())
    demo.token_clicked("barry")  # Barry's turn now: a click picks him, no refusal
    assert demo.actor == "barry"


# --- 4. the log speaks in sentences, and wraps --------------------------------------------------


def headings(win: MainWindow) -> list[str]:
    model = win.log_panel.model
    return [model.line(r)[1] for r in range(model.rowCount()) if model.line(r)[0]]


def test_the_next_command_takes_the_last_ones_words_away(demo: MainWindow) -> None:
    """After a move and then an attack, the status bar still said "Kara moves 2 m"."""
    drag(demo.view, [(4, 9), (6, 9)])
    assert status(demo).startswith("Ser Aldric moves")
    assert demo.run(SetHp("barry", 4))
    assert "moves" not in status(demo)


def test_ctrl_y_redoes_as_ctrl_shift_z_does(demo: MainWindow, qtbot: object) -> None:
    """Ctrl+Y is the redo key of many programs; on Linux Qt gives Redo Ctrl+Shift+Z only."""
    demo.run(FreeMove("barry", (7, 9)))
    demo.activateWindow()
    control = Qt.KeyboardModifier.ControlModifier
    qtbot.keyClick(demo.view, Qt.Key.Key_Z, control)  # type: ignore[attr-defined]
    assert status(demo) == "Undone: GM moves Barry the Guard to (7, 9)"
    qtbot.keyClick(demo.view, Qt.Key.Key_Y, control)  # type: ignore[attr-defined]
    assert status(demo) == "Redone: GM moves Barry the Guard to (7, 9)"
    assert demo.session.referee.state.tokens["barry"].cell == (7, 9)


def test_log_headings_and_undo_messages_are_sentences(demo: MainWindow) -> None:
    drag(demo.view, [(4, 9), (6, 9)])
    demo.run(FreeMove("barry", (7, 9)))
    demo.undo_action.trigger()
    assert status(demo) == "Undone: GM moves Barry the Guard to (7, 9)"
    demo.redo_action.trigger()
    assert status(demo) == "Redone: GM moves Barry the Guard to (7, 9)"
    demo.run(SetHp("barry", 4))
    assert headings(demo) == ["1. Combat starts", "2. Ser Aldric moves to (6, 9)",
                              "3. GM moves Barry the Guard to (7, 9)",
                              "4. GM sets Barry the Guard's hit points to 4"]
    text = demo.log_panel.visible_text()
    assert "actor=" not in text and "move actor" not in text


def test_a_refused_command_is_a_sentence_too(demo: MainWindow) -> None:
    demo.run(Attack("aldric", "barry"))
    assert status(demo).startswith("Refused: Ser Aldric attacks Barry the Guard — ")


def test_the_log_wraps_long_lines_in_its_dock(demo: MainWindow) -> None:
    demo.log_dock.raise_()
    demo.run(FreeMove("aldric", (13, 9)))
    demo.select("aldric")
    demo.token_clicked("barry")
    assert demo.odds_card is not None
    demo.odds_card.confirm_button.click()
    QApplication.processEvents()
    view = demo.log_panel.lines
    assert view.isVisible()
    assert view.horizontalScrollBar().maximum() == 0
    model = view.model()
    longest = max(range(model.rowCount()), key=lambda r: len(str(model.data(model.index(r, 0)))))
    text = str(model.data(model.index(longest, 0)))
    width = view.viewport().width()
    assert view.fontMetrics().horizontalAdvance(text) > width  # too long for one line …
    index = model.index(longest, 0)
    view.scrollTo(index)
    QApplication.processEvents()
    rect = view.visualRect(index)
    assert rect.height() >= 2 * view.fontMetrics().lineSpacing()  # … so it wraps
    assert rect.width() <= width


def test_a_long_log_holds_a_window_and_fetches_older_entries_at_the_top(
        demo: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_module, "WINDOW", 5)
    for i in range(12):
        demo.run(FreeMove("pip", (18, 5 + i % 2)))
    log = demo.log_panel
    log.show_log(demo.session.referee.state, demo.session.referee.log)
    model = log.model
    assert {i for i, _ in model.rows} == set(range(8, 13))  # the newest five entries
    assert log.visible_text().count("GM moves Pip") == 12  # all of it is there
    log.lines.verticalScrollBar().setValue(0)
    QApplication.processEvents()
    assert {i for i, _ in model.rows} == set(range(3, 13))
    demo.run(FreeMove("pip", (18, 7)))
    log.lines.scrollToBottom()
    demo.run(FreeMove("pip", (18, 8)))
    assert headings(demo)[-1] == "15. GM moves Pip to (18, 8)"
    demo.undo_action.trigger()
    assert headings(demo)[-1] == "14. GM moves Pip to (18, 7)"


def test_the_log_filter_keeps_the_tokens_lines(demo: MainWindow) -> None:
    demo.run(FreeMove("pip", (18, 6)))
    demo.run(FreeMove("barry", (14, 8)))
    log = demo.log_panel
    log.filter.setCurrentIndex(log.filter.findData("pip"))
    # Combat starting filled Pip's pool: it is about Pip too; Barry's move is not.
    assert headings(demo) == ["1. Combat starts", "2. GM moves Pip to (18, 6)"]
    assert all("Pip" in text for text in log.visible_text().splitlines()[1:])


# --- 5. names in full; no pile of tags under a drag ---------------------------------------------


def test_names_are_shown_in_full_at_the_default_zoom(qtbot: object, registry: Registry,
                                                     tmp_path: Path) -> None:
    win = open_copy(qtbot, registry, RESOURCES / "speed_rank_demo.tacmap", tmp_path)
    win.view.fit()
    metrics = QFontMetricsF(NAME_FONT)
    for item in win.scene.items_by_id.values():
        assert item.label_full, item.look.name
        room = item.label_rect().width() - 8  # what _label elides to
        assert metrics.horizontalAdvance(item.look.name) <= room, item.look.name


def test_neighbours_tags_go_above_and_below_instead_of_overlapping(demo: MainWindow) -> None:
    demo.run(FreeMove("wren", (5, 9)))  # beside Ser Aldric, who acts
    aldric, wren = demo.scene.items_by_id["aldric"], demo.scene.items_by_id["wren"]
    assert aldric.label_full and wren.label_full
    assert aldric.label_above != wren.label_above
    a = aldric.mapRectToScene(aldric.label_rect())
    w = wren.mapRectToScene(wren.label_rect())
    assert not a.intersects(w)


def test_place_labels_cuts_a_name_short_only_when_boxed_in(demo: MainWindow) -> None:
    state = copy.deepcopy(demo.session.referee.state)
    for tid, cell in (("wren", (3, 9)), ("tam", (5, 9)), ("barry", (4, 8)), ("mott", (4, 10))):
        state.tokens[tid].x, state.tokens[tid].y = cell
    placed = place_labels(looks(state, demo.session.referee.ruleset))
    assert placed["aldric"] == (False, True)  # the acting token keeps its whole name
    assert placed["wren"] == (True, True)  # "Wren" fits over her, beside Barry's bottom
    assert placed["tam"] == (True, False)  # boxed in: cut to his own width, over him
    assert placed["pip"] == (False, True)  # alone: under it, in full


def test_a_drag_fades_the_tags_it_passes_over(demo: MainWindow) -> None:
    demo.run(FreeMove("tam", (6, 8)))
    tam = demo.scene.items_by_id["tam"]
    assert not tam.label_above
    drag(demo.view, [(4, 9), (5, 9), (6, 9), (7, 9)], release=False)
    assert tam.label_faded  # Brother Tam's tag hangs into the path's cells
    assert not demo.scene.items_by_id["grell"].label_faded
    drag(demo.view, [(4, 9)], release=True)  # back where it started: nothing moves
    assert not tam.label_faded
