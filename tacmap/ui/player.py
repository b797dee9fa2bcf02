"""The player view: the second window the GM shares with the table.

It shows the map, the turn order and the timeline, never GM-only data, and
follows the GM's encounter on every change. The map fits the window (and
refits on every resize, full screen included) until someone zooms or pans it;
Ctrl+0 fits it again. Names and the turn order are set in type readable across
a table; F11 toggles full screen, Esc leaves it.
"""

from __future__ import annotations

from collections.abc import Callable

from tacmap.ui.images import ImageCache
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.view import MapView
from tacmap.ui.panels.initiative import InitiativePanel
from tacmap.ui.panels.timeline import TimelinePanel
from tacmap.ui.qt import (
    QAction,
    QByteArray,
    QCloseEvent,
    QDockWidget,
    QKeySequence,
    QMainWindow,
    Qt,
)
from tacmap.ui.session import Session, place_of, remember_place

#: Name under which the player view's place is remembered between runs.
PLACE = "player"


class PlayerView(QMainWindow):
    """The window the GM shares: map, turn order and timeline; never GM-only data.

    Hidden tokens, other sides' hit points and stat blocks are left out; the
    map keeps whoever is acting in view; the panels use larger type for the table.
    """

    def __init__(self, session: Session, cache: ImageCache | None = None) -> None:
        super().__init__()
        self.setWindowTitle("tacmap — player view")
        self.scene = MapScene(session.referee.state, session.referee.ruleset,
                              session.image_folder, player=True, cache=cache)
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
        # The main window's keys for the same things.
        self._key(lambda: self.view.zoom_by(1.25), "Ctrl+=", "Ctrl++")
        self._key(lambda: self.view.zoom_by(0.8), "Ctrl+-")
        self._key(self.view.fit, "Ctrl+0")
        self._key(self.toggle_full_screen, "F11")
        self._key(self.leave_full_screen, "Esc")
        #: The acting token and its cell when the map last followed it.
        self._followed: tuple[str, int, int] | None = None
        self.resize(1200, 800)
        self.sync(session)

    def _key(self, slot: Callable[[], object], *keys: str) -> QAction:
        """A keyboard shortcut of this window (it has no menus)."""
        action = QAction(self)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.triggered.connect(lambda checked=False: slot())
        self.addAction(action)
        return action

    def hidden(self, session: Session) -> frozenset[str]:
        """Ids of the GM-only tokens and of those the fog hides from the table."""
        return frozenset(t.id for t in session.referee.state.tokens.values()
                         if t.hidden) | self.scene.unseen

    def sync(self, session: Session) -> None:
        """Follow the GM's encounter."""
        state, ruleset = session.referee.state, session.referee.ruleset
        self.scene.images = session.image_folder  # moves when an untitled encounter is saved
        self.scene.sync(state)
        hidden = self.hidden(session)
        if self.scene.tags is not None:
            padding = self.scene.tags.padding()
            if padding != self.view.fit_padding:
                self.view.fit_padding = padding
                if self.view.auto_fit:
                    self.view.fit()
        order = ruleset.turn_order(state)
        self.order.show_order(state, order, [], hidden)
        timeline = ruleset.timeline(state)
        self.timeline.show_timeline(state, timeline, hidden)
        self.timeline_dock.setVisible(timeline is not None)
        active = self.order.active
        if active and active not in hidden and active in state.tokens:
            token = state.tokens[active]
            followed = (active, token.x, token.y)
            # Only when the turn passes or the acting token moves: a map someone
            # panned on purpose stays where it is otherwise.
            if followed != self._followed:
                self._followed = followed
                self.view.follow(active)

    def toggle_full_screen(self) -> None:
        """F11: full screen on the screen the window is on, or back."""
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()

    def leave_full_screen(self) -> None:
        """Esc: out of full screen."""
        if self.isFullScreen():
            self.showNormal()

    def closeEvent(self, event: QCloseEvent) -> None:
        remember_place(PLACE, bytes(self.saveGeometry().data()))
        super().closeEvent(event)


class PlayerScreen:
    """The player view's life: opened on demand, kept in step, closed with its encounter."""

    def __init__(self) -> None:
        #: The player window while it exists.
        self.window: PlayerView | None = None

    def show(self, session: Session, cache: ImageCache | None = None) -> PlayerView:
        """View ▸ Player View: open it where it was last time (or bring it forward).

        ``cache`` is the GM map's decoded images, shared so none is decoded twice.
        """
        if self.window is None:
            self.window = PlayerView(session, cache)
            place = place_of(PLACE)
            if place is not None:
                self.window.restoreGeometry(QByteArray(place))
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()
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
