"""What a window's first paint does not need (issue 29, item 15): modules imported when
first used, and work done just after that paint.

The GM sees the map sooner; what the first drag or the first menu command needs is
ready a moment later, or made when asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from tacmap.ui.qt import QEvent, QObject, QTimer, QWidget


class OnFirstUse:
    """Stands for the module ``name``, imported when one of its names is first read.

    Declare the real module for the type checker beside it::

        if TYPE_CHECKING:
            from tacmap.ui import imports
        else:
            imports = OnFirstUse("tacmap.ui.imports")
    """

    def __init__(self, name: str) -> None:
        self.module_name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self.module_name), attr)


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
        """Do the work now (once), if the widget is still shown: a window closed or a map
        replaced in the meantime has nothing to prepare, and its work could undo another's
        (a cache the new map has just filled)."""
        if self.done:
            return
        self.done = True
        try:
            shown = self.widget.isVisible()
        except RuntimeError:  # the widget itself is gone
            shown = False
        if shown:
            self.work()


#: Seconds after the window shows before the charting library is imported in passing.
WARM_AFTER = 1.5


def warm_charts(widget: QWidget, then: Callable[[], object] = lambda: None) -> None:
    """Import pyqtgraph once the window has been up a moment and no button is held.

    The first paint does without it (issue 29), but the Forecast dock, the timeline and
    the odds card's chart need it, and its import holds the window for about 0.4 s: paid
    here, between two gestures, rather than when the GM opens the dock (issue 36: the
    dock's opening blocks the window at most 100 ms). ``then`` runs after it (the dock's
    charts are made there too).
    """
    from tacmap.ui.qt import QApplication, Qt

    def warm() -> None:
        if QApplication.mouseButtons() != Qt.MouseButton.NoButton:
            QTimer.singleShot(int(WARM_AFTER * 1000), widget, warm)  # a drag under way: later
            return
        importlib.import_module("pyqtgraph")
        then()

    QTimer.singleShot(int(WARM_AFTER * 1000), widget, warm)
