"""Action pool: "Other actions can be prepared and then performed as a reaction." The
Actions panel's Prepare: a quick action… asks the words, then the odds card asks when."""

from __future__ import annotations

import json
from pathlib import Path

from tacmap.engine.model.commands import StartCombat
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.qt import QApplication, QPushButton
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import shown

FIGHT = {
    "ruleset": "action_pool", "map": {"width": 14, "height": 8}, "seed": 1, "tokens": [
        {"id": "dora", "name": "Dora", "side": "party", "x": 2, "y": 2, "hp": 12,
         "max_hp": 12, "stats": {"dex": 3, "con": 2, "abilities": ["mend"]}},
        {"id": "brak", "name": "Brak", "side": "foes", "x": 3, "y": 2, "hp": 30,
         "max_hp": 30, "stats": {"str": 2, "con": 2, "weapon": "axe"}}]}


def test_prepare_a_quick_action_asks_the_words_then_the_trigger(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    path = tmp_path / "fight.tacmap"
    path.write_text(json.dumps({"format": "tacmap-encounter", "version": 1,
                                "ruleset": {"id": "action_pool"}, "encounter": FIGHT}))
    session = Session.open(registry, path)
    session.referee.execute(StartCombat(("dora", "brak")))
    win = shown(qtbot, MainWindow(registry, session, ask=lambda q: False,
                                  tell=lambda text: None), (1200, 800))
    asked: list[tuple[str, str]] = []

    def answer(question: str, suggested: str) -> str:
        asked.append((question, suggested))
        return "pull the lever"

    win.ask_words = answer  # type: ignore[method-assign]
    win.refresh()
    layout = win.order_panel.actions_layout
    buttons = {w.text(): w for i in range(layout.count())
               if isinstance(w := layout.itemAt(i).widget(), QPushButton)}
    assert "Prepare: an ability …" in buttons and "Prepare: a move …" in buttons
    buttons["Prepare: a quick action …"].click()
    win.token_clicked("brak")
    card = win.odds_card
    assert isinstance(card, OddsCard)
    assert asked and asked[0][0].startswith("What will Dora do when the target acts?")
    (box,) = card.choice_boxes
    box.setCurrentText("leaves my reach")
    card.accept()
    QApplication.processEvents()
    dora = session.referee.state.tokens["dora"]
    assert dora.values["prepared"] == (
        ("generic", "leaves_reach", "brak", "any", 1, "pull the lever"),)
    assert "if Brak leaves my reach, I will do something quick: pull the lever" in \
        win.log_panel.visible_text()
