"""Issue 22: selection follows the turn and a token's right-click offers its own actions
(item 7); File ▸ New starts with fog on (item 8); the status bar after End turn, the empty
map's hint and the name Save proposes (polish)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tacmap import cli
from tacmap.engine.files import storage
from tacmap.engine.model.commands import AddToken, EndTurn, StartCombat
from tacmap.engine.model.state import Token
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.app import demo_path
from tacmap.ui.combat import ReasonMenu
from tacmap.ui.files import file_name
from tacmap.ui.map.hint import EMPTY_MAP, FIRST_RUN
from tacmap.ui.qt import QApplication, QEvent, QMenu, Qt
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.conftest import TEST_RULESETS
from tests.ui.conftest import NO_KEYS, _send, drag, point, shown


@pytest.fixture
def demo(qtbot: object, registry: Registry, tmp_path: Path) -> MainWindow:
    """The action_pool demo, combat started: Ser Aldric, Barry, then Wren."""
    path = tmp_path / "demo.tacmap"
    shutil.copy(demo_path(), path)
    session = Session.open(registry, path)
    session.referee.execute(StartCombat())
    win = MainWindow(registry, session, ask=lambda q: False, tell=lambda text: None)
    return shown(qtbot, win, (1400, 900), (9, 9))


def right_click_token(win: MainWindow, token_id: str) -> QMenu:
    t = win.session.referee.state.tokens[token_id]
    at = point(win.view, (t.x, t.y))
    right = Qt.MouseButton.RightButton
    _send(win.view, QEvent.Type.MouseButtonPress, at, right, right, NO_KEYS)
    menu = win.combat.menu
    assert menu is not None
    return menu


def texts(menu: QMenu) -> list[str]:
    return [a.text() for a in menu.actions() if a.text()]  # items and section titles


def selected(win: MainWindow) -> list[str]:
    return [tid for tid, item in win.scene.items_by_id.items() if item.isSelected()]


def test_the_acting_token_is_selected_when_its_turn_begins(demo: MainWindow) -> None:
    assert demo.actor == "aldric" and selected(demo) == ["aldric"]
    drag(demo.view, [demo.session.referee.state.tokens["pip"].cell])  # the GM looks at Pip
    demo.select("pip")
    demo.run(EndTurn())
    assert demo.actor == "barry" and selected(demo) == ["barry"]
    demo.run(EndTurn())
    assert demo.actor == "wren" and selected(demo) == ["wren"]
    assert demo.order_panel.active == "wren"


def test_right_click_on_the_acting_token_offers_its_own_actions(demo: MainWindow) -> None:
    ref = demo.session.referee
    demo.run(EndTurn())
    demo.run(EndTurn())  # Wren's turn
    demo.select("barry")  # someone else picked on the way
    menu = right_click_token(demo, "wren")
    assert isinstance(menu, ReasonMenu)
    items = texts(menu)
    own = [o.label for o in ref.ruleset.actions_for(ref.state, "wren")]
    assert items[0] == "Select Wren" and "Wren's actions" in items
    assert items[items.index("Wren's actions") + 1:items.index("GM")] == own  # then the GM's
    assert not any(t.startswith("Barry") for t in items)  # no other token's greyed actions
    assert demo.actor == "wren"
    menu.close()
    # An enemy's menu offers what the acting token may do to it.
    menu = right_click_token(demo, "barry")
    assert any(t.startswith("Wren: Attack") for t in texts(menu))
    assert "Barry the Guard's actions" not in texts(menu)
    menu.close()


def test_an_own_action_from_the_menu_is_armed_like_its_button(demo: MainWindow) -> None:
    menu = right_click_token(demo, "aldric")
    attack = next(a for a in menu.actions() if a.text().startswith("Attack"))
    attack.trigger()
    menu.close()
    assert demo.combat.armed is not None and demo.combat.armed[0] == "aldric"
    assert "click the target" in demo.statusBar().currentMessage()


def test_the_status_bar_names_the_new_turn_after_end_turn(demo: MainWindow) -> None:
    demo.statusBar().showMessage("Ser Aldric: Attack (halberd) — click the target", 15000)
    demo.end_turn_action.trigger()
    message = demo.statusBar().currentMessage()
    assert "click the target" not in message
    assert message == "Round 1: Barry the Guard to act"


def test_file_new_starts_with_fog_on_as_tacmap_new_does(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    win = MainWindow(registry, Session(registry, registry.get("skirmish").new_map("S", 1, 4, 4)),
                     ask=lambda q: False, tell=lambda text: None)
    shown(qtbot, win, (900, 700))
    win.start_new("skirmish", 20, 10, "Crypt")
    assert win.session.referee.state.fog.enabled and win.fog_action.isChecked()
    path = tmp_path / "crypt.tacmap"
    assert cli.main(["--rulesets-dir", str(TEST_RULESETS), "new", "--ruleset", "skirmish",
                     "--size", "20x10", str(path)]) == 0
    made = storage.load(path, registry).state
    assert made.fog == win.session.referee.state.fog
    assert (made.map.width, made.map.height) == (20, 10)


def test_an_empty_map_says_how_to_add_a_combatant(qtbot: object, registry: Registry) -> None:
    win = MainWindow(registry, Session(registry, registry.get("skirmish").new_map("S", 1, 4, 4)),
                     ask=lambda q: False, tell=lambda text: None)
    shown(qtbot, win, (900, 700))
    win.start_new("skirmish", 20, 10, "Crypt")
    assert win.hint is not None and win.hint.text() == EMPTY_MAP
    assert "Build ▸ Add Combatant" in EMPTY_MAP and "drag a token" not in EMPTY_MAP
    assert win.idle_text.text() == EMPTY_MAP
    win.run(AddToken(Token("a", "Ana", "party", 1, 1)))
    QApplication.processEvents()
    assert win.hint.text() == FIRST_RUN and win.idle_text.text() == FIRST_RUN


def test_save_proposes_the_encounters_name(qtbot: object, registry: Registry,
                                           tmp_path: Path) -> None:
    assert file_name("Goblin Ambush: Night 2/3") == "Goblin Ambush Night 23.tacmap"
    assert file_name("  ../..  ") == "encounter.tacmap"
    assert file_name("Crypt") == "Crypt.tacmap"
    win = MainWindow(registry, Session(registry, registry.get("skirmish").new_map("S", 1, 4, 4)),
                     ask=lambda q: False, tell=lambda text: None)
    shown(qtbot, win, (900, 700))
    win.start_new("skirmish", 20, 10, "The Crypt: part 1")
    assert win.files.proposed_path() == Path("The Crypt part 1.tacmap")
    assert win.files.save_to(tmp_path / "first.tacmap")
    win.start_new("skirmish", 20, 10, "Second")
    assert win.files.proposed_path() == tmp_path / "Second.tacmap"  # the last folder used


def test_a_move_declared_by_a_drag_selects_whoever_acts_next(qtbot: object,
                                                            registry: Registry) -> None:
    """six_phase: dragging Regdar declares his move and ends his turn. The next to act is
    selected with its pools, as after E; Regdar kept the ring and the pools before."""
    resources = Path(__file__).resolve().parents[2] / "resources"
    session = Session.open(registry, resources / "six_phase_demo.tacmap")
    win = shown(qtbot, MainWindow(registry, session, ask=lambda q: False,
                                  tell=lambda t: None), (1100, 750))
    ref = session.referee
    assert win.run(StartCombat())
    while ref.ruleset.whose_turn(ref.state) != "regdar":
        assert win.run(EndTurn())
    regdar = ref.state.tokens["regdar"]
    drag(win.view, [regdar.cell, (regdar.x + 1, regdar.y), (regdar.x + 2, regdar.y)])
    now = ref.ruleset.whose_turn(ref.state)
    assert now not in (None, "regdar")
    assert win.actor == now
    assert win.pool_panel.selected == now
    assert win.scene.items_by_id[now].isSelected()
    # A drag that leaves the turn where it was selects the dragged token, as ever.
    other = next(t for t in ref.state.tokens.values() if t.id not in (now, "regdar"))
    drag(win.view, [other.cell, (other.x, other.y + 1)])
    assert win.actor == other.id
