"""The main window's menus and its Tools toolbar.

``MainWindow`` builds on ``WindowMenus``: this module lays out File, Edit,
Combat, Build and View and the checkable map tools, and ticks them from the
state; what each entry does lives with its task (files.py, build.py,
combat.py, roster.py, player.py).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from tacmap.engine.model.commands import Command, EndTurn, SetDiagonal, SetDoor, SetFog, StartCombat
from tacmap.engine.model.state import DIAGONAL_RULES, Encounter
from tacmap.ui import house_rules
from tacmap.ui.autopilot import Pilot
from tacmap.ui.build import Builder
from tacmap.ui.combat import Combat
from tacmap.ui.files import Files
from tacmap.ui.groups import GroupActions
from tacmap.ui.help import add_help_menu
from tacmap.ui.later import OnFirstUse
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.view import MapView
from tacmap.ui.panels.forecast import ForecastDock
from tacmap.ui.panels.initiative import END_TURN_KEY
from tacmap.ui.player import PlayerScreen
from tacmap.ui.pointing import Pointing
from tacmap.ui.qt import (
    QAction,
    QDialog,
    QDockWidget,
    QKeySequence,
    QLabel,
    QMainWindow,
    QMenu,
    QPoint,
    QSize,
    Qt,
    QToolBar,
)
from tacmap.ui.roster import RosterActions
from tacmap.ui.session import Session
from tacmap.ui.token_menu import TokenGm

if TYPE_CHECKING:
    from tacmap.ui import imports
else:  # imported when File ▸ Import or Export is first used: the first paint needs none of it
    imports = OnFirstUse("tacmap.ui.imports")

#: Build ▸ tools: key, menu text, shortcut, toolbar text.
TOOLS = (("wall", "Draw &Wall", "Ctrl+Shift+W", "Wall"),
         ("obstacle", "Draw &Obstacle", "Ctrl+Shift+O", "Obstacle"),
         ("door", "Draw D&oor", "Ctrl+Shift+D", "Door"),
         ("window", "Draw W&indow", None, "Window"),
         ("erase", "E&rase Wall", "Ctrl+Shift+X", "Erase"),
         ("move", "&Move Wall", "Ctrl+Shift+M", "Move wall"),
         ("scale", "&Scale Map Image by Two Points", None, "Scale image"),
         ("template", "Area &Template", "Ctrl+Shift+T", "Template"),
         ("reveal", "Re&veal Area (Fog)", None, "Reveal"),
         ("hide", "&Hide Area (Fog)", None, "Hide"),
         ("measure", "Meas&ure", "M", "Measure"))
#: Build ▸ Template Shape: the shapes the Area Template tool draws.
SHAPE_NAMES = (("circle", "&Circle"), ("cone", "C&one"), ("line", "&Line"),
               ("square", "&Square"))
#: Build ▸ Template Shape ▸ Cone Angle and Line Width: the choices offered.
CONE_ANGLES = (45.0, 60.0, 90.0, 120.0)
LINE_WIDTHS = (1, 2, 3, 4)
#: How the status bar says a tool is in hand and how to put it down.
TOOL_LINE = "{} tool on · Esc or right-click puts it down"


def set_quietly(action: QAction, checked: bool) -> None:
    """Tick or untick ``action`` without running what its toggle does."""
    action.blockSignals(True)
    action.setChecked(checked)
    action.blockSignals(False)


def tool_name(key: str) -> str:
    """The menu text of a tool without its mnemonic ("Draw Wall")."""
    return next(label for k, label, _, _ in TOOLS if k == key).replace("&", "")


class WindowMenus(QMainWindow):
    """The menu bar and Tools toolbar of the main window, and the ticks they show."""

    files: Files
    build: Builder
    combat: Combat
    token_gm: TokenGm
    rosters: RosterActions
    groups: GroupActions
    players: PlayerScreen
    session: Session
    scene: MapScene
    view: MapView
    order_dock: QDockWidget
    result_dock: QDockWidget
    pool_dock: QDockWidget
    log_dock: QDockWidget
    roster_dock: QDockWidget
    timeline_dock: QDockWidget
    pointing: Pointing
    dice_dock: QDockWidget
    forecast: ForecastDock
    pilot: Pilot

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

    def _run(self, command: Command) -> bool:
        return self.combat.run(command)

    def balance_encounter(self) -> QDialog:
        """Build ▸ Balance Encounter: a target, proposals searched beside the window."""
        # Imported on first use: the search's modules are not the first paint's.
        from tacmap.ui.balance_dialog import BalanceDialog

        referee = self.session.referee
        dialog = BalanceDialog(referee.state, referee.ruleset, self._run, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.balance_dialog = dialog  # kept referenced while it is on screen
        dialog.show()
        return dialog

    def build_menus(self) -> None:
        """File, Edit, Combat, Build, View and Help, and the Tools toolbar."""
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
        self._action(file, "Import &Map…", lambda: imports.import_map(files.host, files))
        self._action(file, "Import &Walls…", lambda: imports.import_walls(files.host))
        self._action(file, "Export Fight Re&port…", lambda: imports.export_report(files.host))
        file.addSeparator()
        self._action(file, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        edit = bar.addMenu("&Edit")
        self.undo_action = self._action(edit, "&Undo", combat.undo, QKeySequence.StandardKey.Undo)
        self.redo_action = self._action(edit, "&Redo", combat.redo, QKeySequence.StandardKey.Redo)
        # Ctrl+Y as well, the redo of many programs (Qt's on Linux is Ctrl+Shift+Z only).
        redo_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        if QKeySequence("Ctrl+Y") not in redo_keys:
            redo_keys.append(QKeySequence("Ctrl+Y"))
        self.redo_action.setShortcuts(redo_keys)
        edit.addSeparator()
        self._action(edit, "&Copy Tokens", self.groups.copy, QKeySequence.StandardKey.Copy)
        self._action(edit, "&Paste Tokens", self.groups.paste, QKeySequence.StandardKey.Paste)
        game = bar.addMenu("&Combat")
        self.start_action = self._action(game, "&Start Combat", lambda: self._run(StartCombat()))
        self.end_turn_action = self._action(game, "&End Turn", lambda: self._run(EndTurn()),
                                            END_TURN_KEY)
        self.end_turn_action.setShortcuts([QKeySequence(END_TURN_KEY), QKeySequence("Ctrl+E")])
        self.end_turn_action.setAutoRepeat(False)  # holding the key down ends one turn, not five
        game.addSeparator()
        self.dice_action = self._action(game, "Roll &Physical Dice", lambda: None,
                                        checkable=True)
        self.dice_action.toggled.connect(combat.set_physical_dice)
        game.addSeparator()
        self.hp_key_actions = self.token_gm.add_keys(game)
        game.addSeparator()
        self._action(game, "&Forecast", lambda: self.forecast.open())
        autopilot = game.addMenu("&Autopilot")
        autopilot.aboutToShow.connect(lambda: self.pilot.fill_menu(autopilot))
        self._build_menu(bar.addMenu("&Build"))
        self._tools_bar()
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
        self._action(view, "Show Ruler to P&layers", lambda: None, checkable=True).toggled \
            .connect(lambda on: self.pointing.set_to_players(on))
        for dock in (self.order_dock, self.result_dock, self.pool_dock, self.log_dock,
                     self.roster_dock, self.timeline_dock, self.dice_dock):
            view.addAction(dock.toggleViewAction())
        view.addAction(self.tools_bar.toggleViewAction())
        add_help_menu(self)

    def _build_menu(self, menu: QMenu) -> None:
        build = self.build
        self._action(menu, "&Add Combatant…", build.add_combatant, "Ctrl+Shift+A")
        self._action(menu, "&Edit Combatant…", build.edit_combatant, "Ctrl+Shift+E")
        self._action(menu, "&Duplicate Combatant", build.duplicate_combatant, "Ctrl+D")
        self._action(menu, "&Remove Combatant", self.groups.remove, "Delete")
        self._action(menu, "Save Combatant to Roster…", self.rosters.save_to_roster)
        self._action(menu, "&Balance Encounter…", self.balance_encounter)
        menu.addSeparator()
        self.tool_actions: dict[str, QAction] = {}
        for key, label, keys, short in TOOLS:
            action = self._action(menu, label, lambda: None, keys, checkable=True)
            action.setIconText(short)
            action.setToolTip(f"{label.replace('&', '')} (Esc or right-click puts it down)")
            action.toggled.connect(lambda on, k=key: build.use_tool(k if on else None))
            self.tool_actions[key] = action
        # Esc puts the tool down wherever the keyboard is (a dock may have it); the entry
        # is enabled only while a tool is in hand, so Esc does its usual work otherwise.
        self.leave_tool_action = self._action(menu, "&Put Tool Down",
                                             lambda: build.end_tool(keep=False), "Esc")
        self.leave_tool_action.setEnabled(False)
        shapes = menu.addMenu("Template S&hape")
        self.shape_actions: dict[str, QAction] = {}
        for shape, label in SHAPE_NAMES:
            self.shape_actions[shape] = self._action(
                shapes, label, partial(self._shape_picked, shape), checkable=True)
        set_quietly(self.shape_actions[build.template_shape], True)
        shapes.addSeparator()
        angles, widths = shapes.addMenu("Cone &Angle"), shapes.addMenu("Line &Width")
        self.angle_actions = {a: self._action(angles, f"{a:g}°", partial(self._angle_picked, a),
                                              checkable=True) for a in CONE_ANGLES}
        self.width_actions = {w: self._action(widths, f"{w} cell{'s' if w > 1 else ''}",
                                              partial(self._width_picked, w), checkable=True)
                              for w in LINE_WIDTHS}
        set_quietly(self.angle_actions[build.template_angle], True)
        set_quietly(self.width_actions[build.template_width], True)
        self.fog_action = self._action(menu, "&Fog of War", lambda: None, checkable=True)
        self.fog_action.toggled.connect(self._fog_toggled)
        self.lock_action = self._action(menu, "&Lock Map Image", lambda: None, checkable=True)
        self.lock_action.toggled.connect(self._lock_toggled)
        menu.addSeparator()
        rules = menu.addMenu("Diagonal &Rule")
        self.diagonal_actions: dict[str, QAction] = {}
        for rule in DIAGONAL_RULES:
            self.diagonal_actions[rule] = self._action(
                rules, rule, partial(self._run, SetDiagonal(rule)), checkable=True)
        self.party_menu = menu.addMenu("&Players' Side")
        self.party_menu.aboutToShow.connect(lambda: build.fill_party(self.party_menu))
        self._action(menu, "Re&name Encounter…", build.rename_encounter)
        self._action(menu, "House R&ules…", lambda: house_rules.open_house_rules(self.files.host))
        build.on_tool = self._tool_ticked

    def _tools_bar(self) -> None:
        """The Tools toolbar: the Build menu's map tools (the same actions), ticked while on."""
        self.tools_bar = QToolBar("Tools", self)
        self.tools_bar.setObjectName("tools")
        self.tools_bar.setIconSize(QSize(16, 16))
        self.tools_bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in self.tool_actions.values():
            self.tools_bar.addAction(action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.tools_bar)
        #: Names the tool in hand and how to put it down, at the right of the status bar.
        self.tool_text = QLabel()
        self.tool_text.setObjectName("status-tool")
        self.tool_text.setStyleSheet("QLabel#status-tool { font-weight: bold; color: #7a2a00; }")
        self.tool_text.hide()
        self.statusBar().addPermanentWidget(self.tool_text)

    def _tool_ticked(self, key: str | None) -> None:
        """A tool was taken up or put down: one tick in the menu and bar, one status line."""
        for name, action in self.tool_actions.items():
            set_quietly(action, name == key)
        self.leave_tool_action.setEnabled(key is not None)
        self.tool_text.setText(TOOL_LINE.format(tool_name(key)) if key else "")
        self.tool_text.setVisible(key is not None)

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

    def _fog_toggled(self, on: bool) -> None:
        if on != self.session.referee.state.fog.enabled and not self._run(SetFog(on)):
            set_quietly(self.fog_action, not on)

    def _lock_toggled(self, on: bool) -> None:
        if not self.build.lock_image(on):
            set_quietly(self.lock_action, False)

    def _toggle_grid(self, on: bool) -> None:
        self.scene.show_grid = on
        self.view.resetCachedContent()
        self.scene.update()

    def tick(self, state: Encounter, can_undo: bool, can_redo: bool) -> None:
        """Tick the menus from the state: diagonal rule, image lock, fog, undo and redo."""
        for rule, action in self.diagonal_actions.items():
            action.setChecked(rule == state.diagonal)
        set_quietly(self.lock_action, state.map.image_locked)
        set_quietly(self.fog_action, state.fog.enabled)
        self.undo_action.setEnabled(can_undo)
        self.redo_action.setEnabled(can_redo)
        # As the turn panel's buttons: no Start Combat during one, no End Turn before.
        self.start_action.setEnabled(state.schedule is None)
        self.end_turn_action.setEnabled(state.schedule is not None)

    def door_menu(self, wall: int, at: QPoint) -> QMenu:
        """Right-click on a door: open it or close it."""
        door = self.session.referee.state.map.walls[wall]
        menu = QMenu(self)
        if door.open:
            menu.addAction("Close door").triggered.connect(
                lambda: self._run(SetDoor(wall, False)))
        else:
            menu.addAction("Open door").triggered.connect(
                lambda: self._run(SetDoor(wall, True)))
        menu.popup(at)
        self.menu = menu
        return menu

    def show_player_view(self) -> None:
        """View ▸ Player View: a second window for the table."""
        self.players.show(self.session, self.scene.images_cache, beside=self)
