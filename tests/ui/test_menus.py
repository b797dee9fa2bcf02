"""Every menu item and button of the main window runs: each is wired to something that works.

The menus' wiring lives in window.py and what the items do in the task modules
(files, build, roster, combat, player); this catches an item left pointing at
nothing when code moves between them. Modal dialogs are answered "Cancel".
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tacmap.engine.model.commands import Act, EndTurn, StartCombat
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.app import demo_path
from tacmap.ui.qt import (
    QAction,
    QApplication,
    QDialog,
    QFileDialog,
    QInputDialog,
    QMenu,
    QPushButton,
    submenu,
)
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import shown


def items(menu: QMenu) -> list[QAction]:
    """Every action of ``menu`` and its submenus (filled in as when they open)."""
    menu.aboutToShow.emit()
    out: list[QAction] = []
    for action in menu.actions():
        sub = submenu(action, menu)
        if isinstance(sub, QMenu):
            out += items(sub)
        elif not action.isSeparator():
            out.append(action)
    return out


@pytest.fixture
def cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every modal dialog is cancelled at once."""
    monkeypatch.setattr(QDialog, "exec", lambda self: QDialog.DialogCode.Rejected)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: ("", ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("", False))
    monkeypatch.setattr(QInputDialog, "getDouble", lambda *a, **k: (0.0, False))


def test_every_menu_item_runs(window: MainWindow, cancelled: None) -> None:
    window.select("grul")
    window.ask_tags = lambda name: "orc"
    triggered = []
    for top in window.menuBar().actions():
        menu = submenu(top, window.menuBar())
        assert isinstance(menu, QMenu)
        for action in items(menu):
            if action.text() in ("&Quit", "(none)"):
                continue  # Quit is closing, tested on its own; "(none)" is disabled
            action.trigger()
            QApplication.processEvents()
            triggered.append(action.text().replace("&", ""))
    # Spot checks that the triggers reached their tasks.
    assert window.player is not None and window.player.isVisible()
    assert window.build.form is not None  # Add Combatant opened its form
    assert window.physical_dice  # Roll Physical Dice ticked
    assert len(triggered) >= 40
    assert {"New…", "Undo", "End Turn", "Draw Wall", "Player View",
            "About tacmap"} <= set(triggered)


def test_start_combat_and_end_turn_are_offered_only_when_they_can_run(
        window: MainWindow) -> None:
    # The fixture's window is in combat: Start Combat is greyed, End Turn offered.
    assert not window.start_action.isEnabled() and window.end_turn_action.isEnabled()
    while window.session.referee.log:  # back to before combat
        window.combat.undo()
    assert window.start_action.isEnabled() and not window.end_turn_action.isEnabled()
    assert window.run(StartCombat(("ana", "grul", "bo", "zog")))
    assert not window.start_action.isEnabled() and window.end_turn_action.isEnabled()


def test_quit_closes_the_window(window: MainWindow) -> None:
    file_menu = submenu(window.menuBar().actions()[0], window.menuBar())
    assert isinstance(file_menu, QMenu)
    next(a for a in items(file_menu) if a.text() == "&Quit").trigger()
    assert not window.isVisible()


def test_every_panel_button_runs(window: MainWindow, cancelled: None) -> None:
    window.select("grul")
    window.ask_tags = lambda name: "orc"
    clicked = []
    for button in window.findChildren(QPushButton):
        if button.isEnabled() and button.isVisibleTo(window):
            button.click()
            QApplication.processEvents()
            clicked.append(button.text())
    assert {"End turn (E)", "Save selected", "Import…", "Export…", "Remove"} <= set(clicked)


def test_the_acting_tokens_action_buttons_send_their_commands(qtbot: object,
                                                              registry: Registry,
                                                              tmp_path: Path) -> None:
    path = tmp_path / "demo.tacmap"
    shutil.copy(demo_path(), path)
    win = shown(qtbot, MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                                  tell=lambda text: None), (1280, 800))
    win.order_panel.start_button.click()
    panel = win.order_panel
    buttons = [panel.actions_layout.itemAt(i).widget() for i in range(panel.actions_layout.count())]
    skill = next(b for b in buttons if isinstance(b, QPushButton) and b.text() == "Use a skill…")
    # Issue 22: the skill is asked for before an action is spent; cancelling spends nothing.
    before = len(win.session.referee.log)
    win.ask_words = lambda question, suggested: None
    skill.click()
    assert len(win.session.referee.log) == before
    win.ask_words = lambda question, suggested: "Athletics: climb the wall"
    skill.click()
    assert win.session.referee.log[-1].command == Act(panel.active or "", "skill", "",
                                                      "Athletics: climb the wall")


def test_open_demo_lists_each_rulesets_demo_and_opens_it_untitled(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    path = tmp_path / "fight.tacmap"
    shutil.copy(demo_path(), path)
    window = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                        tell=lambda t: None)
    qtbot.addWidget(window)  # type: ignore[attr-defined]
    window.files.fill_demos(window.demo_menu)
    entries = {a.text(): a for a in window.demo_menu.actions()}
    assert any(text.startswith("Speed Rank") for text in entries), list(entries)
    assert any(text.startswith("Action Pool") for text in entries), list(entries)
    speed = next(a for text, a in entries.items() if text.startswith("Speed Rank"))
    speed.trigger()
    assert window.session.referee.state.ruleset == "speed_rank"
    assert window.session.path is None  # untitled: Save asks where, the demo stays as shipped


def test_before_combat_the_actions_panel_offers_the_selected_tokens_set_up(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    path = tmp_path / "surprise.tacmap"
    shutil.copy(demo_path().with_name("opposed_demo.tacmap"), path)
    window = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                        tell=lambda t: None)
    shown(qtbot, window, (1300, 850))
    state = window.session.referee.state
    kara, lio = state.tokens["kara"], next(t for t in state.tokens.values() if t.id != "kara")
    window.select(kara.id)
    labels = [window.order_panel.actions_layout.itemAt(i).widget().text()
              for i in range(window.order_panel.actions_layout.count())]
    assert any(text.startswith("Surprise round") for text in labels), labels
    assert window.order_panel.actions_box.title() == f"Actions — {kara.name}"
    # The button arms the map; clicking the token it is for marks it, through the referee.
    window.order_panel.take(next(o for o in registry.get("opposed").actions_for(state, kara.id)
                                 if o.label.startswith("Surprise round")))
    before = len(window.session.referee.log)
    window.combat.token_clicked(lio.id)
    assert window.combat.odds_card is not None
    window.combat.odds_card.accept()
    assert len(window.session.referee.log) == before + 1


def test_an_action_that_asks_for_words_takes_the_gms_sentence(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    path = tmp_path / "hold.tacmap"
    shutil.copy(demo_path().with_name("opposed_demo.tacmap"), path)
    window = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                        tell=lambda t: None)
    shown(qtbot, window, (1300, 850))
    referee = window.session.referee
    referee.execute(StartCombat())
    while referee.state.schedule is not None and getattr(referee.state.schedule, "surprise",
                                                         False):
        referee.execute(EndTurn())
    window.refresh()
    actor = window.order_panel.active
    assert actor is not None
    hold = next(o for o in referee.ruleset.actions_for(referee.state, actor)
                if o.label.startswith("Hold the turn until…"))
    asked: list[str] = []

    def answer(words: str | None) -> None:
        window.ask_words = lambda question, suggested: asked.append(question) or words

    answer(None)  # Cancel: nothing is sent
    before = len(referee.log)
    window.order_panel.take(hold)
    assert len(referee.log) == before and asked
    answer("later")  # too vague: refused in one sentence, nothing changes
    window.order_panel.take(hold)
    assert len(referee.log) == before
    assert "Refused" in window.statusBar().currentMessage()
    answer("I wait until the ogre steps through the door.")
    window.order_panel.take(hold)
    assert len(referee.log) == before + 1
    rows = referee.ruleset.turn_order(referee.state).rows
    assert any("the ogre steps through the door" in r.detail for r in rows)


def test_every_dock_closed_with_its_cross_comes_back_from_the_view_menu(
        window: MainWindow) -> None:
    """The Roster dock had no View entry: closed with its ✕, only a right-click on the
    toolbar brought it back."""
    from tacmap.ui.qt import QDockWidget, submenu

    view_menu = next(submenu(a, window) for a in window.menuBar().actions()
                     if a.text().replace("&", "") == "View")
    assert view_menu is not None
    offered = {a.text() for a in view_menu.actions()}
    closable = [d for d in window.findChildren(QDockWidget)
                if d.features() & QDockWidget.DockWidgetFeature.DockWidgetClosable
                and d.windowTitle() != "Forecast"]  # Combat ▸ Forecast opens that one
    assert closable and all(d.windowTitle() in offered for d in closable), \
        [d.windowTitle() for d in closable if d.windowTitle() not in offered]
    window.roster_dock.close()
    next(a for a in view_menu.actions() if a.text() == "Roster").trigger()
    assert window.roster_dock.isVisible()
