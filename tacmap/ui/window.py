"""The main window: the map in the middle, menus, status bar, docks for the panels.

What the GM does lives with the task it belongs to: files.py (the File menu,
sessions, autosave), build.py (the Build menu, the map image), roster.py (the
Roster panel), combat.py (Combat and Edit, clicks on tokens, the odds card) and
player.py (View ▸ Player View). This file only wires them together: it builds
the menus, docks and panels, binds an encounter to a map view, and redraws the
panels when the referee reports a change.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from tacmap.engine.commands import Command, EndTurn, SetDiagonal, SetDoor, SetFog, StartCombat
from tacmap.engine.options import acting_token
from tacmap.engine.referee import Change, Entry
from tacmap.engine.roster import Roster
from tacmap.engine.ruleset import Registry
from tacmap.engine.state import DIAGONAL_RULES
from tacmap.engine.views import TurnOrder
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
from tacmap.ui.build import Builder
from tacmap.ui.combat import Combat
from tacmap.ui.files import Files
from tacmap.ui.help import add_help_menu
from tacmap.ui.map.hint import FIRST_RUN, MapHint
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.view import MapView
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.panels.initiative import END_TURN_KEY, InitiativePanel
from tacmap.ui.panels.log import LogPanel
from tacmap.ui.panels.pools import PoolPanel
from tacmap.ui.panels.timeline import TimelinePanel
from tacmap.ui.player import PlayerScreen, PlayerView
from tacmap.ui.qt import (
    QAction,
    QByteArray,
    QCloseEvent,
    QDockWidget,
    QGuiApplication,
    QKeySequence,
    QLabel,
    QMainWindow,
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
from tacmap.ui.session import Session, place_of, remember_place
from tacmap.ui.token_form import TokenForm

#: Build ▸ tools: key, menu text, shortcut.
TOOLS = (("wall", "Draw &Wall", "Ctrl+Shift+W"),
         ("obstacle", "Draw &Obstacle", "Ctrl+Shift+O"),
         ("door", "Draw D&oor", "Ctrl+Shift+D"),
         ("window", "Draw W&indow", None),
         ("erase", "E&rase Wall", "Ctrl+Shift+X"),
         ("move", "&Move Wall", "Ctrl+Shift+M"),
         ("scale", "&Scale Map Image by Two Points", None),
         ("template", "Area &Template", "Ctrl+Shift+T"),
         ("reveal", "Re&veal Area (Fog)", None),
         ("hide", "&Hide Area (Fog)", None))
#: Build ▸ Template Shape: the shapes the Area Template tool draws.
SHAPE_NAMES = (("circle", "&Circle"), ("cone", "C&one"), ("line", "&Line"),
               ("square", "&Square"))
#: Build ▸ Template Shape ▸ Cone Angle and Line Width: the choices offered.
CONE_ANGLES = (45.0, 60.0, 90.0, 120.0)
LINE_WIDTHS = (1, 2, 3, 4)
#: Name under which the main window's place is remembered between runs.
PLACE = "main"
#: The status bar's resting line once combat has started.
IN_COMBAT = f"{END_TURN_KEY} ends the turn · right-click a token for its actions · F1 for help"


def set_quietly(action: QAction, checked: bool) -> None:
    """Tick or untick ``action`` without running what its toggle does."""
    action.blockSignals(True)
    action.setChecked(checked)
    action.blockSignals(False)


class MainWindow(QMainWindow):
    """The GM's window on one encounter."""

    def __init__(self, registry: Registry, session: Session, ask: Ask | None = None,
                 tell: Tell | None = None, ask_save: AskSave | None = None) -> None:
        super().__init__()
        self.registry = registry
        # The questions put to the GM: dialogs, unless a test answers them.
        dialogs = Dialogs(self)
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
        self.players = PlayerScreen()
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
        self.roster_dock = self._dock("Roster", self.roster_panel, right)
        self.tabifyDockWidget(self.pool_dock, self.log_dock)
        self.tabifyDockWidget(self.log_dock, self.roster_dock)
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
        self._build_menus()
        self.bind(session)
        self.resize(1280, 800)

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
        self.view.token_menu.connect(self.combat.token_menu)
        self.view.door_menu.connect(self.door_menu)
        self.view.moved.connect(self.select)
        self.view.roster_dropped.connect(self.rosters.place_from_roster)
        self.view.area_menu.connect(self.build.template_menu)
        self.build.attach(self.scene)
        for action in self.tool_actions.values():
            action.setChecked(False)
        self.setCentralWidget(self.view)
        # The first-run hint lies over the map until combat starts.
        self.hint = MapHint(FIRST_RUN, self.view)
        session.referee.subscribe(self._on_change)
        self.actor = None
        self.log_panel.show_log(session.referee.state, session.referee.log)
        self.roster_panel.refresh()
        self.refresh()
        self.show_image_problems()
        # Rasterise the walls once the window is up, so the first drag does not stall.
        QTimer.singleShot(0, self._warm_walls)
        self.view.fit()
        self.players.close()

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
        self.scene.sync(state)
        self.show_image_problems()
        if self.actor is not None and self.actor not in state.tokens:
            self.actor = None
        order = ruleset.turn_order(state)
        active = self.show_turn(order)
        pools = ruleset.dice_pools(state)
        self.pool_panel.show_pools(pools, self.actor or active)
        timeline = ruleset.timeline(state)
        self.timeline_panel.show_timeline(state, timeline)
        self.timeline_dock.setVisible(timeline is not None)
        if self.hint is not None:
            self.hint.setVisible(order is None)
        self.idle_text.setText(FIRST_RUN if order is None else IN_COMBAT)
        self.players.sync(self.session)
        self.setWindowTitle(self.session.title)
        for rule, action in self.diagonal_actions.items():
            action.setChecked(rule == state.diagonal)
        set_quietly(self.lock_action, state.map.image_locked)
        set_quietly(self.fog_action, state.fog.enabled)
        self.undo_action.setEnabled(bool(self.session.referee.log))
        self.redo_action.setEnabled(bool(self.session.referee.redo_stack))

    def show_turn(self, order: TurnOrder | None) -> str | None:
        """The turn order and the actions of whoever acts now; returns that token."""
        state, ruleset = self.session.referee.state, self.session.referee.ruleset
        active = acting_token(state, order, self.actor)
        if order is None and self.actor in state.tokens:
            # Before combat the panel offers what the selected token may do (set up a
            # surprise, move freely …), so a ruleset's set-up needs no other door.
            active = self.actor
        self.order_panel.show_order(state, order,
                                    ruleset.actions_for(state, active) if active else [],
                                    actor=active)
        return active

    def select(self, token_id: str | None) -> None:
        """Make ``token_id`` the selected token (the one that acts when a target is clicked)."""
        self.actor = token_id
        self.view.select(token_id)
        state, ruleset = self.session.referee.state, self.session.referee.ruleset
        self.pool_panel.show_pools(ruleset.dice_pools(state), token_id)
        # Where a whole side acts, picking one of its members shows that member's actions.
        self.show_turn(ruleset.turn_order(state))

    def error(self, text: str) -> None:
        """A problem: in the status bar and told to the GM."""
        self.statusBar().showMessage(text, 15000)
        self.tell(text)

    # --- menus ----------------------------------------------------------------------------

    def _action(self, menu: QMenu, text: str, slot: Callable[[], object],
                keys: QKeySequence.StandardKey | str | None = None,
                checkable: bool = False) -> QAction:
        action = QAction(text, self)
        if keys is not None:
            action.setShortcut(QKeySequence(keys))
        action.setCheckable(checkable)
        action.triggered.connect(lambda checked=False: slot())
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar, files, combat = self.menuBar(), self.files, self.combat
        file = bar.addMenu("&File")
        self._action(file, "&New…", files.new_encounter, QKeySequence.StandardKey.New)
        self._action(file, "&Open…", files.open_dialog, QKeySequence.StandardKey.Open)
        self.demo_menu = file.addMenu("Open &Demo")
        self.demo_menu.aboutToShow.connect(lambda: files.fill_demos(self.demo_menu))
        self.recent_menu = file.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(lambda: files.fill_recent(self.recent_menu))
        file.addSeparator()
        self._action(file, "&Save", files.save, QKeySequence.StandardKey.Save)
        self._action(file, "Save &As…", files.save_as, QKeySequence.StandardKey.SaveAs)
        file.addSeparator()
        self._action(file, "Load Map &Image…", self.build.load_image)
        file.addSeparator()
        self._action(file, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        edit = bar.addMenu("&Edit")
        self.undo_action = self._action(edit, "&Undo", combat.undo, QKeySequence.StandardKey.Undo)
        self.redo_action = self._action(edit, "&Redo", combat.redo, QKeySequence.StandardKey.Redo)
        game = bar.addMenu("&Combat")
        self._action(game, "&Start Combat", lambda: self.run(StartCombat()))
        self.end_turn_action = self._action(game, "&End Turn", lambda: self.run(EndTurn()),
                                            END_TURN_KEY)
        self.end_turn_action.setShortcuts([QKeySequence(END_TURN_KEY), QKeySequence("Ctrl+E")])
        self.end_turn_action.setAutoRepeat(False)  # holding the key down ends one turn, not five
        game.addSeparator()
        self.dice_action = self._action(game, "Roll &Physical Dice", lambda: None,
                                        checkable=True)
        self.dice_action.toggled.connect(combat.set_physical_dice)
        self._build_menu(bar.addMenu("&Build"))
        view = bar.addMenu("&View")
        self._action(view, "Zoom &In", lambda: self.view.zoom_by(1.25), "Ctrl+=")
        self._action(view, "Zoom &Out", lambda: self.view.zoom_by(0.8), "Ctrl+-")
        self._action(view, "&Fit Encounter", lambda: self.view.fit(), "Ctrl+0")
        view.addSeparator()
        grid = self._action(view, "Show &Grid", lambda: None, "G", checkable=True)
        grid.setChecked(True)
        grid.toggled.connect(self._toggle_grid)
        reach = self._action(view, "Show All &Reach", lambda: None, "R", checkable=True)
        reach.toggled.connect(lambda on: self.view.toggle_all_reach(on))
        self._action(view, "&Align Map Image…", self.build.align_image)
        view.addSeparator()
        self._action(view, "&Player View", self.show_player_view, "F11")
        for dock in (self.order_dock, self.pool_dock, self.log_dock, self.timeline_dock):
            view.addAction(dock.toggleViewAction())
        add_help_menu(self)

    def _build_menu(self, menu: QMenu) -> None:
        build = self.build
        self._action(menu, "&Add Combatant…", build.add_combatant, "Ctrl+Shift+A")
        self._action(menu, "&Edit Combatant…", build.edit_combatant, "Ctrl+Shift+E")
        self._action(menu, "&Duplicate Combatant", build.duplicate_combatant, "Ctrl+D")
        self._action(menu, "&Remove Combatant", build.remove_combatant, "Delete")
        self._action(menu, "Save Combatant to Roster…", self.rosters.save_to_roster)
        menu.addSeparator()
        self.tool_actions: dict[str, QAction] = {}
        for key, label, keys in TOOLS:
            action = self._action(menu, label, lambda: None, keys, checkable=True)
            action.toggled.connect(lambda on, k=key: self._tool_toggled(k, on))
            self.tool_actions[key] = action
        shapes = menu.addMenu("Template S&hape")
        self.shape_actions: dict[str, QAction] = {}
        for shape, label in SHAPE_NAMES:
            self.shape_actions[shape] = self._action(
                shapes, label, partial(self._shape_picked, shape), checkable=True)
        set_quietly(self.shape_actions[self.build.template_shape], True)
        shapes.addSeparator()
        angles, widths = shapes.addMenu("Cone &Angle"), shapes.addMenu("Line &Width")
        self.angle_actions = {a: self._action(angles, f"{a:g}°", partial(self._angle_picked, a),
                                              checkable=True) for a in CONE_ANGLES}
        self.width_actions = {w: self._action(widths, f"{w} cell{'s' if w > 1 else ''}",
                                              partial(self._width_picked, w), checkable=True)
                              for w in LINE_WIDTHS}
        set_quietly(self.angle_actions[self.build.template_angle], True)
        set_quietly(self.width_actions[self.build.template_width], True)
        self.fog_action = self._action(menu, "&Fog of War", lambda: None, checkable=True)
        self.fog_action.toggled.connect(self._fog_toggled)
        self.lock_action = self._action(menu, "&Lock Map Image", lambda: None, checkable=True)
        self.lock_action.toggled.connect(self._lock_toggled)
        menu.addSeparator()
        rules = menu.addMenu("Diagonal &Rule")
        self.diagonal_actions: dict[str, QAction] = {}
        for rule in DIAGONAL_RULES:
            self.diagonal_actions[rule] = self._action(
                rules, rule, partial(self.run, SetDiagonal(rule)), checkable=True)
        self.party_menu = menu.addMenu("&Players' Side")
        self.party_menu.aboutToShow.connect(lambda: build.fill_party(self.party_menu))
        self._action(menu, "Re&name Encounter…", build.rename_encounter)

    def _shape_picked(self, shape: str) -> None:
        """Build ▸ Template Shape: draw this shape from now on (and take the tool up)."""
        self.build.template_shape = shape
        for name, action in self.shape_actions.items():
            set_quietly(action, name == shape)
        if not self.tool_actions["template"].isChecked():
            self.tool_actions["template"].setChecked(True)

    def _angle_picked(self, angle: float) -> None:
        """Build ▸ Template Shape ▸ Cone Angle: cones open this wide from now on."""
        self.build.template_angle = angle
        for a, action in self.angle_actions.items():
            set_quietly(action, a == angle)
        self._shape_picked("cone")

    def _width_picked(self, width: int) -> None:
        """Build ▸ Template Shape ▸ Line Width: lines are this many cells wide from now on."""
        self.build.template_width = width
        for w, action in self.width_actions.items():
            set_quietly(action, w == width)
        self._shape_picked("line")

    def _tool_toggled(self, key: str, on: bool) -> None:
        self.build.use_tool(key if on else None)
        # One tool at a time: ticking one unticks the others without switching again.
        for name, action in self.tool_actions.items():
            if name != key and action.isChecked():
                set_quietly(action, False)

    def _fog_toggled(self, on: bool) -> None:
        if on != self.session.referee.state.fog.enabled and not self.run(SetFog(on)):
            set_quietly(self.fog_action, not on)

    def door_menu(self, wall: int, at: QPoint) -> QMenu:
        """Right-click on a door: open it or close it."""
        door = self.session.referee.state.map.walls[wall]
        menu = QMenu(self)
        if door.open:
            menu.addAction("Close door").triggered.connect(
                lambda: self.run(SetDoor(wall, False)))
        else:
            menu.addAction("Open door").triggered.connect(lambda: self.run(SetDoor(wall, True)))
        menu.popup(at)
        self.menu = menu
        return menu

    def _lock_toggled(self, on: bool) -> None:
        if not self.build.lock_image(on):
            set_quietly(self.lock_action, False)

    def _toggle_grid(self, on: bool) -> None:
        self.scene.show_grid = on
        self.view.resetCachedContent()
        self.scene.update()

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

    def show_player_view(self) -> None:
        """View ▸ Player View: a second window for the table."""
        self.players.show(self.session, self.scene.images_cache)

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
            QTimer.singleShot(0, self.view.fit)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.files.may_leave():
            event.ignore()
            return
        remember_place(PLACE, bytes(self.saveGeometry().data()))
        self.files.close()
        self.players.close()
        event.accept()
