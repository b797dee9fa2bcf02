"""Build ▸ House Rules…: each option with its quoted sentence and values, the default
marked; OK sends one logged, undoable command per change; during a fight it asks once."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.model.commands import StartCombat
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.demos import demo_folder
from tacmap.ui.house_rules import HouseRulesDialog, apply_changes, in_force_lines
from tacmap.ui.qt import QLabel, QRadioButton, Qt
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import shown


@pytest.fixture
def opposed(qtbot: object, registry: Registry) -> Iterator[MainWindow]:
    """The opposed demo, its questions answered by ``win.answers`` (yes unless told)."""
    session = Session.open(registry, demo_folder() / "opposed_demo.tacmap", as_copy=True)
    asked: list[str] = []

    def ask(question: str) -> bool:
        asked.append(question)
        return bool(win.answer)  # type: ignore[attr-defined]

    win = MainWindow(registry, session, ask=ask, tell=lambda text: None,
                     ask_save=lambda question: False)
    win.answer = True  # type: ignore[attr-defined]
    win.asked = asked  # type: ignore[attr-defined]
    yield shown(qtbot, win, (1100, 750))


def dialog_of(win: MainWindow) -> HouseRulesDialog:
    referee = win.session.referee
    return HouseRulesDialog(referee.ruleset.manifest.options, referee.state, win)


def test_the_dialog_shows_each_option_its_sentence_and_the_default(
        opposed: MainWindow) -> None:
    dialog = dialog_of(opposed)
    buttons = [b.text() for b in dialog.findChildren(QRadioButton)]
    assert buttons[:2] == ["none (default)", "allowed"]
    labels = [w.text() for w in dialog.findChildren(QLabel)]
    assert labels[:3] == [
        "“ranged attacks are counted as surprise attacks ... may not critical and the target "
        "may still utilize armor ..., unless declared otherwise by the Storyteller”",
        "a surprise ranged attack never scores a critical (the text)",
        "a surprise ranged attack may critical like any other (declared otherwise)"]
    assert all(w.textFormat() == Qt.TextFormat.PlainText for w in dialog.findChildren(QLabel))
    if os.environ.get("TACMAP_SHOTS"):
        dialog.grab().save(str(Path(os.environ["TACMAP_SHOTS"]) / "house_rules.png"))


def test_a_house_rule_set_in_the_window_is_logged_and_undone(opposed: MainWindow) -> None:
    dialog = dialog_of(opposed)
    dialog.pick("surprise_criticals", "allowed")
    assert apply_changes(opposed, dialog.changes())
    state = opposed.session.referee.state
    assert state.house_rules == {"surprise_criticals": "allowed"}
    assert opposed.asked == []  # type: ignore[attr-defined]  # no fight yet: nothing asked
    options = opposed.session.referee.ruleset.manifest.options
    assert in_force_lines(options, state) == ["Surprise criticals: allowed"]
    opposed.combat.undo()
    assert state.house_rules == {}


@pytest.mark.parametrize(("answer", "rules"), [
    (False, {}),
    (True, {"surprise_criticals": "allowed", "death_past_line": "dead"}),
])
def test_during_a_fight_the_window_asks_once(opposed: MainWindow, answer: bool,
                                             rules: dict[str, str]) -> None:
    opposed.session.referee.execute(StartCombat())
    opposed.answer = answer  # type: ignore[attr-defined]
    dialog = dialog_of(opposed)
    dialog.pick("surprise_criticals", "allowed")
    dialog.pick("death_past_line", "dead")
    apply_changes(opposed, dialog.changes())
    assert len(opposed.asked) == 1  # type: ignore[attr-defined]
    assert opposed.session.referee.state.house_rules == rules


def test_the_player_view_lists_the_house_rules_in_force(opposed: MainWindow,
                                                         qtbot: object) -> None:
    # The table plays by them: the players see each rule that differs from the default,
    # and nothing once it is undone.
    from tacmap.ui.player import PlayerView

    players = PlayerView(opposed.session)
    qtbot.addWidget(players)  # type: ignore[attr-defined]
    assert players.house_rules.isHidden()
    dialog = dialog_of(opposed)
    dialog.pick("surprise_criticals", "allowed")
    assert apply_changes(opposed, dialog.changes())
    players.sync(opposed.session)
    assert players.house_rules.text() == "House rules: Surprise criticals: allowed"
    assert players.house_rules.textFormat() == Qt.TextFormat.PlainText
    assert not players.house_rules.isHidden()
    opposed.combat.undo()
    players.sync(opposed.session)
    assert players.house_rules.isHidden()


def test_the_forecast_what_if_plays_the_fight_under_a_house_rule(opposed: MainWindow,
                                                                 qtbot: object) -> None:
    # The same fight under the other reading, side by side; the encounter keeps its own.
    from tests.ui.test_forecast_dock import open_forecast, wait_done

    panel = open_forecast(qtbot, opposed)
    labels = [panel.rule_box.itemText(i) for i in range(panel.rule_box.count())]
    assert "Death past line: dead" in labels
    assert "Surprise criticals: allowed" in labels
    panel.rule_box.setCurrentIndex(labels.index("Death past line: dead"))
    panel.under_rule()
    wait_done(qtbot, panel)
    assert panel.results["what if"].fights == panel.results["now"].fights
    assert panel.what_if is not None
    assert panel.what_if.house_rules == {"death_past_line": "dead"}
    assert "what if: house rule death past line dead" in panel.title.text()
    assert opposed.session.referee.state.house_rules == {}
