"""Combat ▸ Autopilot in the window (issue 35): tokens that play their own turns, paced,
through ordinary commands; Space pauses, Right steps, Esc takes over; Suggest."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.model.commands import Attack, EndTurn, StartCombat
from tacmap.engine.model.state import party_side
from tacmap.engine.play.autopilot import Suggestion
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui import autopilot
from tacmap.ui.autopilot import Pilot
from tacmap.ui.qt import QApplication, QGraphicsSimpleTextItem, QPushButton, submenu
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import shown

RESOURCES = Path(__file__).parents[2] / "resources"
DEMOS = ("demo.tacmap", "opposed_demo.tacmap", "reflex_demo.tacmap",
         "six_phase_demo.tacmap", "speed_rank_demo.tacmap")
WAIT = 60000


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's pace, sped up: the steps and what is shown are the same."""
    monkeypatch.setattr(autopilot, "PATH_SECONDS", 0.05)
    monkeypatch.setattr(autopilot, "CARD_SECONDS", 0.05)
    monkeypatch.setattr(autopilot, "STEP_SECONDS", 0.01)


def open_demo(qtbot: object, registry: Registry, tmp_path: Path, name: str) -> MainWindow:
    path = tmp_path / name
    shutil.copy(RESOURCES / name, path)
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: True,
                     tell=lambda text: None, ask_save=lambda q: False)
    return shown(qtbot, win, (1600, 1000))


@pytest.fixture
def action_pool(qtbot: object, registry: Registry, tmp_path: Path) -> Iterator[MainWindow]:
    win = open_demo(qtbot, registry, tmp_path, "demo.tacmap")
    yield win
    win.pilot.close()


def foes(win: MainWindow) -> list[str]:
    state = win.session.referee.state
    party = party_side(state)
    return list(dict.fromkeys(t.side for t in state.tokens.values() if t.side != party))


def idle(pilot: Pilot) -> bool:
    """Nothing under way: no thinking, nothing on show, no step waiting."""
    return pilot.job is None and pilot.showing is None and not pilot.later.isActive()


def players_turn(win: MainWindow) -> bool:
    referee = win.session.referee
    actor = referee.ruleset.whose_turn(referee.state)
    return actor is not None and not win.pilot.is_on(actor) and idle(win.pilot)


def foe_card_on_show(qtbot: object, win: MainWindow) -> None:
    """Combat started with the foes on autopilot; the players pass until a foe's attack
    card is on show."""
    win.run(StartCombat())
    for side in foes(win):
        win.pilot.set_side(side, True)
    for _ in range(20):
        qtbot.waitUntil(lambda: win.pilot.card is not None or players_turn(win),  # type: ignore[attr-defined]
                        timeout=WAIT)
        if win.pilot.card is not None:
            return
        win.run(EndTurn())


def test_a_side_on_autopilot_plays_its_turns_through_the_referee(
        qtbot: object, action_pool: MainWindow) -> None:
    win = action_pool
    referee = win.session.referee
    win.run(StartCombat())
    before = len(referee.log)
    for side in foes(win):
        win.pilot.set_side(side, True)
    # The bandits play until a player's token is to act; each step is a logged command.
    # The GM ends the players' turns by hand until the bandits have played.
    for _ in range(10):
        qtbot.waitUntil(lambda: players_turn(win), timeout=WAIT)  # type: ignore[attr-defined]
        if len(referee.log) > before:
            break
        win.run(EndTurn())
        before = len(referee.log)
    played = referee.log[before:]
    assert played
    sides = {referee.state.tokens[e.command.actor].side for e in played  # type: ignore[attr-defined]
             if getattr(e.command, "actor", "") in referee.state.tokens}
    assert sides <= set(foes(win))
    # An ordinary command: undone like any other.
    version = referee.version
    win.combat.undo()
    assert referee.version != version


def test_space_pauses_right_steps_one_action_and_esc_takes_over(
        qtbot: object, action_pool: MainWindow) -> None:
    win = action_pool
    referee = win.session.referee
    win.run(StartCombat())
    actor = referee.ruleset.whose_turn(referee.state)
    assert actor is not None
    win.pilot.toggle_pause()  # paused before it starts
    win.pilot.set_token(actor, True)
    assert win.pilot.step_action.isEnabled()
    before = len(referee.log)
    QApplication.processEvents()
    qtbot.wait(200)  # type: ignore[attr-defined]
    assert len(referee.log) == before  # paused: nothing played
    win.pilot.step()
    qtbot.waitUntil(lambda: len(referee.log) == before + 1 and idle(win.pilot),  # type: ignore[attr-defined]
                    timeout=WAIT)
    qtbot.wait(200)  # type: ignore[attr-defined]
    assert len(referee.log) == before + 1  # one action, then paused again
    win.pilot.take_over()
    win.pilot.toggle_pause()  # resumed: but this turn is the GM's now
    qtbot.wait(300)  # type: ignore[attr-defined]
    assert len(referee.log) == before + 1
    assert "You play" in win.statusBar().currentMessage() or win.pilot.taken is not None


def test_the_toggles_in_the_menu_the_turn_order_and_the_token_menu(
        action_pool: MainWindow) -> None:
    win = action_pool
    win.run(StartCombat())
    side = foes(win)[0]
    menu = win.menuBar()
    combat = next(submenu(a, win) for a in menu.actions() if a.text() == "&Combat")
    assert combat is not None
    sub = next(submenu(a, win) for a in combat.actions() if a.text() == "&Autopilot")
    assert sub is not None
    win.pilot.fill_menu(sub)
    toggle = next(a for a in sub.actions() if a.text() == f"{side} play themselves")
    toggle.trigger()
    assert side in win.pilot.sides
    rows = [win.order_panel.rows.item(i).text() for i in range(win.order_panel.rows.count())]
    assert any("⚙ autopilot" in r for r in rows)
    token = next(t for t in win.session.referee.state.tokens.values() if t.side == side)
    gm_menu = win.token_menu(token.id, win.view.mapFromScene(0, 0))
    item = next(a for a in gm_menu.actions() if a.text() == "Plays itself (autopilot)")
    assert item.isChecked()
    item.trigger()
    assert not win.pilot.is_on(token.id)


def test_suggest_gives_three_plans_drawn_on_the_map_and_one_is_armed(
        qtbot: object, action_pool: MainWindow) -> None:
    win = action_pool
    win.run(StartCombat())
    button = win.order_panel.findChild(QPushButton, "suggest")
    assert button is not None and button.text() == "Suggest (S)"  # under the actions
    button.click()
    suggest = win.pilot.suggestions
    qtbot.waitUntil(lambda: suggest.dialog is not None, timeout=WAIT)  # type: ignore[attr-defined]
    assert 1 <= len(suggest.found) <= 3
    assert suggest.marks  # numbered marks on the map
    effects = [s.effect for s in suggest.found]
    assert effects == sorted(effects, reverse=True)
    before = len(win.session.referee.log)
    suggest.pick(suggest.found[0])
    assert not suggest.marks
    assert len(win.session.referee.log) > before or win.odds_card is not None


def test_suggest_s_numbers_stay_apart_where_plans_end_on_one_target(
        qtbot: object, action_pool: MainWindow) -> None:
    win = action_pool
    win.run(StartCombat())
    actor = win.session.referee.ruleset.whose_turn(win.session.referee.state)
    assert actor is not None
    me = win.session.referee.state.tokens[actor]
    foe = next(t.id for t in win.session.referee.state.tokens.values() if t.side != me.side)
    plans = [Suggestion((Attack(actor, foe),), f"plan {i}", 0.1 - i / 100, 0.5)
             for i in range(3)]
    win.pilot.suggestions.show(actor, plans)
    numbers = [m for m in win.pilot.suggestions.marks
               if isinstance(m, QGraphicsSimpleTextItem)]
    assert [n.text() for n in numbers] == ["1", "2", "3"]
    for a, b in itertools.combinations(numbers, 2):
        assert not a.sceneBoundingRect().intersects(b.sceneBoundingRect())
    win.pilot.suggestions.clear()


@pytest.mark.parametrize("name", DEMOS)
def test_with_the_foes_on_autopilot_a_round_takes_only_the_players_actions(
        qtbot: object, registry: Registry, tmp_path: Path, name: str) -> None:
    # The GM ends each of the players' turns at once (their own actions would come
    # there); the foes need no input at all. Counted: the GM's inputs in two rounds.
    win = open_demo(qtbot, registry, tmp_path, name)
    referee = win.session.referee
    win.run(StartCombat())
    for side in foes(win):
        win.pilot.set_side(side, True)
    inputs = 0
    last = referee.state.round + 1  # two rounds: opposed's first is the surprise round
    while referee.state.round <= last:
        qtbot.waitUntil(lambda: players_turn(win) or referee.state.round > last,  # type: ignore[attr-defined]
                        timeout=WAIT)
        if referee.state.round > last:
            break
        actor = referee.ruleset.whose_turn(referee.state)
        assert actor is not None and not win.pilot.is_on(actor)
        win.run(EndTurn())
        inputs += 1
        assert inputs < 80
    party = party_side(referee.state)
    players = sum(t.side == party for t in referee.state.tokens.values())
    print(f"{name}: GM inputs in two rounds: {inputs} for {players} player tokens")
    by_foes = [e for e in referee.log
               if referee.state.tokens.get(getattr(e.command, "actor", "")) is not None
               and referee.state.tokens[e.command.actor].side != party]  # type: ignore[attr-defined]
    assert by_foes, "the foes played their own turns"
    win.pilot.close()


def test_cancel_on_the_card_shown_before_a_roll_takes_the_turn_over(
        qtbot: object, action_pool: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    # The card stays up long enough for the GM to say no: nothing is rolled, and the
    # turn is the GM's. Meanwhile the keys stay with the window (the card does not take
    # them: Space must still pause).
    monkeypatch.setattr(autopilot, "CARD_SECONDS", 30.0)
    win = action_pool
    referee = win.session.referee
    foe_card_on_show(qtbot, win)
    card = win.pilot.card
    assert card is not None
    assert card.testAttribute(autopilot.Qt.WidgetAttribute.WA_ShowWithoutActivating)
    assert not card.confirm_button.isEnabled()
    logged = len(referee.log)
    card.reject()
    assert win.pilot.taken is not None
    qtbot.wait(300)  # type: ignore[attr-defined]
    assert len(referee.log) == logged


def test_the_gm_ending_the_turn_while_a_step_is_on_show_drops_that_step_unsent(
        qtbot: object, action_pool: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    # Seen in the real window (speed_rank): E pressed while a foe's card was up ended the
    # foe's turn, and the card's attack was then sent for a turn that had passed: four
    # refusals, and the autopilot paused.
    monkeypatch.setattr(autopilot, "CARD_SECONDS", 30.0)
    win = action_pool
    referee = win.session.referee
    foe_card_on_show(qtbot, win)
    assert win.pilot.card is not None
    logged = len(referee.log)
    assert win.run(EndTurn())  # the GM's hand: the foe's turn ends at once
    assert win.pilot.card is None and win.pilot.showing is None  # the card went with it
    monkeypatch.setattr(autopilot, "CARD_SECONDS", 0.05)
    qtbot.wait(500)  # type: ignore[attr-defined]
    assert not win.pilot.paused
    assert not win.statusBar().currentMessage().startswith("Refused")
    assert len(referee.log) >= logged + 1
