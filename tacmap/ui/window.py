"""The main window: the map in the middle, menus, status bar, docks for the panels."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from tacmap.engine.commands import (
    AddToken,
    Attack,
    Command,
    EditToken,
    EndTurn,
    RemoveToken,
    RenameEncounter,
    SetDiagonal,
    SetMapImage,
    SetParty,
    StartCombat,
    describe,
)
from tacmap.engine.dice import ManualDice, fresh_seed
from tacmap.engine.errors import InputError, RuleError
from tacmap.engine.events import Event, HpChanged
from tacmap.engine.options import command_for
from tacmap.engine.referee import Change, Entry
from tacmap.engine.roster import Roster, next_copy
from tacmap.engine.ruleset import Registry
from tacmap.engine.statblock import StatField
from tacmap.engine.statblock import defaults as statblock_defaults
from tacmap.engine.state import DIAGONAL_RULES, MapSpec, Token
from tacmap.engine.views import ActionOption
from tacmap.ui.build import (
    DrawWall,
    EraseWall,
    MoveWall,
    ScaleImage,
    Tool,
    free_cell,
    sketch_item,
)
from tacmap.ui.help import add_help_menu
from tacmap.ui.map.look import party_side
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.view import MapView
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.panels.initiative import InitiativePanel
from tacmap.ui.panels.log import LogPanel
from tacmap.ui.panels.pools import PoolPanel
from tacmap.ui.panels.roster import RosterPanel
from tacmap.ui.panels.timeline import TimelinePanel
from tacmap.ui.qt import (
    QAction,
    QCloseEvent,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QInputDialog,
    QKeySequence,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPoint,
    QScrollArea,
    QShowEvent,
    QSpinBox,
    Qt,
    QTimer,
    QWidget,
)
from tacmap.ui.session import Session, home, recent
from tacmap.ui.token_form import TokenForm

FILTER = "tacmap encounters (*.tacmap);;All files (*)"
IMAGES = "Images (*.png *.jpg *.jpeg *.webp *.bmp)"

#: ``ask(question) -> bool``; the window asks the GM through this (tests answer it).
Ask = Callable[[str], bool]
#: ``ask_save(question)``: True save, False discard, None cancel (tests answer it).
AskSave = Callable[[str], "bool | None"]
#: ``tell(problem)``: a problem the GM must see (a dialog; tests collect them).
Tell = Callable[[str], None]
#: ``ask_metres(shown) -> real metres``: the two-point image scale asks this.
AskMetres = Callable[[float], "float | None"]
TOOL_HINTS = {
    "wall": "Click grid corners to lay a wall; Enter, double-click or right-click ends it.",
    "obstacle": "Click the corners of an obstacle; Enter, double-click or right-click closes it.",
    "erase": "Click a wall to remove it.",
    "move": "Drag a wall to move it.",
    "scale": "Click two points on the map image whose real distance you know.",
}
#: ``ask_dice(count, sides, why) -> faces``: physical dice typed in by the GM.
AskDice = Callable[[int, int, str], list[int]]


def ask_dialog(question: str) -> bool:
    """A Yes/No question in a dialog."""
    answer = QMessageBox.question(None, "tacmap", question)
    return bool(answer == QMessageBox.StandardButton.Yes)


def save_first_dialog(question: str) -> bool | None:
    """Save / Discard / Cancel: True to save, False to discard, None to stay."""
    box = QMessageBox(QMessageBox.Icon.Question, "tacmap", question,
                      QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                      | QMessageBox.StandardButton.Cancel)
    answer = box.exec()
    if answer == QMessageBox.StandardButton.Save:
        return True
    if answer == QMessageBox.StandardButton.Discard:
        return False
    return None


def ok_cancel(dialog: QDialog) -> QDialogButtonBox:
    """OK and Cancel buttons wired to ``dialog``."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                               | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


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


class MainWindow(QMainWindow):
    """The GM's window on one encounter."""

    def __init__(self, registry: Registry, session: Session, ask: Ask | None = None,
                 tell: Tell | None = None, ask_save: AskSave | None = None) -> None:
        super().__init__()
        self.registry = registry
        self.ask: Ask = ask or self._ask_dialog
        self.ask_save: AskSave = ask_save or (
            (lambda q: bool(ask(q))) if ask is not None else save_first_dialog)
        self.tell: Tell = tell or self._tell_dialog
        self.session = session
        self.player: PlayerView | None = None
        self.actor: str | None = None
        self.odds_card: OddsCard | None = None
        self.physical_dice = False
        self._shown = False
        # Autosave a moment after the last command, not inside the click that made it.
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.setInterval(250)
        self._autosave_timer.timeout.connect(lambda: self.session.autosave_now())
        self.ask_dice: AskDice = self._ask_dice_dialog
        self.order_panel = InitiativePanel(self.run)
        self.pool_panel = PoolPanel()
        self.timeline_panel = TimelinePanel()
        self.log_panel = LogPanel()
        pools = QScrollArea()
        pools.setWidget(self.pool_panel)
        pools.setWidgetResizable(True)
        self.order_dock = self._dock("Turn order", self.order_panel,
                                     Qt.DockWidgetArea.RightDockWidgetArea)
        self.pool_dock = self._dock("Dice pools", pools, Qt.DockWidgetArea.RightDockWidgetArea)
        self.log_dock = self._dock("Log", self.log_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.timeline_dock = self._dock("Timeline", self.timeline_panel,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        self._roster: Roster | None = None
        self.ask_metres: AskMetres = self._ask_metres_dialog
        self.ask_tags: Callable[[str], str | None] = self._ask_tags_dialog
        self.ask_file: Callable[[str, bool], Path | None] = self._ask_file_dialog
        self.ask_image: Callable[[], Path | None] = self._ask_image_dialog
        self.roster_panel = RosterPanel(self.roster, lambda: self.session.referee.state.ruleset)
        self.roster_panel.save_button.clicked.connect(self.save_to_roster)
        self.roster_panel.import_button.clicked.connect(self.import_roster)
        self.roster_panel.export_button.clicked.connect(self.export_roster)
        self.roster_panel.remove_button.clicked.connect(self.remove_from_roster)
        self.roster_dock = self._dock("Roster", self.roster_panel,
                                      Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.pool_dock, self.log_dock)
        self.tabifyDockWidget(self.log_dock, self.roster_dock)
        self.pool_dock.raise_()
        self._build_menus()
        self._bind(session)
        self.resize(1280, 800)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(title.lower().replace(" ", "-"))
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    # --- binding a session -------------------------------------------------------------

    def _card_done(self, card: OddsCard) -> None:
        if self.odds_card is card:
            self.odds_card = None

    def _bind(self, session: Session) -> None:
        # A card aimed in the old encounter must not act on the new one.
        if self.odds_card is not None:
            self.odds_card.close()
        self.session = session
        session.on_autosave_error = lambda msg: self.statusBar().showMessage(msg, 8000)
        session.defer = lambda write: self._autosave_timer.start()
        self.scene = MapScene(session.referee.state, session.referee.ruleset,
                              session.image_folder)
        self.view = MapView(self.scene, session.referee)
        self.view.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.view.token_clicked.connect(self.token_clicked)
        self.view.token_menu.connect(self.token_menu)
        self.view.moved.connect(self.select)
        self.view.roster_dropped.connect(self.place_from_roster)
        self.sketch = sketch_item()
        self.scene.addItem(self.sketch)
        for action in self.tool_actions.values():
            action.setChecked(False)
        self.setCentralWidget(self.view)
        session.referee.subscribe(self._on_change)
        self.actor = None
        self.log_panel.show_log(session.referee.state, session.referee.log)
        self.roster_panel.refresh()
        self._refresh()
        if self.scene.missing:
            self.statusBar().showMessage(
                f"Could not read {', '.join(sorted(self.scene.missing))}: drawn without it", 15000)
        # Rasterise the walls once the window is up, so the first drag does not stall.
        QTimer.singleShot(0, self._warm_walls)
        self.view.fit()
        if self.player is not None:
            self.player.close()
            self.player = None

    def _warm_walls(self) -> None:
        referee = self.session.referee
        _ = referee.ruleset.space.walls(referee.state).blocked_steps

    def _on_change(self, change: Change, entry: Entry | None) -> None:
        if entry is not None:
            if change == "undo":
                self.log_panel.pop()
            else:
                self.log_panel.append(self.session.referee.state, entry)
        self._refresh()

    def _refresh(self) -> None:
        state, ruleset = self.session.referee.state, self.session.referee.ruleset
        self.scene.sync(state)
        if self.actor is not None and self.actor not in state.tokens:
            self.actor = None
        order = ruleset.turn_order(state)
        active = next((r.id for r in order.rows if r.state == "acting"), None) if order else None
        self.order_panel.show_order(state, order,
                                    ruleset.actions_for(state, active) if active else [])
        pools = ruleset.dice_pools(state)
        self.pool_panel.show_pools(pools, self.actor or active)
        timeline = ruleset.timeline(state)
        self.timeline_panel.show_timeline(state, timeline)
        self.timeline_dock.setVisible(timeline is not None)
        if self.player is not None:
            self.player.sync(self.session)
        self.setWindowTitle(self.session.title)
        for rule, action in self.diagonal_actions.items():
            action.setChecked(rule == state.diagonal)
        self.lock_action.blockSignals(True)
        self.lock_action.setChecked(state.map.image_locked)
        self.lock_action.blockSignals(False)
        self.undo_action.setEnabled(bool(self.session.referee.log))
        self.redo_action.setEnabled(bool(self.session.referee.redo_stack))

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
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self._action(file, "&New…", self.new_encounter, QKeySequence.StandardKey.New)
        self._action(file, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = file.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file.addSeparator()
        self._action(file, "&Save", self.save, QKeySequence.StandardKey.Save)
        self._action(file, "Save &As…", self.save_as, QKeySequence.StandardKey.SaveAs)
        file.addSeparator()
        self._action(file, "Load Map &Image…", self.load_image)
        file.addSeparator()
        self._action(file, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        edit = bar.addMenu("&Edit")
        self.undo_action = self._action(edit, "&Undo", self.undo, QKeySequence.StandardKey.Undo)
        self.redo_action = self._action(edit, "&Redo", self.redo, QKeySequence.StandardKey.Redo)
        game = bar.addMenu("&Combat")
        self._action(game, "&Start Combat", lambda: self.run(StartCombat()))
        self._action(game, "&End Turn", lambda: self.run(EndTurn()), "Ctrl+E")
        game.addSeparator()
        dice = self._action(game, "Roll &Physical Dice", lambda: None, checkable=True)
        dice.toggled.connect(self._set_physical_dice)
        self.dice_action = dice
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
        self._action(view, "&Align Map Image…", self.align_image)
        view.addSeparator()
        self._action(view, "&Player View", self.show_player_view, "F11")
        for dock in (self.order_dock, self.pool_dock, self.log_dock, self.timeline_dock):
            view.addAction(dock.toggleViewAction())
        add_help_menu(self)

    def _build_menu(self, build: QMenu) -> None:
        self._action(build, "&Add Combatant…", self.add_combatant, "Ctrl+Shift+A")
        self._action(build, "&Edit Combatant…", self.edit_combatant, "Ctrl+Shift+E")
        self._action(build, "&Duplicate Combatant", self.duplicate_combatant, "Ctrl+D")
        self._action(build, "&Remove Combatant", self.remove_combatant, "Delete")
        self._action(build, "Save Combatant to Roster…", self.save_to_roster)
        build.addSeparator()
        self.tool_actions: dict[str, QAction] = {}
        for key, label, keys in (("wall", "Draw &Wall", "Ctrl+Shift+W"),
                                 ("obstacle", "Draw &Obstacle", "Ctrl+Shift+O"),
                                 ("erase", "E&rase Wall", "Ctrl+Shift+X"),
                                 ("move", "&Move Wall", "Ctrl+Shift+M"),
                                 ("scale", "&Scale Map Image by Two Points", None)):
            action = self._action(build, label, lambda: None, keys, checkable=True)
            action.toggled.connect(lambda on, k=key: self.use_tool(k if on else None))
            self.tool_actions[key] = action
        self.lock_action = self._action(build, "&Lock Map Image", lambda: None, checkable=True)
        self.lock_action.toggled.connect(self._lock_image)
        build.addSeparator()
        rules = build.addMenu("Diagonal &Rule")
        self.diagonal_actions: dict[str, QAction] = {}
        for rule in DIAGONAL_RULES:
            action = self._action(rules, rule, self._diagonal_setter(rule), checkable=True)
            self.diagonal_actions[rule] = action
        self.party_menu = build.addMenu("&Players' Side")
        self.party_menu.aboutToShow.connect(self._fill_party)
        self._action(build, "Re&name Encounter…", self.rename_encounter)

    def _fill_party(self) -> None:
        self.party_menu.clear()
        state = self.session.referee.state
        party = party_side(state)
        for side in dict.fromkeys(t.side for t in state.tokens.values()):
            action = self._action(self.party_menu, side, self._party_setter(side),
                                  checkable=True)
            action.setChecked(side == party)

    def _party_setter(self, side: str) -> Callable[[], bool]:
        return lambda: self.run(SetParty(side))

    def _diagonal_setter(self, rule: str) -> Callable[[], bool]:
        return lambda: self.run(SetDiagonal(rule))

    def use_tool(self, key: str | None) -> None:
        """Switch to a building tool (None: back to moving tokens)."""
        state = lambda: self.session.referee.state  # noqa: E731  (read at click time)
        tools: dict[str, Tool] = {
            "wall": DrawWall(state, self.run, self.sketch),
            "obstacle": DrawWall(state, self.run, self.sketch, closed=True),
            "erase": EraseWall(state, self.run),
            "move": MoveWall(state, self.run),
            "scale": ScaleImage(state, self.run, self.ask_metres),
        }
        if self.view.tool is not None:
            self.view.tool.cancel()
        self.view.tool = tools[key] if key else None
        for name, action in self.tool_actions.items():
            if name != key and action.isChecked():
                action.blockSignals(True)
                action.setChecked(False)
                action.blockSignals(False)
        if key:
            self.statusBar().showMessage(TOOL_HINTS[key], 15000)

    def _lock_image(self, on: bool) -> None:
        m = self.session.referee.state.map
        if m.image is None:
            if on:
                self.statusBar().showMessage("There is no map image to lock.", 6000)
            self.lock_action.blockSignals(True)
            self.lock_action.setChecked(False)
            self.lock_action.blockSignals(False)
            return
        if m.image_locked != on:
            self.run(SetMapImage(m.image, m.image_offset, m.image_scale, locked=on))

    def _ask_metres_dialog(self, shown: float) -> float | None:
        value, ok = QInputDialog.getDouble(
            self, "Scale the map image",
            f"The two points are {shown:.2f} m apart on the grid now. How far apart are "
            "they really, in metres?", shown, 0.01, 100_000, 2)
        return value if ok else None

    def _ask_tags_dialog(self, name: str) -> str | None:
        text, ok = QInputDialog.getText(self, "Save to roster",
                                        f"Tags for {name} (comma separated, optional):")
        return text if ok else None

    def _ask_file_dialog(self, title: str, save: bool) -> Path | None:
        pick = QFileDialog.getSaveFileName if save else QFileDialog.getOpenFileName
        name, _ = pick(self, title, "", "Roster files (*.json);;All files (*)")
        return Path(name) if name else None

    # --- combatants ---------------------------------------------------------------------------

    def _fields(self) -> tuple[StatField, ...]:
        return self.session.referee.ruleset.stat_fields()

    def _check(self, make: Callable[[Token], Command]) -> Callable[[Token], str]:
        def check(token: Token) -> str:
            preview = self.session.referee.preview(make(token))
            return "" if preview.legal else preview.reason
        return check

    def combatant_form(self, title: str, token: Token,
                       make: Callable[[Token], Command]) -> TokenForm:
        """The form for ``token``; OK runs ``make(token)`` through the referee."""
        sides = list(dict.fromkeys(t.side for t in self.session.referee.state.tokens.values()))
        form = TokenForm(title, self._fields(), token, sides, self._check(make), self)
        form.choose_image = self.choose_portrait
        form.accepted.connect(lambda: form.result_token and self.run(make(form.result_token)))
        self.form = form
        return form

    def choose_portrait(self) -> str | None:
        """Pick a PNG, JPEG or SVG and copy it into the encounter's image folder."""
        if self.session.image_folder is None:
            self._error("Save the encounter first: its images are kept beside its file.")
            return None
        path = self.ask_image()
        if path is None:
            return None
        return self.copy_image(path)

    def copy_image(self, source: Path) -> str | None:
        """Copy ``source`` into the image folder; its name there, or None with a message."""
        folder = self.session.image_folder
        assert folder is not None
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if source.resolve().parent != folder.resolve():
                shutil.copy2(source, folder / source.name)
        except OSError as err:
            self._error(f"Could not copy {source.name}: {err.strerror or err}")
            return None
        return source.name

    def _ask_image_dialog(self) -> Path | None:
        name, _ = QFileDialog.getOpenFileName(self, "Portrait", "",
                                              "Images (*.png *.jpg *.jpeg *.svg)")
        return Path(name) if name else None

    def add_combatant(self) -> TokenForm:
        """Build ▸ Add Combatant: the ruleset's form, placed near the middle of the view."""
        state = self.session.referee.state
        centre = self.view.mapToScene(self.view.viewport().rect().center())
        cell = free_cell(state, (int(centre.x() // CELL), int(centre.y() // CELL)))
        n = len(state.tokens) + 1
        while f"c{n}" in state.tokens:
            n += 1
        sides = [t.side for t in state.tokens.values()]
        token = Token(f"c{n}", f"Combatant {n}", sides[0] if sides else "party", cell[0],
                      cell[1], stats=statblock_defaults(self._fields()))
        form = self.combatant_form("Add combatant", token, AddToken)
        form.show()
        return form

    def _selected_token(self) -> Token | None:
        token = self.session.referee.state.tokens.get(self.actor or "")
        if token is None:
            self.statusBar().showMessage("Select a combatant first (click it).", 6000)
        return token

    def edit_combatant(self) -> TokenForm | None:
        """Build ▸ Edit Combatant (a logged GM override, also mid-combat)."""
        token = self._selected_token()
        if token is None:
            return None
        form = self.combatant_form(f"Edit {token.name}", token, EditToken)
        form.show()
        return form

    def duplicate_combatant(self) -> None:
        """Build ▸ Duplicate: Orc → Orc 2, on the nearest free cell."""
        token = self._selected_token()
        if token is None:
            return
        state = self.session.referee.state
        copy = next_copy(token, state.tokens)
        copy.x, copy.y = free_cell(state, token.cell, token.size)
        if self.run(AddToken(copy)):
            self.select(copy.id)

    def remove_combatant(self) -> None:
        """Build ▸ Remove Combatant."""
        token = self._selected_token()
        if token is not None and self.run(RemoveToken(token.id)):
            self.select(None)

    def rename_encounter(self) -> None:
        """Build ▸ Rename Encounter."""
        name, ok = QInputDialog.getText(self, "Rename encounter", "Name:",
                                        text=self.session.referee.state.name)
        if ok and name.strip():
            self.run(RenameEncounter(name.strip()))

    # --- roster -----------------------------------------------------------------------------

    def roster(self) -> Roster | None:
        """The roster database, opened on first use (None, with a message, if unreadable)."""
        if self._roster is None:
            try:
                self._roster = Roster(home() / "roster.sqlite3")
            except InputError as err:
                self._error(str(err))
                return None
        return self._roster

    def save_to_roster(self) -> None:
        """Keep the selected combatant in the roster, with tags."""
        token = self._selected_token()
        roster = self.roster()
        if token is None or roster is None:
            return
        tags = self.ask_tags(token.name)
        if tags is None:
            return
        try:
            roster.add(self.session.referee.state.ruleset, token,
                       [t.strip() for t in tags.split(",") if t.strip()])
        except InputError as err:
            self._error(str(err))
            return
        self.roster_panel.refresh()
        self.statusBar().showMessage(f"{token.name} is in the roster", 5000)

    def place_from_roster(self, entry_id: int, x: int, y: int) -> None:
        """A roster entry dropped on the map: a copy of it joins the encounter there."""
        roster = self.roster()
        if roster is None:
            return
        state = self.session.referee.state
        try:
            token = roster.copy_for(entry_id, state.tokens)
        except InputError as err:
            self._error(str(err))
            return
        token.x, token.y = free_cell(state, (x, y), token.size)
        if self.run(AddToken(token)):
            self.select(token.id)

    def import_roster(self) -> None:
        """Roster ▸ Import: combatants from a JSON file."""
        roster, path = self.roster(), self.ask_file("Import roster", False)
        if roster is None or path is None:
            return
        try:
            n = roster.import_json(path)
        except InputError as err:
            self._error(str(err))
            return
        self.roster_panel.refresh()
        self.statusBar().showMessage(f"{n} combatants imported", 5000)

    def export_roster(self) -> None:
        """Roster ▸ Export: this ruleset's combatants to a JSON file."""
        roster, path = self.roster(), self.ask_file("Export roster", True)
        if roster is None or path is None:
            return
        try:
            n = roster.export_json(path, self.session.referee.state.ruleset)
        except (InputError, OSError) as err:
            self._error(str(err))
            return
        self.statusBar().showMessage(f"{n} combatants exported to {path}", 5000)

    def remove_from_roster(self) -> None:
        """Take the highlighted entry out of the roster."""
        roster, entry = self.roster(), self.roster_panel.selected_entry()
        if roster is not None and entry is not None:
            roster.remove(entry)
            self.roster_panel.refresh()

    def _set_physical_dice(self, on: bool) -> None:
        self.physical_dice = on
        self.statusBar().showMessage(
            "You will be asked for the faces of every roll" if on
            else "Dice come from the encounter's seeded stream", 6000)

    def _toggle_grid(self, on: bool) -> None:
        self.scene.show_grid = on
        self.view.resetCachedContent()
        self.scene.update()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = recent()
        if not files:
            self.recent_menu.addAction("(none)").setEnabled(False)
        for path in files:
            self._action(self.recent_menu, str(path), self._opener(path))

    def _opener(self, path: Path) -> Callable[[], bool]:
        return lambda: self.open_path(path)

    # --- files ----------------------------------------------------------------------------

    def _ask_dialog(self, question: str) -> bool:
        answer = QMessageBox.question(self, "tacmap", question)
        return answer == QMessageBox.StandardButton.Yes

    def _tell_dialog(self, text: str) -> None:
        QMessageBox.warning(self, "tacmap", text)

    def _error(self, text: str) -> None:
        self.statusBar().showMessage(text, 15000)
        self.tell(text)

    def _may_leave(self) -> bool:
        """True when the current encounter may be closed (saved, or the GM said so)."""
        if not self.session.dirty:
            return True
        answer = self.ask_save("This encounter has unsaved changes. Save them first?")
        if answer is None:
            return False
        return self.save() if answer else True

    def open_path(self, path: Path) -> bool:
        """Open an encounter file; a bad file leaves the current one as it was."""
        if not self._may_leave():
            return False
        try:
            session = Session.open(self.registry, path)
        except InputError as err:
            self._error(str(err))
            return False
        self.session.discard_autosave()
        if session.newer_autosave() is not None and self.ask(
                f"tacmap closed without saving {path.name}. Restore the unsaved changes?"):
            session.restore_autosave()
        self._bind(session)
        self.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    def open_dialog(self) -> None:
        """File ▸ Open."""
        name, _ = QFileDialog.getOpenFileName(self, "Open encounter", "", FILTER)
        if name:
            self.open_path(Path(name))

    def new_encounter(self) -> None:
        """File ▸ New: pick a ruleset and a map size."""
        dialog = QDialog(self)
        dialog.setWindowTitle("New encounter")
        form = QFormLayout(dialog)
        rulesets = QComboBox()
        for rid in self.registry.ids():
            rulesets.addItem(f"{self.registry.manifests[rid].name} ({rid})", rid)
        width, height = QSpinBox(), QSpinBox()
        for box, value in ((width, 30), (height, 20)):
            box.setRange(1, 10_000)
            box.setValue(value)
            box.setSuffix(" m")
        name = QLineEdit("New encounter")
        diagonal = QComboBox()
        diagonal.addItem("the ruleset's own", "")
        for rule in DIAGONAL_RULES:
            diagonal.addItem(rule, rule)
        form.addRow("Name", name)
        form.addRow("Ruleset", rulesets)
        form.addRow("Diagonal rule", diagonal)
        form.addRow("Width", width)
        form.addRow("Height", height)
        form.addRow(ok_cancel(dialog))
        if dialog.exec() != QDialog.DialogCode.Accepted or not self._may_leave():
            return
        self.start_new(str(rulesets.currentData()), width.value(), height.value(),
                       name.text().strip() or "New encounter", str(diagonal.currentData()))

    def start_new(self, ruleset_id: str, width: int, height: int, name: str = "New encounter",
                  diagonal: str = "") -> None:
        """An empty, unsaved encounter (``diagonal`` empty: the ruleset's own rule)."""
        ruleset = self.registry.get(ruleset_id)
        state = ruleset.new_encounter(name, fresh_seed())
        state.map = MapSpec(width, height)
        if diagonal:
            state.diagonal = diagonal
        self.session.discard_autosave()
        self._bind(Session(self.registry, state))

    def save(self) -> bool:
        """File ▸ Save (asks where when the encounter has no file yet)."""
        if self.session.path is None:
            return self.save_as()
        return self._save_to(self.session.path)

    def save_as(self) -> bool:
        """File ▸ Save As."""
        name, _ = QFileDialog.getSaveFileName(self, "Save encounter", "", FILTER)
        if not name:
            return False
        path = Path(name)
        if path.suffix != ".tacmap":
            path = path.with_suffix(".tacmap")
        return self._save_to(path)

    def _save_to(self, path: Path) -> bool:
        try:
            self.session.save(path)
        except OSError as err:
            self._error(f"Could not save {path}: {err.strerror or err}")
            return False
        self._refresh()
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def load_image(self) -> None:
        """File ▸ Load Map Image: copy it beside the encounter and show it under the grid."""
        folder = self.session.image_folder
        if folder is None:
            self._error("Save the encounter first: its images are kept beside its file.")
            return
        name, _ = QFileDialog.getOpenFileName(self, "Map image", "", IMAGES)
        if name:
            self.use_image(Path(name))

    def use_image(self, source: Path) -> None:
        """Copy ``source`` into the image folder and set it as the map image."""
        if self.copy_image(source) is None:
            return
        m = self.session.referee.state.map
        self.run(SetMapImage(source.name, m.image_offset, m.image_scale))

    def align_image(self) -> None:
        """View ▸ Align Map Image: offset in metres and metres per image pixel."""
        m = self.session.referee.state.map
        if m.image is None:
            self._error("There is no map image to align: File ▸ Load Map Image first.")
            return
        dialog = QDialog(self)
        dialog.setWindowTitle("Align map image")
        form = QFormLayout(dialog)
        ox, oy, scale = QDoubleSpinBox(), QDoubleSpinBox(), QDoubleSpinBox()
        for box in (ox, oy):
            box.setRange(-10_000, 10_000)
            box.setSuffix(" m")
            box.setSingleStep(0.1)
        scale.setDecimals(4)
        scale.setRange(0.0001, 100)
        scale.setSingleStep(0.001)
        scale.setSuffix(" m per pixel")
        ox.setValue(m.image_offset[0])
        oy.setValue(m.image_offset[1])
        scale.setValue(m.image_scale)
        form.addRow("Left edge at", ox)
        form.addRow("Top edge at", oy)
        form.addRow("Scale", scale)
        form.addRow(ok_cancel(dialog))
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.run(SetMapImage(m.image, (ox.value(), oy.value()), scale.value()))

    # --- commands -------------------------------------------------------------------------

    def run(self, command: Command) -> bool:
        """Send a command to the referee; a refusal goes to the status bar."""
        dice = ManualDice(self.ask_dice) if self.physical_dice else None
        try:
            entry_events = self.session.referee.execute(command, dice)
        except RuleError as err:
            self.statusBar().showMessage(f"Refused: {err}", 10000)
            self._refresh()  # panels that anticipated the change (a dragged row) go back
            return False
        self._show_results(command, entry_events)
        return True

    def _show_results(self, command: Command, events: tuple[Event, ...]) -> None:
        """Float each hit-point change over its token; a miss says so."""
        hurt = False
        for ev in events:
            if isinstance(ev, HpChanged):
                delta = ev.new - ev.old
                self.scene.float_text(ev.token, f"{delta:+d}".replace("-", "−"),
                                      "#c8312f" if delta < 0 else "#2e9d4f")
                hurt = True
        target = getattr(command, "target", "")
        if isinstance(command, Attack) and not hurt and target:
            self.scene.float_text(target, "miss", "#555555")

    def _ask_dice_dialog(self, count: int, sides: int, why: str) -> list[int]:
        text, ok = QInputDialog.getText(self, "Physical dice",
                                        f"Roll {count}d{sides} for {why} and type the faces, "
                                        "left to right, separated by spaces:")
        if not ok:
            raise RuleError("no dice were entered")
        try:
            return [int(v) for v in text.replace(",", " ").split()]
        except ValueError:
            raise RuleError(f"{text!r} is not a list of whole numbers") from None

    # --- selecting and aiming ---------------------------------------------------------------

    def select(self, token_id: str | None) -> None:
        """Make ``token_id`` the selected token (the one that acts when a target is clicked)."""
        self.actor = token_id
        self.view.select(token_id)
        state, ruleset = self.session.referee.state, self.session.referee.ruleset
        self.pool_panel.show_pools(ruleset.dice_pools(state), token_id)

    def aimed_options(self, actor: str, target: str) -> list[ActionOption]:
        """The actions ``actor`` may take against ``target`` now."""
        state, ruleset = self.session.referee.state, self.session.referee.ruleset
        if actor not in state.tokens or target not in state.tokens:
            return []
        return [o for o in ruleset.actions_for(state, actor) if o.target == "token"]

    def token_clicked(self, token_id: str) -> None:
        """Click on a token: aim the selected token at an enemy, or select it."""
        state = self.session.referee.state
        actor = self.actor
        if actor and actor != token_id and actor in state.tokens \
                and state.tokens[actor].side != state.tokens[token_id].side:
            options = [o for o in self.aimed_options(actor, token_id) if o.enabled]
            if options:
                self.aim(actor, token_id, options[0])
                return
        self.select(token_id)

    def token_menu(self, token_id: str, at: QPoint) -> None:
        """Right-click on a token: select it, or pick an action of the selected token on it."""
        menu = self.build_token_menu(token_id)
        menu.popup(at)
        self._menu = menu

    def build_token_menu(self, token_id: str) -> QMenu:
        """The context menu for a token."""
        state = self.session.referee.state
        menu = QMenu(self)
        name = state.tokens[token_id].name
        menu.addAction(f"Select {name}").triggered.connect(lambda: self.select(token_id))
        actor = self.actor
        if actor and actor != token_id and actor in state.tokens:
            menu.addSeparator()
            for option in self.aimed_options(actor, token_id):
                action = menu.addAction(f"{state.tokens[actor].name}: {option.label}")
                action.setEnabled(option.enabled)
                action.setToolTip(option.reason)
                action.triggered.connect(
                    lambda _=False, o=option: self.aim(actor, token_id, o))
        return menu

    def aim(self, actor: str, target: str, option: ActionOption) -> OddsCard:
        """Show the odds card for ``actor`` doing ``option`` to ``target``; confirm runs it."""
        state = self.session.referee.state
        command = command_for(actor, option, target)
        preview = self.session.referee.preview(command)
        title = f"{state.tokens[actor].name} → {state.tokens[target].name}: {option.label}"
        if self.odds_card is not None:
            self.odds_card.close()
        card = OddsCard(title, state.tokens[target].name, preview, self)
        card.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        card.finished.connect(lambda _: self._card_done(card))
        card.accepted.connect(lambda: self.run(command))
        card.setModal(False)
        card.show()
        self.odds_card = card
        return card

    def undo(self) -> None:
        """Edit ▸ Undo."""
        entry = self.session.referee.undo()
        if entry is not None:
            self.statusBar().showMessage(f"Undone: {describe(entry.command)}", 5000)

    def redo(self) -> None:
        """Edit ▸ Redo (re-applies what happened; dice are not rolled again)."""
        entry = self.session.referee.redo()
        if entry is not None:
            self.statusBar().showMessage(f"Redone: {describe(entry.command)}", 5000)

    def show_player_view(self) -> None:
        """View ▸ Player View: a second window for the table."""
        if self.player is None:
            self.player = PlayerView(self.session)
        self.player.show()
        self.player.raise_()
        self.player.view.fit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._shown:
            # Fit once the window has its real size, not the size it had when built.
            self._shown = True
            QTimer.singleShot(0, self.view.fit)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._may_leave():
            event.ignore()
            return
        self._autosave_timer.stop()
        self.session.discard_autosave()
        if self.player is not None:
            self.player.close()
        event.accept()

