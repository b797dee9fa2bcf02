"""The main window: the map in the middle, menus, status bar, docks for the panels.

What the GM does lives with the task it belongs to: files.py (the File menu,
sessions, autosave), build.py (the Build menu, the map image), roster.py (the
Roster panel), combat.py (Combat and Edit, clicks on tokens, the odds card) and
player.py (View ▸ Player View); the menus and the Tools toolbar are laid out
in menus.py. This file only wires them together: it builds the docks and
panels, binds an encounter to a map view, and redraws the panels when the
referee reports a change.
"""

from __future__ import annotations

from pathlib import Path

from tacmap.engine.files.roster import Roster
from tacmap.engine.model.commands import Command
from tacmap.engine.play.referee import Change, Entry
from tacmap.engine.rules.options import acting_token
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import TurnOrder
from tacmap.ui import column, settings
from tacmap.ui.ask import (
    Ask,
    AskDice,
    AskFile,
    AskImage,
    AskMetres,
    AskSave,
    AskTags,
    AskWords,
    Dialogs,
    Tell,
    save_first_dialog,
)
from tacmap.ui.autopilot import Pilot
from tacmap.ui.build import Builder
from tacmap.ui.combat import Combat
from tacmap.ui.files import Files
from tacmap.ui.groups import GroupActions
from tacmap.ui.later import AfterFirstPaint, warm_charts
from tacmap.ui.map.hint import EMPTY_MAP, FIRST_RUN, MapHint
from tacmap.ui.map.look import acting
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.view import MapView
from tacmap.ui.menus import WindowMenus
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.panels.dice import DicePanel, scrolled
from tacmap.ui.panels.forecast import ForecastDock
from tacmap.ui.panels.initiative import END_TURN_KEY, InitiativePanel
from tacmap.ui.panels.log import LogPanel
from tacmap.ui.panels.pools import PoolPanel
from tacmap.ui.panels.timeline import TimelinePanel
from tacmap.ui.plain import tip
from tacmap.ui.player import PlayerScreen, PlayerView
from tacmap.ui.pointing import Pointing
from tacmap.ui.qt import (
    QByteArray,
    QCloseEvent,
    QDockWidget,
    QGuiApplication,
    QLabel,
    QMenu,
    QPoint,
    QScrollArea,
    QShowEvent,
    QStatusBar,
    Qt,
    QTimer,
    QWidget,
)
from tacmap.ui.roster import RosterActions
from tacmap.ui.session import Session, place_of, remember_place, work_folder
from tacmap.ui.token_form import TokenForm
from tacmap.ui.token_menu import TokenGm

#: Name under which the main window's place is remembered between runs.
PLACE = "main"
#: The status bar's resting line once combat has started.
IN_COMBAT = f"{END_TURN_KEY} ends the turn · right-click a token for its actions · F1 for help"


class MainWindow(WindowMenus):
    """The GM's window on one encounter."""

    def __init__(self, registry: Registry, session: Session, ask: Ask | None = None,
                 tell: Tell | None = None, ask_save: AskSave | None = None) -> None:
        super().__init__()
        self.registry = registry
        # The questions put to the GM: dialogs, unless a test answers them.
        dialogs = Dialogs(self, lambda: str(work_folder(self.session)))
        self.ask: Ask = ask or dialogs.ask
        self.ask_save: AskSave = ask_save or (
            (lambda q: bool(ask(q))) if ask is not None else save_first_dialog)
        self.tell: Tell = tell or dialogs.tell
        self.ask_dice: AskDice = dialogs.dice
        self.ask_metres: AskMetres = dialogs.metres
        self.ask_tags: AskTags = dialogs.tags
        self.ask_words: AskWords = dialogs.words
        self.ask_file: AskFile = dialogs.roster_file
        self.ask_image: AskImage = dialogs.portrait
        self.session = session
        self.actor: str | None = None
        self._shown = False
        # The GM's tasks.
        self.files = Files(self)
        self.build = Builder(self)
        self.rosters = RosterActions(self)
        self.combat = Combat(self)
        self.groups = GroupActions(self, self.build.remove_combatant)
        self.token_gm = TokenGm(self, self.build)
        self.players = PlayerScreen()
        self.pointing = Pointing(self, self, self.players, self.open_path, self.build)
        # The panels, docked around the map.
        self.order_panel = InitiativePanel(self.run, aim=self.combat.arm,
                                           act=self.combat.take)
        self.pool_panel = PoolPanel()
        self.timeline_panel = TimelinePanel()
        self.log_panel = LogPanel()
        self.roster_panel = self.rosters.panel
        pools = QScrollArea()
        pools.setWidget(self.pool_panel)
        pools.setWidgetResizable(True)
        right = Qt.DockWidgetArea.RightDockWidgetArea
        self.order_dock = self._dock("Turn order", self.order_panel, right)
        self.pool_dock = self._dock("Dice pools", pools, right)
        self.log_dock = self._dock("Log", self.log_panel, right)
        self.timeline_dock = self._dock("Timeline", self.timeline_panel,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        # The right-hand column runs to the bottom: the timeline lies under the map only.
        self.setCorner(Qt.Corner.BottomRightCorner, right)
        self.roster_dock = self._dock("Roster", self.roster_panel, right)
        # The last result stays in view below the turn, whichever tab is raised.
        self.result_dock = self._dock("Last result", self.log_panel.result, right)
        self.splitDockWidget(self.order_dock, self.result_dock, Qt.Orientation.Vertical)
        column.wire(self)
        self.tabifyDockWidget(self.pool_dock, self.log_dock)
        self.tabifyDockWidget(self.log_dock, self.roster_dock)
        self.dice_panel = DicePanel(self.run, lambda: next(reversed(self.session.referee.log),
                                                           None))
        self.dice_dock = self._dock("Dice", scrolled(self.dice_panel), right)
        self.tabifyDockWidget(self.roster_dock, self.dice_dock)
        self.pool_dock.raise_()
        # The status bar is there from the start and never changes height: a message
        # appearing mid-drag must not shrink the map under the mouse.
        bar = QStatusBar()
        self.idle_text = QLabel(FIRST_RUN)
        self.idle_text.setObjectName("status-hint")
        bar.addWidget(self.idle_text, 1)
        bar.setFixedHeight(bar.sizeHint().height())
        self.setStatusBar(bar)
        self.hint: MapHint | None = None
        self.forecast = ForecastDock(self, self)  # Combat ▸ Forecast, GM only
        self.pilot = Pilot(self)  # Combat ▸ Autopilot
        self.build_menus()
        self.bind(session)
        self.resize(1280, 800)
        warm_charts(self, lambda: self.forecast.panel)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(title.lower().replace(" ", "-"))
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    # --- binding an encounter -------------------------------------------------------------

    def bind(self, session: Session) -> None:
        """Show ``session``: a new map scene and view, the panels redrawn from it."""
        self.combat.close_card()  # a card aimed in the old encounter must not act on the new one
        self.session = session
        self.files.attach(session)
        self.scene = MapScene(session.referee.state, session.referee.ruleset,
                              session.image_folder)
        self._told_images: set[str] = set()
        self.view = MapView(self.scene, session.referee)
        self.view.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.view.token_clicked.connect(self.combat.token_clicked)
        self.view.in_hand = self.forecast.hold
        self.view.token_menu.connect(self.token_menu)
        self.view.door_menu.connect(self.door_menu)
        self.view.moved.connect(self.combat.dragged)
        self.view.roster_dropped.connect(self.rosters.place_from_roster)
        self.view.area_menu.connect(self.build.template_menu)
        self.build.attach(self.scene)
        self.pointing.attach()
        # A new map must not hand its room to the docks: keep their width as it was.
        docked = self.order_dock.width() if self.order_dock.isVisible() else 0
        self.setCentralWidget(self.view)
        if docked:
            QTimer.singleShot(0, lambda: self._settle_docks(docked))
        self.statusBar().clearMessage()  # the last encounter's words are not this one's
        # The first-run hint lies over the map until combat starts.
        self.hint = MapHint(FIRST_RUN, self.view)
        session.referee.subscribe(self._on_change)
        self.actor = None
        #: Who was acting at the last redraw: when it changes, a turn has begun.
        self._turn: tuple[str, tuple[str, ...] | None] | None = None
        self.log_panel.show_log(session.referee.state, session.referee.log)
        self.roster_panel.refresh()
        self.refresh()
        self.show_image_problems()
        # The walls' raster just after the first paint: the first drag must not stall.
        AfterFirstPaint(self.view.viewport(), self._warm_walls)
        self.view.fit()
        self.players.close()

    def _settle_docks(self, docked: int) -> None:
        """The docks back at their width, then the new map fitted into the room it has."""
        self.resizeDocks([self.order_dock], [docked], Qt.Orientation.Horizontal)
        layout = self.layout()
        if layout is not None:
            layout.activate()  # the map view takes its room now, so the fit below sees it
        self.view.fit()

    def _warm_walls(self) -> None:
        referee = self.session.referee
        _ = referee.ruleset.space.walls(referee.state).blocked_steps

    def _on_change(self, change: Change, entry: Entry | None) -> None:
        if entry is not None:
            if change == "undo":
                self.log_panel.pop()
            else:
                self.log_panel.append(self.session.referee.state, entry)
        self.refresh()
        if change == "execute" and entry is not None:
            self.combat.executed(entry)  # floats over the tokens just redrawn

    def show_image_problems(self) -> None:
        """Name in the status bar each image not drawn (unreadable or too large), once."""
        problems = self.scene.problems
        new = [p for p in problems if p not in self._told_images]
        if new:
            self._told_images.update(new)
            text = "; ".join(new)
            self.statusBar().showMessage(text[0].upper() + text[1:], 15000)

    def refresh(self) -> None:
        """Redraw the map, the panels, the player view and the menus' ticks from the state."""
        state, ruleset = self.session.referee.state, self.session.referee.ruleset
        self.scene.images = self.session.image_folder  # moves when an untitled one is saved
        self.scene.sync(state)
        self.show_image_problems()
        if self.actor is not None and self.actor not in state.tokens:
            self.actor = None
        order = ruleset.turn_order(state)
        active = self.show_turn(order)
        self._turn_began(order, active)
        pools = ruleset.dice_pools(state)
        self.pool_panel.show_pools(pools, self.actor or active)
        timeline = ruleset.timeline(state)
        self.timeline_panel.show_timeline(state, timeline)
        self.timeline_dock.setVisible(ruleset.has_timeline())
        idle = FIRST_RUN if state.tokens else EMPTY_MAP
        if self.hint is not None:
            self.hint.setVisible(order is None)
            self.hint.setText(idle)
        self.idle_text.setText(idle if order is None else IN_COMBAT)
        self.players.sync(self.session)
        self.setWindowTitle(self.session.title)
        self.tick(state, bool(self.session.referee.log), bool(self.session.referee.redo_stack))
        self.pilot.tick()

    def show_turn(self, order: TurnOrder | None) -> str | None:
        """The turn order and the actions of whoever acts now; returns that token."""
        state, ruleset = self.session.referee.state, self.session.referee.ruleset
        active = acting_token(state, order, self.actor, ruleset.out_of_fight)
        if order is None and self.actor in state.tokens:
            # Before combat the panel offers what the selected token may do (set up a
            # surprise, move freely …), so a ruleset's set-up needs no other door.
            active = self.actor
        self.order_panel.show_order(state, order,
                                    ruleset.actions_for(state, active) if active else [],
                                    actor=active)
        return active

    def _turn_began(self, order: TurnOrder | None, active: str | None) -> None:
        """A new turn: select whoever acts and say whose turn it is (the last turn's
        messages, "click the target" or a refusal, no longer apply)."""
        acting = tuple(r.id for r in order.rows if r.state == "acting") if order else None
        # A new phase or round with the same token to act is a new turn to announce too.
        turn = (order.title, acting) if order is not None else None
        if turn == self._turn:
            return
        self._turn = turn
        if order is None or not acting:
            return
        self.combat.turn_began()
        if active is not None and active != self.actor:
            self.actor = active
            self.view.select(active)
        names = ", ".join(r.name for r in order.rows if r.state == "acting")
        self.statusBar().showMessage(f"{order.title}: {names} to act", 8000)

    def token_menu(self, token_id: str, at: QPoint) -> QMenu:
        """Right-click on a token: its own actions when it may act, else the selected one's on it.

        A right-click on a token whose turn it is selects it first, so its menu never
        lists another token's actions against it.
        """
        state, ruleset = self.session.referee.state, self.session.referee.ruleset
        order = ruleset.turn_order(state)
        now = acting(state, ruleset)  # token ids, or sides where a whole side acts
        if token_id != self.actor and (token_id in now or state.tokens[token_id].side in now):
            self.select(token_id)
        menu = self.combat.build_token_menu(token_id)
        if self.actor in (None, token_id) or order is None:
            options = ruleset.actions_for(state, token_id)
            if options:
                menu.addSection(f"{state.tokens[token_id].name}'s actions")
            for option in options:
                item = menu.addAction(option.label)
                item.setEnabled(option.enabled)
                item.setToolTip(tip(option.reason))
                take = self.combat.take if option.target == "none" else self.combat.arm
                item.triggered.connect(lambda _=False, o=option, act=take: act(token_id, o))
        self.token_gm.add_to(menu, token_id)
        menu.popup(at)
        self.combat.menu = menu
        return menu

    def select(self, token_id: str | None) -> None:
        """Make ``token_id`` the selected token (the one that acts when a target is clicked)."""
        self.actor = token_id
        self.view.select(token_id)
        state, ruleset = self.session.referee.state, self.session.referee.ruleset
        self.pool_panel.show_pools(ruleset.dice_pools(state), token_id)
        # Where a whole side acts, picking one of its members shows that member's actions.
        self.show_turn(ruleset.turn_order(state))

    def end_tool(self) -> None:
        """Put the map tool down."""
        self.build.end_tool()

    def error(self, text: str) -> None:
        """A problem: in the status bar and told to the GM."""
        self.statusBar().showMessage(text, 15000)
        self.tell(text)

    # --- what the GM does, by name (the menus above and tests call these) -------------------

    def run(self, command: Command) -> bool:
        """Send a command to the referee; a refusal goes to the status bar."""
        return self.combat.run(command)

    def token_clicked(self, token_id: str) -> None:
        """Click on a token: aim the selected token at an enemy, or select it."""
        self.combat.token_clicked(token_id)

    @property
    def odds_card(self) -> OddsCard | None:
        """The odds card on screen, if any."""
        return self.combat.odds_card

    @property
    def physical_dice(self) -> bool:
        """Whether the GM rolls real dice and types the faces in."""
        return self.combat.physical_dice

    def open_path(self, path: Path) -> bool:
        """Open an encounter file; a bad file leaves the current one as it was."""
        return self.files.open_path(path)

    def start_new(self, ruleset_id: str, width: int, height: int, name: str = "New encounter",
                  diagonal: str = "") -> None:
        """An empty, unsaved encounter (``diagonal`` empty: the ruleset's own rule)."""
        self.files.start_new(ruleset_id, width, height, name, diagonal)

    def save(self) -> bool:
        """File ▸ Save (asks where when the encounter has no file yet)."""
        return self.files.save()

    def add_combatant(self) -> TokenForm:
        """Build ▸ Add Combatant."""
        return self.build.add_combatant()

    def edit_combatant(self) -> TokenForm | None:
        """Build ▸ Edit Combatant."""
        return self.build.edit_combatant()

    def duplicate_combatant(self) -> None:
        """Build ▸ Duplicate Combatant."""
        self.build.duplicate_combatant()

    def remove_combatant(self) -> None:
        """Build ▸ Remove Combatant."""
        self.build.remove_combatant()

    def use_image(self, source: Path) -> None:
        """Copy ``source`` beside the encounter and make it the map image."""
        self.build.use_image(source)

    def roster(self) -> Roster | None:
        """The roster database (None, with a message, if unreadable)."""
        return self.rosters.roster()

    def save_to_roster(self) -> None:
        """Keep the selected combatant in the roster, with tags."""
        self.rosters.save_to_roster()

    @property
    def player(self) -> PlayerView | None:
        """The player view, while it is open."""
        return self.players.window

    # --- the window's own life --------------------------------------------------------------

    def place(self) -> None:
        """Where the GM left the window last time; the first time, the whole screen.

        (``tacmap`` calls this before showing the window; tests leave it alone.)
        """
        saved = place_of(PLACE)
        if saved is not None and self.restoreGeometry(QByteArray(saved)):
            return
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            self.setGeometry(screen.availableGeometry())
            self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._shown:
            # Fit once the window has its real size, not the size it had when built.
            self._shown = True
            # The last result gets room for a Fireball's saves; the tabs below take the rest.
            QTimer.singleShot(0, lambda: self.resizeDocks(
                [self.result_dock], [column.RESULT_HEIGHT], Qt.Orientation.Vertical))
            QTimer.singleShot(0, self.view.fit)
            QTimer.singleShot(0, self._tell_settings_problem)

    def _tell_settings_problem(self) -> None:
        """A damaged settings file was set aside: the first window says so, once."""
        notice = settings.take_notice()
        if notice:
            self.statusBar().showMessage(notice, 15000)
            self.tell(notice)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.files.may_leave():
            event.ignore()
            return
        remember_place(PLACE, bytes(self.saveGeometry().data()))
        self.files.close()
        self.players.close()
        self.forecast.close()
        self.pilot.close()
        event.accept()
