"""The Dice dock: a roll weighed as it is typed, refused in one sentence, rolled into the log."""

from __future__ import annotations

import pytest

from tacmap.engine.model.events import GmRolled
from tacmap.engine.rules.dice import Roll
from tacmap.ui.panels.dice import with_die
from tacmap.ui.qt import QApplication, QLabel, Qt, QWidget
from tacmap.ui.window import MainWindow


def click(qtbot: object, widget: QWidget) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]


def typed(window: MainWindow, qtbot: object, text: str) -> None:
    window.dice_dock.raise_()
    field = window.dice_panel.field
    field.clear()
    qtbot.keyClicks(field, text)  # type: ignore[attr-defined]
    QApplication.processEvents()


def test_the_dock_weighs_2d6_plus_3_with_its_chart_and_the_chance_of_a_target(
        window: MainWindow, qtbot: object) -> None:
    panel = window.dice_panel
    typed(window, qtbot, "2d6+3")
    panel.target.setValue(10)
    assert "2d6+3: average 10.00, from 5 to 15" in panel.odds.text()
    assert "chance to reach 10: 58.33%" in panel.odds.text()
    (bars,) = [i for i in panel.plot.getPlotItem().items if type(i).__name__ == "BarGraphItem"]
    assert list(bars.opts["x"]) == list(range(5, 16))
    assert max(bars.opts["height"]) == pytest.approx(100 / 6)
    assert panel.roll_button.isEnabled() and panel.problem.isHidden()


def test_a_bad_roll_is_one_red_sentence_and_greys_roll_out(window: MainWindow,
                                                           qtbot: object) -> None:
    panel = window.dice_panel
    typed(window, qtbot, "2d6+x")
    assert panel.problem.isVisible()
    assert panel.problem.text() == "'x' is not dice (like 2d6 or 4d6kh3) or a number."
    assert not panel.roll_button.isEnabled()
    typed(window, qtbot, "101d6")
    assert "a roll has at most 100" in panel.problem.text()
    click(qtbot, panel.roll_button)
    assert not any(isinstance(e, GmRolled) for x in window.session.referee.log for e in x.events)


def test_dice_buttons_add_one_die_of_their_kind(window: MainWindow, qtbot: object) -> None:
    panel = window.dice_panel
    window.dice_dock.raise_()
    click(qtbot, panel.dice_buttons[6])
    click(qtbot, panel.dice_buttons[6])
    assert panel.field.text() == "2d6"
    click(qtbot, panel.dice_buttons[20])
    assert panel.field.text() == "2d6+d20"
    assert with_die("2d6+3", 6) == "3d6+3"
    assert with_die("4d6kh3", 6) == "4d6kh3+d6"


def test_roll_logs_the_sentence_shows_the_total_big_and_undoes(window: MainWindow,
                                                              qtbot: object) -> None:
    panel, referee = window.dice_panel, window.session.referee
    typed(window, qtbot, "2d6+3")
    panel.target.setValue(10)
    click(qtbot, panel.roll_button)
    rolled = next(e for e in referee.log[-1].events if isinstance(e, GmRolled))
    assert rolled.public
    assert window.log_panel.visible_text().splitlines()[-1].endswith(f"GM rolls {rolled.shown}")
    assert panel.total.text() == str(rolled.total)
    assert rolled.shown in panel.faces.text()
    assert ("reaches 10" if rolled.total >= 10 else "short of 10") in panel.faces.text()
    assert f"GM rolls {rolled.shown}" in window.log_panel.result.text()  # the last result
    window.undo_action.trigger()
    assert not any(isinstance(e, GmRolled) for x in referee.log for e in x.events)


def test_physical_dice_ask_for_the_faces_of_the_roll(window: MainWindow, qtbot: object) -> None:
    asked: list[tuple[int, int]] = []

    def faces(count: int, sides: int, why: str) -> list[int]:
        asked.append((count, sides))
        return [4] * count

    window.ask_dice = lambda plan: plan.answer(faces)
    window.dice_action.trigger()
    typed(window, qtbot, "3d8-1")
    click(qtbot, window.dice_panel.roll_button)
    assert asked == [(3, 8)]
    rolled = next(e for e in window.session.referee.log[-1].events if isinstance(e, GmRolled))
    assert rolled.rolls == (Roll(8, (4, 4, 4)),) and rolled.total == 11
    assert window.dice_panel.total.text() == "11"


def test_a_gm_only_roll_is_marked_in_the_log_and_never_reaches_the_player_view(
        window: MainWindow, qtbot: object) -> None:
    window.show_player_view()
    player = window.player
    assert player is not None
    panel = window.dice_panel
    typed(window, qtbot, "d20 adv")
    panel.public.setChecked(False)
    click(qtbot, panel.roll_button)
    rolled = next(e for e in window.session.referee.log[-1].events if isinstance(e, GmRolled))
    assert not rolled.public
    assert window.log_panel.visible_text().splitlines()[-1].endswith("(GM only)")
    QApplication.processEvents()
    shown = " ".join(label.text() for label in player.findChildren(QLabel))
    assert "rolls" not in shown and rolled.shown not in shown


def test_a_narrow_dice_dock_scrolls_down_only_and_cuts_no_button(qtbot: object) -> None:
    """In the docks' column with a chart the panel grew a sideways scroll bar, and d10,
    Clear and Roll were cut at the right."""
    from tacmap.ui.panels.dice import DicePanel, scrolled

    panel = DicePanel(lambda command: True, lambda: None)
    area = scrolled(panel)
    qtbot.addWidget(area)  # type: ignore[attr-defined]
    area.resize(360, 260)
    area.show()
    panel.field.setText("2d6+3")
    QApplication.processEvents()
    assert area.verticalScrollBar().isVisible()  # the chart makes it tall
    assert not area.horizontalScrollBar().isVisible()
    right = area.viewport().width()
    for button in (*panel.dice_buttons.values(), panel.roll_button):
        assert button.mapTo(panel, button.rect().topRight()).x() < right, button.text()


def test_a_bad_roll_leaves_no_chart_and_a_good_one_brings_it_back(
        window: MainWindow, qtbot: object) -> None:
    """After "3d6+" the empty chart of the roll before stayed under the red sentence."""
    panel = window.dice_panel
    typed(window, qtbot, "2d6")
    assert panel.plot is not None and panel.plot.isVisible()
    typed(window, qtbot, "3d6+")
    assert panel.problem.isVisible() and not panel.plot.isVisible()
    typed(window, qtbot, "3d6")
    assert panel.plot.isVisible() and panel.problem.isHidden()
