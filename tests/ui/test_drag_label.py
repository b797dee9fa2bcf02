"""The drag label in the window: every reach left is named without one label on another,
what the move spends is said, and the label keeps off the tokens by the destination."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import StartCombat
from tacmap.engine.model.state import MapSpec, Token
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.map.layers import DragOverlay
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import QRectF
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import drag, shown


@pytest.fixture
def opposed_window(qtbot: object, registry: Registry, tmp_path: Path) -> Iterator[MainWindow]:
    """Ana at (8,4) between Brak (9,3) and Cid (9,5); Dav at (5,5) by her way west."""
    rules = registry.get("opposed")
    state = rules.new_encounter("Passing by", seed=1)
    state.map = MapSpec(16, 10)
    for t in (Token("ana", "Ana", "party", 8, 4, hp=20, max_hp=20),
              Token("brak", "Brak", "foes", 9, 3, hp=20, max_hp=20),
              Token("cid", "Cid", "foes", 9, 5, hp=20, max_hp=20),
              Token("dav", "Dav", "foes", 5, 5, hp=20, max_hp=20)):
        state.tokens[t.id] = t
    path = tmp_path / "passing.tacmap"
    storage.save(path, state, [])
    session = Session.open(registry, path)
    session.referee.execute(StartCombat(("ana", "brak", "cid", "dav")))
    win = MainWindow(registry, session, ask=lambda question: False, tell=lambda text: None)
    yield shown(qtbot, win, (1100, 750), (6, 4))


def token_rect(x: int, y: int) -> QRectF:
    return QRectF(x * CELL, y * CELL, CELL, CELL)


def test_the_drag_label_names_every_reach_left_apart_and_what_the_move_spends(
        opposed_window: MainWindow) -> None:
    win = opposed_window
    drag(win.view, [(8, 4), (6, 4), (2, 4)], release=False)
    overlay: DragOverlay = win.scene.overlay
    assert overlay.view is not None and overlay.view.legal
    # Brak and Cid are left at the first step, Dav after the path has passed him by.
    texts = [text for _, _, text in overlay.warning_boxes]
    assert texts == ["leaves the reach of Brak and Cid", "leaves Dav's reach"]
    boxes = [rect for _, rect, _ in overlay.warning_boxes] + [overlay.label_box]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.intersects(b), (a, b)
    # "Move Action > Standard Action > Move Action": 6 m is the first move.
    assert overlay.view.label == "6 m of 12 m"
    assert overlay.view.uses.startswith("first move: no full-round action after this")
    status = win.statusBar().currentMessage()
    assert "first move" in status and "Brak, then Cid, then Dav" in status
    # The label covers neither the ghost at (2,4) nor a token near it.
    for x, y in ((2, 4), (5, 5)):
        assert not overlay.label_box.intersects(token_rect(x, y))


def test_the_label_stays_on_screen_by_the_windows_edge(opposed_window: MainWindow) -> None:
    """Issue 36 item 19: a move label by the window's right edge ran under the dock."""
    win = opposed_window
    view = win.view
    seen = view.mapToScene(view.viewport().rect()).boundingRect()
    edge = int(seen.right() // CELL) - 1  # the last whole column on screen
    drag(win.view, [(8, 4), (edge, 4)], release=False)
    overlay: DragOverlay = win.scene.overlay
    assert overlay.view is not None
    assert seen.contains(overlay.label_box), (overlay.label_box, seen)
