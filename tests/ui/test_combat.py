"""A whole round of the demo played by clicks alone, then undo, redo, save and reopen."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import AddToken, Attack, EndTurn
from tacmap.engine.model.events import DiceRolled, HpChanged, ValueChanged
from tacmap.engine.model.state import Token
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.app import demo_path
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import QApplication, QPointF, Qt
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import drag, shown

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def open_window(qtbot: object, registry: Registry, path: Path) -> MainWindow:
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=lambda text: None)
    return shown(qtbot, win, (1280, 800), (10, 9))


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    path = tmp_path / "demo.tacmap"
    shutil.copy(demo_path(), path)
    return path


@pytest.fixture
def window(qtbot: object, registry: Registry, demo: Path) -> Iterator[MainWindow]:
    yield open_window(qtbot, registry, demo)


def click(qtbot: object, widget: object) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    QApplication.processEvents()


def click_token(win: MainWindow, token_id: str) -> None:
    t = win.session.referee.state.tokens[token_id]
    win.view.centerOn(QPointF((t.x + 0.5) * CELL, (t.y + 0.5) * CELL))
    drag(win.view, [(t.x, t.y)])


def rows(win: MainWindow) -> list[str]:
    return [win.order_panel.rows.item(i).text() for i in range(win.order_panel.rows.count())]


def test_a_full_round_by_clicks(window: MainWindow, qtbot: object, registry: Registry,
                                demo: Path) -> None:
    ref = window.session.referee
    click(qtbot, window.order_panel.start_button)
    assert ref.state.round == 1 and "▶ acting" in rows(window)[0]

    # Ser Aldric walks to the gate: 9 m in heavy armour takes both move actions.
    window.view.centerOn(QPointF(9 * CELL, 9 * CELL))
    drag(window.view, [(4, 9), (8, 9), (13, 9)])
    assert ref.state.tokens["aldric"].cell == (13, 9)
    click(qtbot, window.order_panel.end_button)
    assert "▶ acting" in rows(window)[1]  # Barry's turn

    # Barry: select him, click Aldric; the odds card shows before anything is rolled.
    click_token(window, "barry")
    assert window.actor == "barry"
    pool_before = ref.state.tokens["barry"].values["pool"]
    drawn = ref.state.dice_drawn
    click_token(window, "aldric")
    card = window.odds_card
    assert card is not None and card.isVisible()
    assert "Chance to succeed" in card.summary.text() and card.plot is not None
    assert ref.state.dice_drawn == drawn  # previewing rolls nothing
    click(qtbot, card.confirm_button)
    entry = ref.log[-1]
    assert entry.command == Attack("barry", "aldric")
    rolled = [e for e in entry.events if isinstance(e, DiceRolled)]
    assert rolled and len(rolled[0].roll.faces) == pool_before
    pool_after = ref.state.tokens["barry"].values["pool"]
    assert pool_after < pool_before or all(f >= 4 for f in rolled[0].roll.faces)
    # The pool panel shows Barry's faces, in the order rolled.
    shown = {pool.token: pool for pool, _ in window.pool_panel.rows()}
    assert shown["barry"].faces == rolled[0].roll.faces

    click(qtbot, window.order_panel.end_button)
    refill = [e for e in ref.log[-1].events if isinstance(e, ValueChanged) and e.key == "pool"]
    assert refill and refill[0].new > refill[0].old  # CON dice back at the end of the turn

    # Everyone else passes; the round turns over.
    while ref.state.round == 1:
        click(qtbot, window.order_panel.end_button)
    assert ref.state.round == 2
    lines = window.log_panel.visible_text()
    assert "round 2 begins" in lines and "Barry the Guard rolls" in lines

    # Undo back into round 1, redo: the same events, no dice rolled again.
    last = ref.log[-1]
    window.undo_action.trigger()
    assert ref.state.round == 1
    window.redo_action.trigger()
    assert ref.state.round == 2 and ref.log[-1] == last

    # Save, reopen, find the same state.
    window.save()
    state = ref.state
    again = open_window(qtbot, registry, demo)
    assert again.session.referee.state == state
    assert len(again.session.referee.log) == len(ref.log)


def test_physical_dice_are_asked_for_when_the_roll_is_needed(window: MainWindow,
                                                              qtbot: object) -> None:
    ref = window.session.referee
    click(qtbot, window.order_panel.start_button)
    ref.execute(EndTurn())  # Barry's turn; put him beside Aldric as a GM would
    window.run(AddToken(Token("dummy", "Dummy", "heroes", 15, 9, hp=5, max_hp=5,
                              stats={"ac": 1, "con": 1, "str": 1, "dex": 1,
                                     "weapon": "club", "proficiency": {"club": 0}})))
    asked: list[tuple[int, int, str]] = []

    def faces(count: int, sides: int, why: str) -> list[int]:
        asked.append((count, sides, why))
        return [6] * count

    window.ask_dice = lambda plan: plan.answer(faces)
    window.dice_action.trigger()
    assert window.physical_dice
    window.select("barry")
    window.token_clicked("dummy")
    assert window.odds_card is not None
    click(qtbot, window.odds_card.confirm_button)
    assert asked and asked[0][1] == 6
    rolled = [e for e in ref.log[-1].events if isinstance(e, DiceRolled)]
    assert all(f == 6 for e in rolled for f in e.roll.faces)
    assert any(isinstance(e, HpChanged) and e.token == "dummy" for e in ref.log[-1].events)


def test_the_log_filters_by_token_and_copies(window: MainWindow, qtbot: object) -> None:
    click(qtbot, window.order_panel.start_button)
    click(qtbot, window.order_panel.end_button)
    log = window.log_panel
    everyone = log.visible_text()
    log.filter.setCurrentIndex(log.filter.findData("wren"))
    only = log.visible_text()
    assert "Wren" in only and len(only) < len(everyone)
    assert "Mott pool" not in only
    log.copy()
    assert QApplication.clipboard().text() == only


def test_the_player_view_never_shows_hidden_tokens_or_enemy_hp(window: MainWindow,
                                                                qtbot: object) -> None:
    window.run(AddToken(Token("ambush", "Ambusher", "bandits", 20, 15, hp=9, max_hp=9,
                              hidden=True, stats={"ac": 1, "con": 1, "str": 1, "dex": 1,
                                                  "weapon": "club",
                                                  "proficiency": {"club": 0}})))
    click(qtbot, window.order_panel.start_button)
    window.show_player_view()
    player = window.player
    assert player is not None
    QApplication.processEvents()
    assert "ambush" not in player.scene.items_by_id
    assert "ambush" in window.scene.items_by_id  # the GM still sees it
    party = {"aldric", "wren", "tam"}
    for tid, item in player.scene.items_by_id.items():
        if tid not in party:
            assert item.look.max_hp == 0 and item.look.hp == 0
            assert str(window.session.referee.state.tokens[tid].hp) not in item.look.tooltip
    texts = [player.order.rows.item(i).text() for i in range(player.order.rows.count())]
    assert not any("Ambusher" in t for t in texts)
    assert not any("pool" in t for t in texts)  # GM detail stays with the GM


def test_the_speed_rank_timeline_advances_with_the_phases(qtbot: object, registry: Registry,
                                                         tmp_path: Path) -> None:
    path = tmp_path / "three.tacmap"
    shutil.copy(RESOURCES / "speed_rank_demo.tacmap", path)
    win = open_window(qtbot, registry, path)
    assert not win.timeline_dock.isVisibleTo(win) or win.timeline_panel.current is None
    click(qtbot, win.order_panel.start_button)
    assert win.timeline_dock.isVisibleTo(win)
    phases = []
    for _ in range(4):
        phases.append(win.timeline_panel.current)
        click(qtbot, win.order_panel.end_button)
    assert phases[0] is not None
    assert phases == sorted(phases) and phases[-1] is not None and phases[-1] > phases[0]


def test_an_action_pool_encounter_has_no_timeline(window: MainWindow) -> None:
    assert not window.timeline_dock.isVisibleTo(window)


def test_saved_and_reopened_files_keep_hidden_flags(window: MainWindow, demo: Path,
                                                    registry: Registry) -> None:
    window.run(AddToken(Token("ghost", "Ghost", "bandits", 1, 1, hidden=True,
                              stats={"ac": 1, "con": 1, "str": 1, "dex": 1, "weapon": "club",
                                     "proficiency": {"club": 0}})))
    window.save()
    assert storage.load(demo, registry).state.tokens["ghost"].hidden
