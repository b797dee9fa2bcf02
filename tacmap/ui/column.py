"""The right-hand column's heights (issue 36): the turn order grows without pushing the
last result out, and the last result grows to show a whole result, taking its room
from the tabs below it (dice pools, log, roster, dice), never from the turn order."""

from __future__ import annotations

from typing import Protocol

from tacmap.ui.panels.initiative import InitiativePanel
from tacmap.ui.panels.log import LogPanel
from tacmap.ui.qt import QDockWidget, Qt, QTimer

#: The last result's height when the window opens: room for a Fireball's saves.
RESULT_HEIGHT = 200
#: The largest share of the window's height the last result grows to.
RESULT_SHARE = 0.4


class Column(Protocol):
    """What the column needs of the main window."""

    order_dock: QDockWidget
    result_dock: QDockWidget
    order_panel: InitiativePanel
    log_panel: LogPanel

    def height(self) -> int: ...
    def resizeDocks(self, docks: list[QDockWidget], sizes: list[int],
                    orientation: Qt.Orientation) -> None: ...


def wire(window: Column) -> None:
    """Hold the last result's height as the turn order grows, and grow it for a result."""
    window.order_panel.keep_below = lambda: [(window.result_dock, kept(window))]
    window.log_panel.result.wants_room = lambda height: grow_result(window, height)


def kept(window: Column) -> int:
    """The last result's height as the turn order grows: its opening height, or what the
    result shown needs if that is more (and it has it now)."""
    dock, strip = window.result_dock, window.log_panel.result
    needed = dock.height() - strip.height() + strip.sizeHint().height()
    return max(RESULT_HEIGHT, min(dock.height(), needed))


def grow_result(window: Column, strip_height: int) -> None:
    """Make the last result's dock tall enough for a strip of ``strip_height``."""
    dock, strip = window.result_dock, window.log_panel.result
    wanted = min(dock.height() - strip.height() + strip_height,
                 int(window.height() * RESULT_SHARE))
    if wanted > dock.height():
        order = window.order_dock
        window.resizeDocks([order, dock], [order.height(), wanted], Qt.Orientation.Vertical)
        # Laid out later, a dock may come out a title bar short of what was asked: look
        # again then, and ask for what is still missing.
        QTimer.singleShot(0, lambda: _make_up(window, wanted, strip_height))


def _make_up(window: Column, asked: int, strip_height: int) -> None:
    short = strip_height - window.log_panel.result.height()
    dock = window.result_dock
    if short > 0 and dock.height() + short <= int(window.height() * RESULT_SHARE):
        order = window.order_dock
        window.resizeDocks([order, dock], [order.height(), asked + short],
                           Qt.Orientation.Vertical)
