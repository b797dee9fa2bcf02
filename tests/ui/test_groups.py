"""Groups on the GM's map: rubber band, Shift+click, dragging, Delete, Ctrl+C / Ctrl+V."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import FreeMove, StartCombat
from tacmap.engine.model.state import Encounter, MapSpec, Token, Wall
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.demos import demo_path
from tacmap.ui.map.group_drag import selected_ids
from tacmap.ui.qt import QApplication, QEvent, QMouseEvent, QPointF, Qt
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import drag, point, shown
from tests.ui.test_at_the_table import open_copy

SHIFT = Qt.KeyboardModifier.ShiftModifier
GOBLINS = ["gob", "gob_2", "gob_3", "gob_4", "gob_5"]


def band_state() -> Encounter:
    """Five goblins in a loose block, Ana and Bo beside them, Zog further off, one wall."""
    state = Encounter(ruleset="skirmish", ruleset_version="1.0", map=MapSpec(20, 12), seed=5)
    state.map.walls = (Wall(((14, 0), (14, 5))),)
    state.tokens["ana"] = Token("ana", "Ana", "party", 1, 1, stats={"atk": 4})
    state.tokens["bo"] = Token("bo", "Bo", "party", 1, 3, stats={"atk": 2})
    for tid, (x, y) in zip(GOBLINS, [(4, 2), (5, 2), (6, 2), (4, 4), (6, 4)], strict=True):
        name = "Goblin" if tid == "gob" else f"Goblin {tid[-1]}"
        state.tokens[tid] = Token(tid, name, "orcs", x, y, hp=5, max_hp=5, stats={"ac": 11})
    state.tokens["zog"] = Token("zog", "Zog", "orcs", 10, 3, hp=6, max_hp=6, size=2)
    return state


@pytest.fixture
def gm(qtbot: object, registry: Registry, tmp_path: Path) -> Iterator[MainWindow]:
    """The GM's window on ``band_state`` before combat; questions answered yes."""
    path = tmp_path / "band.tacmap"
    storage.save(path, band_state(), [])
    asked: list[str] = []

    def ask(question: str) -> bool:
        asked.append(question)
        return True

    win = MainWindow(registry, Session.open(registry, path), ask=ask, tell=lambda text: None)
    win.asked = asked  # type: ignore[attr-defined]
    yield shown(qtbot, win, (1100, 750), (7, 5))


def cells(win: MainWindow, *ids: str) -> list[tuple[int, int]]:
    state = win.session.referee.state
    return [state.tokens[tid].cell for tid in ids]


def band(win: MainWindow, start: tuple[int, int], end: tuple[int, int],
         mods: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A rubber band dragged on the empty map from ``start`` to ``end`` (cells)."""
    drag(win.view, [start, ((start[0] + end[0]) // 2, (start[1] + end[1]) // 2), end], mods)


def key(win: MainWindow, qtbot: object, which: Qt.Key,
        mods: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    win.activateWindow()
    qtbot.waitActive(win)  # type: ignore[attr-defined]
    win.view.setFocus()
    qtbot.keyClick(win.view, which, mods)  # type: ignore[attr-defined]
    QApplication.processEvents()


def hover(win: MainWindow, cell: tuple[int, int]) -> None:
    at = QPointF(point(win.view, cell))
    event = QMouseEvent(QEvent.Type.MouseMove, at, win.view.viewport().mapToGlobal(at),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(win.view.viewport(), event)


def test_a_rubber_band_on_the_empty_map_selects_the_tokens_inside(gm: MainWindow) -> None:
    band(gm, (3, 1), (7, 5))
    assert selected_ids(gm.scene) == GOBLINS
    assert all(gm.scene.items_by_id[t].isSelected() for t in GOBLINS)  # the selection ring
    assert gm.actor is None  # a group picks nobody to act
    band(gm, (0, 0), (2, 2), SHIFT)  # Shift adds a second band to the first
    assert selected_ids(gm.scene) == ["ana", *GOBLINS]
    band(gm, (8, 8), (9, 9))  # a band round nothing clears the selection
    assert selected_ids(gm.scene) == []


def test_shift_click_adds_a_token_to_the_selection_and_takes_it_out(gm: MainWindow) -> None:
    drag(gm.view, [(4, 2)])
    assert selected_ids(gm.scene) == ["gob"] and gm.actor == "gob"
    drag(gm.view, [(6, 4)], SHIFT)
    drag(gm.view, [(1, 1)], SHIFT)
    assert selected_ids(gm.scene) == ["ana", "gob", "gob_5"]
    drag(gm.view, [(1, 1)], SHIFT)
    assert selected_ids(gm.scene) == ["gob", "gob_5"]
    assert gm.session.referee.log == []  # selecting changes nothing in the encounter


def test_dragging_one_of_the_group_moves_all_as_one_entry_and_ctrl_z_puts_them_back(
        gm: MainWindow, qtbot: object) -> None:
    band(gm, (3, 1), (7, 5))
    before = cells(gm, *GOBLINS)
    drag(gm.view, [(5, 2), (6, 4), (7, 6)])
    ref = gm.session.referee
    assert cells(gm, *GOBLINS) == [(x + 2, y + 4) for x, y in before]  # formation kept
    assert len(ref.log) == 1 and type(ref.log[0].command).__name__ == "MoveGroup"
    assert cells(gm, "ana", "bo", "zog") == [(1, 1), (1, 3), (10, 3)]
    assert selected_ids(gm.scene) == GOBLINS  # still selected: drag them again
    assert gm.statusBar().currentMessage() == "GM moves 5 tokens together"
    key(gm, qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert cells(gm, *GOBLINS) == before and ref.log == []


def test_a_group_dragged_onto_another_token_is_refused_whole_with_the_sentence(
        gm: MainWindow) -> None:
    band(gm, (3, 1), (7, 5))
    before = cells(gm, *GOBLINS)
    # Goblin 3 would land on Zog: the group is outlined in red while it is held there.
    drag(gm.view, [(4, 2), (6, 2), (8, 3)], release=False)
    group = gm.view.group
    assert group is not None and group.ghost.isVisible() and not group.ghost.legal
    assert gm.statusBar().currentMessage() == \
        "The group cannot move there: Goblin 3 would land on Zog at (10,3)"
    drag(gm.view, [(8, 3)])  # released there
    assert cells(gm, *GOBLINS) == before and gm.session.referee.log == []
    assert gm.statusBar().currentMessage() == \
        "Not moved: Goblin 3 would land on Zog at (10,3)"
    assert not group.ghost.isVisible()


def test_a_group_dragged_across_a_wall_onto_an_obstacle_is_refused(gm: MainWindow) -> None:
    ref = gm.session.referee
    ref.state.map.walls = (Wall(((4, 7), (8, 7), (8, 9), (4, 9)), closed=True),)
    gm.refresh()
    band(gm, (3, 1), (7, 5))
    drag(gm.view, [(4, 2), (4, 7)])
    assert gm.statusBar().currentMessage() == \
        "Not moved: Goblin would land on an obstacle at (4,7)"
    assert ref.log == []


def test_delete_asks_once_and_removes_the_group_as_one_entry(gm: MainWindow,
                                                             qtbot: object) -> None:
    band(gm, (3, 1), (7, 5))
    key(gm, qtbot, Qt.Key.Key_Delete)
    ref = gm.session.referee
    assert gm.asked == ["Remove 5 tokens?"]  # type: ignore[attr-defined]
    assert set(ref.state.tokens) == {"ana", "bo", "zog"}
    assert len(ref.log) == 1 and type(ref.log[0].command).__name__ == "RemoveTokens"
    ref.undo()
    assert set(GOBLINS) <= set(ref.state.tokens)


def test_delete_on_one_token_is_remove_combatant_as_before(gm: MainWindow,
                                                           qtbot: object) -> None:
    drag(gm.view, [(10, 3)])
    key(gm, qtbot, Qt.Key.Key_Delete)
    ref = gm.session.referee
    assert "zog" not in ref.state.tokens and gm.asked == []  # type: ignore[attr-defined]
    assert type(ref.log[0].command).__name__ == "RemoveToken"


def test_delete_removes_the_token_in_the_band_not_the_one_picked_before(
        gm: MainWindow, qtbot: object) -> None:
    drag(gm.view, [(1, 1)])
    assert gm.actor == "ana"
    band(gm, (9, 2), (12, 5))  # Zog alone
    key(gm, qtbot, Qt.Key.Key_Delete)
    tokens = gm.session.referee.state.tokens
    assert "zog" not in tokens and "ana" in tokens


def test_esc_drops_a_group_drag_and_nothing_moves(gm: MainWindow, qtbot: object) -> None:
    band(gm, (3, 1), (7, 5))
    before = cells(gm, *GOBLINS)
    drag(gm.view, [(4, 2), (4, 6)], release=False)
    key(gm, qtbot, Qt.Key.Key_Escape)
    drag(gm.view, [(4, 6)])
    assert cells(gm, *GOBLINS) == before and gm.session.referee.log == []
    assert gm.view.group is not None and not gm.view.group.ghost.isVisible()


def test_ctrl_c_ctrl_v_pastes_numbered_copies_at_the_mouse(gm: MainWindow,
                                                           qtbot: object) -> None:
    drag(gm.view, [(1, 1)])
    drag(gm.view, [(1, 3)], SHIFT)  # Ana and Bo
    key(gm, qtbot, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    hover(gm, (8, 7))
    key(gm, qtbot, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    ref = gm.session.referee
    added = {t.name: t.cell for t in ref.state.tokens.values() if t.id not in ("ana", "bo")
             and t.side == "party"}
    assert added == {"Ana 2": (8, 7), "Bo 2": (8, 9)}  # top-left at the mouse, formation kept
    assert len(ref.log) == 1 and type(ref.log[0].command).__name__ == "AddTokens"
    assert selected_ids(gm.scene) == ["ana_2", "bo_2"]  # the copies, ready to drag
    key(gm, qtbot, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)  # same place: refused
    assert len(ref.log) == 1
    assert "Ana 3 would land on Ana 2 at (8,7)" in gm.statusBar().currentMessage()
    hover(gm, (15, 2))
    key(gm, qtbot, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    names = sorted(t.name for t in ref.state.tokens.values() if t.side == "party")
    assert names == ["Ana", "Ana 2", "Ana 3", "Bo", "Bo 2", "Bo 3"]


def test_pasted_goblins_are_numbered_past_the_ones_on_the_map(gm: MainWindow,
                                                              qtbot: object) -> None:
    band(gm, (3, 1), (5, 3))  # Goblin and Goblin 2
    key(gm, qtbot, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    hover(gm, (2, 8))
    key(gm, qtbot, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    state = gm.session.referee.state
    assert {state.tokens[t].name for t in selected_ids(gm.scene)} == {"Goblin 6", "Goblin 7"}


def test_in_combat_a_group_keeps_who_acts_and_an_armed_action_takes_the_next_click(
        qtbot: object, registry: Registry, tmp_path: Path) -> None:
    win = open_copy(qtbot, registry, demo_path(), tmp_path, centre=(14, 10))
    win.run(StartCombat())
    win.run(FreeMove("aldric", (13, 9)))
    QApplication.processEvents()
    assert win.actor == "aldric"
    drag(win.view, [(14, 9)], SHIFT)
    drag(win.view, [(16, 11)], SHIFT)
    assert selected_ids(win.scene) == ["aldric", "barry", "grell"]
    assert win.actor == "aldric"  # a multi-selection does not change who acts
    state, ruleset = win.session.referee.state, win.session.referee.ruleset
    attack = next(o for o in ruleset.actions_for(state, "aldric") if o.key == "attack")
    win.combat.arm("aldric", attack)
    drag(win.view, [(14, 9)])  # a plain click on one of the group: the armed attack aims
    assert win.odds_card is not None and win.actor == "aldric"
    assert win.session.referee.log[-1].command == FreeMove("aldric", (13, 9))
