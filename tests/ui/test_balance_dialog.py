"""Build ▸ Balance Encounter (issue 39): a target, proposals searched in a worker process,
the one picked sent as one command the GM can undo."""

from __future__ import annotations

import shutil
from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.model.commands import Rebalance
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.app import demo_path
from tacmap.ui.balance_dialog import BalanceDialog
from tacmap.ui.qt import submenu
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import shown


def open_dialog(qtbot: object, registry: Registry, tmp_path: Path) -> tuple[MainWindow,
                                                                           BalanceDialog]:
    path = tmp_path / "demo.tacmap"
    shutil.copy(demo_path(), path)
    win = shown(qtbot, MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                                  tell=lambda text: None), (1280, 800))
    build = next(submenu(a, win) for a in win.menuBar().actions() if a.text() == "&Build")
    assert build is not None
    entry = next(a for a in build.actions() if a.text() == "&Balance Encounter…")
    entry.trigger()
    dialog = win.balance_dialog
    return win, dialog


def test_a_proposal_found_beside_the_window_is_applied_and_undone_as_one(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    win, dialog = open_dialog(qtbot, registry, tmp_path)
    assert dialog.target.text() == "heroes win 75%" and dialog.side.currentText() == "bandits"
    before = storage.encode(win.session.referee.state, [])
    dialog.sizes = (6, 12, 1)  # a quick search: the steps as written, few fights
    dialog.find_button.click()
    assert dialog.worker is not None and dialog.worker.alive()  # not the window's process
    qtbot.waitUntil(lambda: dialog.list.count() > 0, timeout=120000)  # type: ignore[attr-defined]
    assert storage.encode(win.session.referee.state, []) == before, "nothing changes yet"
    first = dialog.list.item(0).text()
    assert first.startswith("1. ") and "heroes" in first and "% to win" in first
    assert dialog.apply.isEnabled()
    dialog.apply.click()
    entry = win.session.referee.log[-1]
    assert isinstance(entry.command, Rebalance)
    assert not dialog.isVisible()
    win.session.referee.undo()
    assert storage.encode(win.session.referee.state, []) == before
    dialog.stop()


def test_a_target_it_cannot_read_is_said_and_nothing_runs(qtbot: object, registry: Registry,
                                                          tmp_path: Path) -> None:
    _win, dialog = open_dialog(qtbot, registry, tmp_path)
    dialog.target.setText("heroes should mostly win")
    dialog.find_button.click()
    assert dialog.status.text().startswith('a target reads like "party wins 75%"')
    assert dialog.worker is None and not dialog.apply.isEnabled()
    dialog.close()


def test_roster_words_and_the_policy_reach_the_search(qtbot: object, registry: Registry,
                                                     tmp_path: Path,
                                                     monkeypatch: object) -> None:
    from tacmap.engine.files.roster import Roster
    from tacmap.engine.model.state import Token

    monkeypatch.setenv("TACMAP_HOME", str(tmp_path))  # type: ignore[attr-defined]
    _win, dialog = open_dialog(qtbot, registry, tmp_path)
    with Roster(tmp_path / "roster.sqlite3") as roster:
        roster.add("action_pool", Token("ogre", "Ogre", "monsters", 0, 0, hp=40, max_hp=40),
                   ["brute"])
    dialog.roster.setText("dragon")
    dialog.find_button.click()
    assert dialog.status.text() == ("the roster has no action_pool combatant whose name or "
                                    "tags hold 'dragon'")
    assert dialog.worker is None
    dialog.roster.setText("brute")
    dialog.policy.setCurrentIndex(1)
    assert dialog._pool()[0].name == "Ogre"
    dialog.find_button.click()
    assert "the autopilot playing" in dialog.status.text()
    worker = dialog.worker
    assert worker is not None and worker.alive()
    dialog.close()
    assert not worker.alive(), "closing the dialog ends its search"
