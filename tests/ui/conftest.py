"""UI test set-up: a window on a small skirmish encounter, and real mouse gestures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import StartCombat
from tacmap.engine.model.state import Cell
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.view import MapView
from tacmap.ui.qt import QApplication, QEvent, QMouseEvent, QPoint, QPointF, Qt
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.engine.helpers import skirmish_state


@pytest.fixture(autouse=True)
def tacmap_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Autosaves and the recent list go to a temporary folder."""
    home = tmp_path / "home"
    monkeypatch.setenv("TACMAP_HOME", str(home))
    return home


@pytest.fixture
def encounter_file(tmp_path: Path) -> Path:
    """A saved skirmish encounter with combat started (Ana's turn)."""
    path = tmp_path / "fight.tacmap"
    storage.save(path, skirmish_state(), [])
    return path


@pytest.fixture
def window(qtbot: object, registry: Registry, encounter_file: Path) -> Iterator[MainWindow]:
    """The main window on ``encounter_file``, shown, combat started; questions answered no."""
    session = Session.open(registry, encounter_file)
    told: list[str] = []
    session.referee.execute(StartCombat(("ana", "grul", "bo", "zog")))
    win = MainWindow(registry, session, ask=lambda question: False, tell=told.append)
    win.told = told  # type: ignore[attr-defined]
    yield shown(qtbot, win, (1100, 750), (5, 4))


def shown(qtbot: object, win: MainWindow, size: tuple[int, int],
          centre: tuple[float, float] | None = None) -> MainWindow:
    """``win`` shown at ``size``, at zoom 1 on the cell ``centre`` (when given)."""
    qtbot.addWidget(win)  # type: ignore[attr-defined]
    win.resize(*size)
    win.show()
    QApplication.processEvents()  # the fit on first show runs now, before our zoom
    if centre is not None:
        win.view.set_zoom(1.0)
        win.view.centerOn(QPointF(centre[0] * CELL, centre[1] * CELL))
        QApplication.processEvents()
    return win


def point(view: MapView, cell: tuple[float, float]) -> QPoint:
    """Viewport pixel at the centre of a cell."""
    return view.mapFromScene(QPointF((cell[0] + 0.5) * CELL, (cell[1] + 0.5) * CELL))


def _send(view: MapView, kind: QEvent.Type, at: QPoint, button: Qt.MouseButton,
          buttons: Qt.MouseButton, mods: Qt.KeyboardModifier) -> None:
    event = QMouseEvent(kind, QPointF(at), QPointF(view.viewport().mapToGlobal(at)), button,
                        buttons, mods)
    QApplication.sendEvent(view.viewport(), event)


NO_KEYS = Qt.KeyboardModifier.NoModifier


def drag(view: MapView, cells: list[Cell], mods: Qt.KeyboardModifier = NO_KEYS,
         waypoints: tuple[int, ...] = (), release: bool = True) -> None:
    """Press on ``cells[0]``, move through the rest (right-click at ``waypoints`` indexes)."""
    left = Qt.MouseButton.LeftButton
    _send(view, QEvent.Type.MouseButtonPress, point(view, cells[0]), left, left, mods)
    for i, cell in enumerate(cells[1:], start=1):
        _send(view, QEvent.Type.MouseMove, point(view, cell), Qt.MouseButton.NoButton, left, mods)
        if i in waypoints:
            right = Qt.MouseButton.RightButton
            _send(view, QEvent.Type.MouseButtonPress, point(view, cell), right, left | right, mods)
            _send(view, QEvent.Type.MouseButtonRelease, point(view, cell), right, left, mods)
    if release:
        _send(view, QEvent.Type.MouseButtonRelease, point(view, cells[-1]), left,
              Qt.MouseButton.NoButton, mods)
    QApplication.processEvents()
