"""The player view: the second window the GM shares with the table.

It shows the map, the turn order and the timeline, never GM-only data, and
follows the GM's encounter on every change.
"""

from __future__ import annotations

from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.view import MapView
from tacmap.ui.panels.initiative import InitiativePanel
from tacmap.ui.panels.timeline import TimelinePanel
from tacmap.ui.qt import QDockWidget, QMainWindow, Qt
from tacmap.ui.session import Session


class PlayerView(QMainWindow):
    """The window the GM shares: map, turn order and timeline; never GM-only data.

    Hidden tokens, other sides' hit points and stat blocks are left out; the
    map follows whoever is acting; the panels use larger type for the table.
    """

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.setWindowTitle("tacmap — player view")
        self.scene = MapScene(session.referee.state, session.referee.ruleset,
                              session.image_folder, player=True)
        self.view = MapView(self.scene, None)
        self.setCentralWidget(self.view)
        self.order = InitiativePanel(lambda cmd: False, player=True)
        self.timeline = TimelinePanel(player=True)
        right = Qt.DockWidgetArea.RightDockWidgetArea
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        for title, widget, area in (("Turn order", self.order, right),
                                    ("Timeline", self.timeline, bottom)):
            dock = QDockWidget(title, self)
            dock.setObjectName(f"player-{title}")
            dock.setWidget(widget)
            dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
            self.addDockWidget(area, dock)
        self.timeline_dock = self.findChildren(QDockWidget)[-1]
        self.resize(1200, 800)
        self.sync(session)

    def hidden(self, session: Session) -> frozenset[str]:
        """Ids of the GM-only tokens."""
        return frozenset(t.id for t in session.referee.state.tokens.values() if t.hidden)

    def sync(self, session: Session) -> None:
        """Follow the GM's encounter."""
        state, ruleset = session.referee.state, session.referee.ruleset
        hidden = self.hidden(session)
        self.scene.sync(state)
        order = ruleset.turn_order(state)
        self.order.show_order(state, order, [], hidden)
        timeline = ruleset.timeline(state)
        self.timeline.show_timeline(state, timeline, hidden)
        self.timeline_dock.setVisible(timeline is not None)
        if self.order.active and self.order.active not in hidden:
            self.view.follow(self.order.active)


class PlayerScreen:
    """The player view's life: opened on demand, kept in step, closed with its encounter."""

    def __init__(self) -> None:
        #: The player window while it exists.
        self.window: PlayerView | None = None

    def show(self, session: Session) -> PlayerView:
        """View ▸ Player View: open it (or bring it forward) on ``session``."""
        if self.window is None:
            self.window = PlayerView(session)
        self.window.show()
        self.window.raise_()
        self.window.view.fit()
        return self.window

    def sync(self, session: Session) -> None:
        """Follow a change of the GM's encounter, if the player view is open."""
        if self.window is not None:
            self.window.sync(session)

    def close(self) -> None:
        """Close it (another encounter was opened, or the GM quit)."""
        if self.window is not None:
            self.window.close()
            self.window = None
