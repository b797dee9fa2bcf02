"""Issue 26 in the window, opposed: the odds card's choice of a critical's dice, the GM's
one click against a held turn's condition, and the drag label's attack of opportunity."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import Act, StartCombat
from tacmap.engine.model.state import MapSpec, Token
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.map.layers import DragOverlay
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.qt import QApplication, QPushButton
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import drag, shown


@pytest.fixture
def duel(qtbot: object, registry: Registry, tmp_path: Path) -> Iterator[MainWindow]:
    """Ana (weapon Novice SL 1, Combat Form Expert SL 7) beside Brak; Ana's turn."""
    rules = registry.get("opposed")
    state = rules.new_encounter("Duel", seed=1)
    state.map = MapSpec(12, 8)
    for t in (Token("ana", "Ana", "party", 4, 3, hp=20, max_hp=20,
                    stats={"weapon_sl": 1, "form_sl": 7}),
              Token("brak", "Brak", "foes", 5, 3, hp=20, max_hp=20, stats={"defense_sl": 0})):
        state.tokens[t.id] = t
    path = tmp_path / "duel.tacmap"
    storage.save(path, state, [])
    session = Session.open(registry, path)
    session.referee.execute(StartCombat(("ana", "brak")))
    win = MainWindow(registry, session, ask=lambda question: False, tell=lambda text: None)
    yield shown(qtbot, win, (1100, 750), (5, 3))


def button(win: MainWindow, starts: str) -> QPushButton:
    layout = win.order_panel.actions_layout
    for i in range(layout.count()):
        item = layout.itemAt(i)
        widget = item.widget() if item is not None else None
        if isinstance(widget, QPushButton) and widget.text().startswith(starts):
            return widget
    raise AssertionError(f"no button {starts!r}")


def test_the_odds_card_lets_the_attacker_pick_the_criticals_dice(duel: MainWindow) -> None:
    # "the attacker may roll the damage dice ... of the next whole skill tier"
    win = duel
    button(win, "Attack (sword)").click()
    win.combat.token_clicked("brak")
    card = win.combat.odds_card
    assert isinstance(card, OddsCard)
    (box,) = card.choice_boxes
    assert [box.itemText(i) for i in range(box.count())] == ["next-tier dice (2d8)",
                                                             "normal dice (2d10)"]
    assert box.currentText() == "normal dice (2d10)"  # the better: mean 18 against 16
    kept = card.summary.text()
    assert "a critical may roll the next tier's 2d8 (mean 16) or the normal 2d10 (mean 18)" \
        in kept
    box.setCurrentText("next-tier dice (2d8)")
    assert card.summary.text() != kept
    assert card.preview.odds is not None
    card.accept()
    QApplication.processEvents()
    sent = win.session.referee.log[-1].command
    assert sent == Act("ana", "strike", "brak", "next-tier dice (2d8)")


def test_the_gm_rejects_a_held_turns_condition_with_one_click(duel: MainWindow) -> None:
    win = duel
    referee = win.session.referee
    referee.execute(Act("ana", "hold", detail="I will wait until something happens."))
    win.refresh()
    reject = button(win, "GM: reject Ana's condition as too generic")
    assert reject.isEnabled()
    reject.click()
    QApplication.processEvents()
    assert win.order_panel.active == "ana"  # her turn came back, to act or hold again
    win.combat.undo()
    QApplication.processEvents()
    assert win.order_panel.active == "brak"


def test_the_drag_label_says_the_step_back_draws_an_attack_of_opportunity(
        duel: MainWindow) -> None:
    win = duel
    drag(win.view, [(4, 3), (3, 3)], release=False)
    overlay: DragOverlay = win.scene.overlay
    assert overlay.view is not None and overlay.view.legal
    assert overlay.view.uses.split("; ")[-1] == ("draws an attack of opportunity from Brak "
                                                 "(d100: taken on 60 or less)")
    assert "draws an attack of opportunity from Brak" in win.statusBar().currentMessage()
