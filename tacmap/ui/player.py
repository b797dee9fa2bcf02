"""The player view: the second window the GM shares with the table.

It shows the map, the turn order and the timeline, never GM-only data, and
follows the GM's encounter on every change. The map fits the window (and
refits on every resize, full screen included) until someone zooms or pans it;
Ctrl+0 fits it again. The fit takes in the whole map while that draws a
token at least ``MIN_TOKEN`` pixels across, else only the tokens (and two
cells round them).
Names and the turn order are set in type readable across a table; F11
toggles full screen, Esc leaves it.

It opens full screen on a second screen when there is one; otherwise as a
window big enough for ``MIN_TOKEN`` tokens (at most 92 % of the screen:
a map too big for that is framed round its tokens, which
then get ``MIN_TOKEN`` whenever they lie close enough together).

Every word of the turn order and the timeline goes through the player filter
(``tacmap.engine.play.players``), as the players' report does.
The turn order shows what the table sees: rows of tokens the players cannot
see are left out, and while such a token acts (an ambush's surprise round)
nobody is marked acting and the heading stays the last one the players saw,
over every combatant they can see. A "someone acts" line would tell them the
ambush is coming as surely as an empty list.
"""

from __future__ import annotations

from collections.abc import Callable

from tacmap.engine.model.state import Encounter, OutOfFight, marked_dead
from tacmap.engine.play.players import PlayerFilter
from tacmap.engine.rules.views import OrderRow, Timeline, TimelineItem, TurnOrder
from tacmap.ui.house_rules import in_force_lines
from tacmap.ui.images import ImageCache
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.view import MapView
from tacmap.ui.panels.initiative import PLAYER_ROW_PT, InitiativePanel
from tacmap.ui.panels.timeline import TimelinePanel
from tacmap.ui.plain import label
from tacmap.ui.qt import (
    QAction,
    QApplication,
    QByteArray,
    QCloseEvent,
    QDockWidget,
    QGuiApplication,
    QKeySequence,
    QMainWindow,
    QRect,
    QScreen,
    QShowEvent,
    QSize,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
)
from tacmap.ui.session import Session, place_of, remember_place

#: Name under which the player view's place is remembered between runs.
PLACE = "player"
#: Smallest token edge the player view draws, in screen pixels: seen across a table.
MIN_TOKEN = 40.0
#: Part of the screen a windowed player view may take at most.
MOST_OF_SCREEN = 0.92


def keep_title_whole(dock: QDockWidget, least: int = 0) -> None:
    """Make ``dock`` at least as wide as its title and its buttons (and ``least``)."""
    widget = dock.widget()
    if widget is None:
        return
    metrics = dock.fontMetrics()
    # The title, the float and close buttons, and the frame's margins.
    wanted = max(least, metrics.horizontalAdvance(dock.windowTitle()) + 2 * 24 + 24)
    widget.setMinimumWidth(max(widget.minimumWidth(), wanted))


def players_order(state: Encounter, order: TurnOrder | None, hidden: frozenset[str],
                  last_title: str, out: OutOfFight = marked_dead) -> TurnOrder | None:
    """The turn order as the players see it: no row of a token they cannot see.

    While only such tokens act, no row is marked acting, the heading is
    ``last_title`` (the one the players last saw) and, should no row be left,
    every token they can see still in the fight (not ``out``) is listed: the table
    sees nothing change.
    """
    if order is None:
        return None
    rows = tuple(r for r in order.rows if r.id not in hidden)
    someone_hidden_acts = any(r.state == "acting" and r.id in hidden for r in order.rows)
    if not someone_hidden_acts or any(r.state == "acting" for r in rows):
        return TurnOrder(order.title, rows)
    if not rows:
        rows = tuple(OrderRow(t.id, t.name, t.side, "", "waiting")
                     for t in state.tokens.values() if t.id not in hidden and not out(t))
    return TurnOrder(last_title, rows)


def players_lines(order: TurnOrder | None, timeline: Timeline | None, players: PlayerFilter,
                  last_title: str) -> tuple[TurnOrder | None, Timeline | None]:
    """The turn order and the timeline with every word through the player filter: a row
    or a bar it refuses is left out, a heading it refuses stays ``last_title``."""
    if order is not None:
        rows = []
        for r in order.rows:
            name, key = players.line(r.name, {r.id}), players.line(r.key, {r.id})
            if name is not None and key is not None:
                rows.append(OrderRow(r.id, name, r.side, key, r.state))
        order = TurnOrder(players.line(order.title) or last_title, tuple(rows))
    if timeline is not None:
        items = []
        for i in timeline.items:
            label = players.line(i.label, {i.actor})
            struck = players.line(i.struck, {i.actor}) if i.struck else ""
            if label is not None and struck is not None:
                items.append(TimelineItem(i.actor, label, i.start, i.end, i.carried, struck))
        phases = tuple(players.line(p) or "" for p in timeline.phases)
        timeline = Timeline(phases, timeline.current, tuple(items))
    return order, timeline


def screen_room(window: QWidget) -> QRect:
    """The part of ``window``'s screen a window may take (without the task bar)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 800)


def second_screen(beside: QWidget | None) -> QScreen | None:
    """A screen other than the GM's (the one ``beside`` is on), if there is one."""
    screens = QGuiApplication.screens()
    if len(screens) < 2:
        return None
    gm = beside.screen() if beside is not None else QGuiApplication.primaryScreen()
    return next((s for s in screens if s is not gm), None)


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
        self.view.min_token = MIN_TOKEN
        self.view.refit_on_any_resize = True
        # The table does not scroll: the map follows whoever acts.
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setCentralWidget(self.view)
        self.order = InitiativePanel(lambda cmd: False, player=True)
        self.timeline = TimelinePanel(player=True)
        #: The house rules in force that differ from the ruleset's defaults (issue 37):
        #: the table plays by them, so the players see them under the turn order.
        self.house_rules = label()
        self.house_rules.setWordWrap(True)
        self.house_rules.setObjectName("player-house-rules")
        font = self.house_rules.font()
        font.setPointSizeF(PLAYER_ROW_PT * 0.8)
        self.house_rules.setFont(font)
        beside = QWidget()
        column = QVBoxLayout(beside)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.order, 1)
        column.addWidget(self.house_rules)
        right = Qt.DockWidgetArea.RightDockWidgetArea
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        for title, widget, area in (("Turn order", beside, right),
                                    ("Timeline", self.timeline, bottom)):
            dock = QDockWidget(title, self)
            dock.setObjectName(f"player-{title}")
            dock.setWidget(widget)
            dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
            self.addDockWidget(area, dock)
            keep_title_whole(dock)
        self.order_dock, self.timeline_dock = self.findChildren(QDockWidget)[-2:]
        # The main window's keys for the same things.
        self._key(lambda: self.view.zoom_by(1.25), "Ctrl+=", "Ctrl++")
        self._key(lambda: self.view.zoom_by(0.8), "Ctrl+-")
        self._key(self.view.fit, "Ctrl+0")
        self._key(self.toggle_full_screen, "F11")
        self._key(self.leave_full_screen, "Esc")
        #: The acting token and its cell when the map last followed it.
        self._followed: tuple[str, int, int] | None = None
        #: The turn order's heading as the players last saw it.
        self._title = "Before combat"
        #: The size ``size_for_tokens`` gave the window (None before it did).
        self._sized: QSize | None = None
        #: Whether the docks were fitted snugly round their contents on first show.
        self._snug = False
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
        order = players_order(state, ruleset.turn_order(state), hidden, self._title,
                              ruleset.out_of_fight)
        order, timeline = players_lines(order, ruleset.timeline(state), PlayerFilter(
            state, ruleset.secret_conditions(), self.scene.unseen), self._title)
        self._title = order.title if order is not None else "Before combat"
        self.order.show_order(state, order, [], hidden)
        rules = in_force_lines(ruleset.manifest.options, state)
        self.house_rules.setText("House rules: " + "; ".join(rules) if rules else "")
        self.house_rules.setVisible(bool(rules))
        self.timeline.show_timeline(state, timeline, hidden)
        # Its room is kept from the start, as in the GM's window: the window is sized for
        # 40 px tokens with the timeline in it, and combat starting shrinks nothing.
        self.timeline_dock.setVisible(ruleset.has_timeline())
        active = self.order.active
        if active and active not in hidden and active in state.tokens:
            token = state.tokens[active]
            followed = (active, token.x, token.y)
            # Only when the turn passes or the acting token moves: a map someone
            # panned on purpose stays where it is otherwise.
            if followed != self._followed:
                self._followed = followed
                self.view.follow(active)

    def snug_docks(self) -> None:
        """Give the map the room: the turn order as wide as its rows, the timeline a fifth."""
        self.resizeDocks([self.order_dock], [self.order.minimumSizeHint().width()],
                         Qt.Orientation.Horizontal)
        if self.timeline_dock.isVisible():
            tall = max(self.timeline.minimumSizeHint().height(), self.height() // 5)
            self.resizeDocks([self.timeline_dock], [tall], Qt.Orientation.Vertical)
        layout = self.layout()
        if layout is not None:
            layout.activate()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._snug:
            self._snug = True
            QTimer.singleShot(0, self.snug_docks)

    def size_for_tokens(self, screen: QRect) -> None:
        """Windowed: as big as the whole map needs for ``MIN_TOKEN`` tokens, within ``screen``."""
        self.snug_docks()
        room = self.view.viewport().size()
        extra_w, extra_h = self.width() - room.width(), self.height() - room.height()
        left, top, right, bottom = self.view.fit_padding
        whole = self.view.map_rect()
        per_unit = MIN_TOKEN / CELL
        width = int((whole.width() + CELL) * per_unit + left + right) + extra_w
        height = int((whole.height() + CELL) * per_unit + top + bottom) + extra_h
        most_w, most_h = int(screen.width() * MOST_OF_SCREEN), int(screen.height() * MOST_OF_SCREEN)
        width = min(most_w, max(width, self.width()))
        height = min(most_h, max(height, self.height()))
        self.resize(width, height)
        self.move(screen.center().x() - width // 2, screen.center().y() - height // 2)
        # While it keeps this size its tokens stay MIN_TOKEN across (a window the GM
        # resizes, or full screen, fits as it always has).
        self._sized = self.size()
        self.view.hold_min_token = lambda: not self.isFullScreen() and self.size() == self._sized
        if self.view.auto_fit:
            self.view.fit()

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

    def show(self, session: Session, cache: ImageCache | None = None,
             beside: QWidget | None = None) -> PlayerView:
        """View ▸ Player View: full screen on a second screen, else a window (or bring it forward).

        ``cache`` is the GM map's decoded images, shared so none is decoded twice;
        ``beside`` is the GM's window (the player view avoids its screen).
        """
        if self.window is not None:
            self.window.show()
        else:
            self.window = window = PlayerView(session, cache)
            gm = beside if beside is not None else QApplication.activeWindow()
            other = second_screen(gm)
            if other is not None:
                window.setScreen(other)
                window.setGeometry(other.geometry())
                window.showFullScreen()
            else:
                place = place_of(PLACE)
                if place is not None:
                    window.restoreGeometry(QByteArray(place))
                window.show()
                # Never smaller than a readable map: a place kept from a smaller
                # window is enlarged.
                window.size_for_tokens(screen_room(window))
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
