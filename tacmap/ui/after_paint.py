"""Work a window's first paint does not need, done just after that paint (issue 29, item 15).

The GM sees the map sooner; what the first drag or the first chart needs is ready
a moment later, before a hand reaches the mouse.
"""

from __future__ import annotations

from collections.abc import Callable

from tacmap.ui.qt import QEvent, QObject, QTimer, QWidget


class AfterFirstPaint(QObject):
    """Runs ``work`` once, as soon as ``widget`` has been painted for the first time.

    A widget never painted (never shown) never runs it: what it would have prepared is
    then made on first use, as it always could be.
    """

    def __init__(self, widget: QWidget, work: Callable[[], object]) -> None:
        super().__init__(widget)
        self.widget, self.work = widget, work
        self.done = False
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget and event.type() == QEvent.Type.Paint:
            self.widget.removeEventFilter(self)
            # Once the paint is over and on screen, not inside it.
            QTimer.singleShot(0, self.run)
        return False

    def run(self) -> None:
        """Do the work now (once)."""
        if not self.done:
            self.done = True
            self.work()
