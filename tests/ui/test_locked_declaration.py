"""Reflex: "They are locked into performing that action in this round." The End turn
button of the order panel is greyed, with the reason, until the declared action is made."""

from __future__ import annotations

import json
from pathlib import Path

from tacmap.engine.model.commands import Act, Attack, EndTurn, StartCombat
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.qt import QApplication
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import shown

DUEL = {
    "ruleset": "reflex", "diagonal": "chebyshev", "map": {"width": 14, "height": 8},
    "seed": 1, "tokens": [
        {"id": "ana", "name": "Ana", "side": "party", "x": 2, "y": 2, "hp": 12, "max_hp": 12,
         "stats": {"rfx": 5, "dodge": 2, "defence": 0, "weapons": ["sword"]}},
        {"id": "brak", "name": "Brak", "side": "foes", "x": 3, "y": 2, "hp": 12, "max_hp": 12,
         "stats": {"rfx": 2, "melee": 3, "defence": 0, "weapons": ["axe"]}}]}


def test_end_turn_is_greyed_with_the_reason_until_the_declared_attack(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    path = tmp_path / "duel.tacmap"
    path.write_text(json.dumps({"format": "tacmap-encounter", "version": 1,
                                "ruleset": {"id": "reflex"}, "encounter": DUEL}))
    session = Session.open(registry, path)
    ref = session.referee
    ref.execute(StartCombat())
    ref.execute(Act("brak", "declare:attack", "ana", "axe"))
    ref.execute(Act("ana", "declare:dodge"), FixedDice([5, 4, 6, 5, 2]))
    ref.execute(EndTurn("ana"))
    win = shown(qtbot, MainWindow(registry, session, ask=lambda q: False,
                                  tell=lambda text: None), (1100, 750))
    win.refresh()
    QApplication.processEvents()
    end = win.order_panel.end_button
    assert win.order_panel.active == "brak"
    assert not end.isEnabled()
    assert "locked into performing" in end.toolTip()
    assert "attack Ana with the axe" in end.statusTip()
    # The shortcut and the menu reach the referee, which refuses with the same reason.
    win.end_turn_action.trigger()  # type: ignore[attr-defined]
    assert "locked into performing" in win.statusBar().currentMessage()
    assert ref.state.round == 1
    assert win.run(Attack("brak", "ana"))
    QApplication.processEvents()
    assert end.isEnabled()
    end.click()
    assert ref.state.round == 2
