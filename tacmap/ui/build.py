"""Building an encounter: combatants, walls and obstacles, the map image, its own rules.

The Build menu, File ▸ Load Map Image and View ▸ Align Map Image land here.
Everything the GM builds is a logged, undoable override sent through ``host.run``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.files.roster import next_copy
from tacmap.engine.model.commands import (
    AddToken,
    Command,
    EditToken,
    PlaceTemplate,
    RemoveTemplate,
    RemoveToken,
    RenameEncounter,
    SetMapImage,
    SetParty,
)
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Cell, Encounter, Template, Token, party_side, sides_of
from tacmap.engine.rules.statblock import StatField
from tacmap.engine.rules.statblock import defaults as statblock_defaults
from tacmap.engine.space.templates import describe
from tacmap.ui.ask import ok_cancel
from tacmap.ui.host import Host
from tacmap.ui.map.area_tools import DrawTemplate, Style
from tacmap.ui.map.drops import named_scale
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.tools import (
    DrawWall,
    EraseWall,
    FogArea,
    MoveWall,
    ScaleImage,
    Tool,
    sketch_item,
)
from tacmap.ui.qt import (
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGraphicsPathItem,
    QInputDialog,
    QMenu,
    QPoint,
    QPointF,
)
from tacmap.ui.session import work_folder
from tacmap.ui.token_form import TokenForm

IMAGES = "Images (*.png *.jpg *.jpeg *.webp)"
TOOL_HINTS = {
    "wall": "Click grid corners to lay a wall; Enter or double-click ends it and starts another.",
    "obstacle": "Click the corners of an obstacle; Enter or double-click closes it.",
    "door": "Click two grid corners to hang a door (open it later by right-clicking it).",
    "window": "Click two grid corners to set a window (seen through, not walked through).",
    "reveal": "Drag a rectangle to show it to the players (or click corners, then Enter).",
    "hide": "Drag a rectangle to hide it from the players (or click corners, then Enter).",
    "erase": "Click a wall to remove it.",
    "move": "Drag a wall to move it.",
    "scale": "Click two points on the map image whose real distance you know.",
    "measure": "Press and drag to measure; right-click or W while dragging adds a waypoint.",
    "template": "Press where the template starts and drag to size and aim it; the tokens "
                "inside are listed by the mouse. Right-click a kept template to remove it.",
}


def free_cell(state: Encounter, near: Cell, size: int = 1) -> Cell:
    """The nearest cell to ``near`` where a token of ``size`` fits on the map, alone."""
    taken = {(t.x + i, t.y + j) for t in state.tokens.values()
             for i in range(t.size) for j in range(t.size)}
    w, h = state.map.width, state.map.height
    for r in range(max(w, h)):
        for x in range(near[0] - r, near[0] + r + 1):
            for y in range(near[1] - r, near[1] + r + 1):
                if max(abs(x - near[0]), abs(y - near[1])) != r:
                    continue
                if 0 <= x <= w - size and 0 <= y <= h - size and not any(
                        (x + i, y + j) in taken for i in range(size) for j in range(size)):
                    return (x, y)
    return (0, 0)


def selected_token(host: Host) -> Token | None:
    """The selected combatant, or None with a word in the status bar."""
    token = host.session.referee.state.tokens.get(host.actor or "")
    if token is None:
        host.statusBar().showMessage("Select a combatant first (click it).", 6000)
    return token


class Builder:
    """What the GM does to set an encounter up."""

    def __init__(self, host: Host) -> None:
        self.host = host
        #: The wall tools' dashed line, one per scene (a scene deletes its items with it).
        self.sketch: QGraphicsPathItem | None = None
        #: The combatant form last opened, kept referenced while it is on screen.
        self.form: TokenForm | None = None
        #: Build ▸ Template Shape: the shape the Area Template tool draws, a cone's
        #: angle in degrees and a line's width in cells.
        self.template_shape = "circle"
        self.template_angle = 90.0
        self.template_width = 1
        #: The menu on screen after a template is drawn or right-clicked, kept referenced.
        self.area_menu: QMenu | None = None
        #: The building tool in hand (a key of TOOL_HINTS), None when the map moves tokens.
        self.tool_key: str | None = None
        #: Told whenever a tool is taken up or put down (the window ticks its menu and bar).
        self.on_tool: Callable[[str | None], None] = lambda key: None
        #: Tools made elsewhere, by key (the Measure tool: pointing.py).
        self.extra_tools: dict[str, Callable[[], Tool]] = {}

    def attach(self, scene: MapScene) -> None:
        """Get ready to draw on a newly opened encounter's scene (no tool in hand)."""
        self.sketch = sketch_item()
        scene.addItem(self.sketch)
        self.host.view.tool_left.connect(self.end_tool)
        self.tool_key = None
        self.on_tool(None)

    # --- map tools ----------------------------------------------------------------------

    def use_tool(self, key: str | None, keep: bool = True) -> None:
        """Switch to a building tool (None: back to moving tokens).

        What the old tool has drawn is kept when it is enough, as a right-click
        keeps it (``keep`` False, for Esc: dropped).
        """
        view = self.host.view
        if view.tool is not None:
            if keep:
                view.tool.leave()
            else:
                view.tool.cancel()
        view.tool = self._tool(key) if key else None
        self.tool_key = key
        if key:
            self.host.statusBar().showMessage(TOOL_HINTS[key], 15000)
        elif self.host.statusBar().currentMessage() in TOOL_HINTS.values():
            self.host.statusBar().clearMessage()
        self.on_tool(key)

    def end_tool(self, keep: bool = True) -> None:
        """Put the building tool down (right-click, an armed action; Esc with ``keep``
        False drops what is half drawn): tokens move again."""
        if self.tool_key is not None:
            self.use_tool(None, keep)

    def _tool(self, key: str) -> Tool:
        state = lambda: self.host.session.referee.state  # noqa: E731  (read at click time)
        run = self.host.run
        if key in self.extra_tools:
            return self.extra_tools[key]()
        if key in ("wall", "obstacle", "door", "window"):
            assert self.sketch is not None  # attach() runs when a session is bound
            return DrawWall(state, run, self.sketch, closed=key == "obstacle",
                            kind=key if key in ("door", "window") else "wall")
        if key in ("reveal", "hide"):
            assert self.sketch is not None
            return FogArea(run, self.sketch, reveal=key == "reveal")
        if key == "erase":
            return EraseWall(state, run)
        if key == "move":
            return MoveWall(state, run)
        if key == "template":
            return DrawTemplate(state, self.template_style, self.host.view.area_preview,
                                self.template_drawn)
        return ScaleImage(state, run, lambda shown: self.host.ask_metres(shown))

    # --- area templates -----------------------------------------------------------------

    def template_style(self) -> Style:
        """What the Area Template tool draws now: shape, cone angle, line width."""
        return self.template_shape, self.template_angle, self.template_width

    def template_drawn(self, template: Template, inside: list[str], at: QPointF) -> None:
        """A template was drawn: offer to keep it on the map or discard it."""
        view = self.host.view
        menu = QMenu(self.host.window())
        state = self.host.session.referee.state
        names = ", ".join(state.tokens[t].name for t in inside) or "nobody"
        menu.addAction(f"{describe(template)}: {names}").setEnabled(False)
        menu.addAction("Keep on map").triggered.connect(lambda: self.keep_template(template))
        menu.addAction("Discard")
        menu.aboutToHide.connect(view.area_preview.clear)
        menu.popup(view.viewport().mapToGlobal(view.mapFromScene(at)))
        self.area_menu = menu

    def keep_template(self, template: Template) -> None:
        """Leave ``template`` on the map under a label the GM gives."""
        label = self.host.ask_words("What is it? (the map and the log show this name)",
                                    template.shape.capitalize())
        if label is not None and label.strip():
            self.host.run(PlaceTemplate(template, label.strip()))

    def template_menu(self, x: int, y: int, at: QPoint) -> None:
        """Right-click on a template left on the map: offer to remove it."""
        state = self.host.session.referee.state
        placed = self.host.scene.lasting.at(state, (x, y))
        if placed is None:
            return
        menu = QMenu(self.host.window())
        menu.addAction(f"Remove {placed.label}").triggered.connect(
            lambda: self.host.run(RemoveTemplate(placed.id)))
        menu.popup(at)
        self.area_menu = menu

    # --- the encounter's own settings ----------------------------------------------------

    def lock_image(self, on: bool) -> bool:
        """Build ▸ Lock Map Image; False when there is no image (the menu tick goes again)."""
        m = self.host.session.referee.state.map
        if m.image is None:
            if on:
                self.host.statusBar().showMessage("There is no map image to lock.", 6000)
            return False
        if m.image_locked != on:
            self.host.run(SetMapImage(m.image, m.image_offset, m.image_scale, locked=on))
        return True

    def fill_party(self, menu: QMenu) -> None:
        """Build ▸ Players' Side: one entry per side, the players' one ticked."""
        menu.clear()
        state = self.host.session.referee.state
        party = party_side(state)
        for side in sides_of(state):
            action = menu.addAction(side)
            action.setCheckable(True)
            action.setChecked(side == party)
            action.triggered.connect(lambda _=False, s=side: self.host.run(SetParty(s)))

    def rename_encounter(self) -> None:
        """Build ▸ Rename Encounter."""
        name, ok = QInputDialog.getText(self.host.window(), "Rename encounter", "Name:",
                                        text=self.host.session.referee.state.name)
        if ok and name.strip():
            self.host.run(RenameEncounter(name.strip()))

    # --- combatants -----------------------------------------------------------------------

    def _fields(self) -> tuple[StatField, ...]:
        return self.host.session.referee.ruleset.stat_fields()

    def _check(self, make: Callable[[Token], Command]) -> Callable[[Token], str]:
        def check(token: Token) -> str:
            preview = self.host.session.referee.preview(make(token))
            return "" if preview.legal else preview.reason
        return check

    def combatant_form(self, title: str, token: Token,
                       make: Callable[[Token], Command]) -> TokenForm:
        """The form for ``token``; OK runs ``make(token)`` through the referee."""
        state = self.host.session.referee.state
        sides = sides_of(state)
        form = TokenForm(title, self._fields(), token, sides, self._check(make),
                         self.host.window(), self.host.session.referee.ruleset.manifest.units)
        form.choose_image = self.choose_portrait
        form.accepted.connect(
            lambda: form.result_token and self.host.run(make(form.result_token)))
        self.form = form
        return form

    def choose_portrait(self) -> str | None:
        """Pick a PNG, JPEG or WebP and copy it into the encounter's image folder."""
        path = self.host.ask_image()
        if path is None:
            return None
        return self.copy_image(path)

    def copy_image(self, source: Path) -> str | None:
        """Copy ``source`` into the image folder; its name there, or None with a message.

        Nothing in the folder is replaced or written through a link: a name taken by
        another file (another encounter's picture, an older version of this one that
        undo may bring back) gives the copy a fresh one, ``cave-2.png``; the same
        picture loaded again is used where it is.
        """
        folder = self.host.session.image_folder
        try:
            folder.mkdir(parents=True, exist_ok=True)
            real = source.resolve()
            if real.parent == folder.resolve():
                return real.name
            data = storage.read_bytes(source, storage.MAX_BYTES, "a picture")
            name, _ = storage.place(folder, source.name, data)
        except OSError as err:
            self.host.error(f"Could not copy {source.name}: {err.strerror or err}")
            return None
        except InputError as err:
            self.host.error(f"Could not copy {source.name}: {err}")
            return None
        return name

    def add_combatant(self) -> TokenForm:
        """Build ▸ Add Combatant: the ruleset's form, placed near the middle of the view."""
        state, view = self.host.session.referee.state, self.host.view
        centre = view.mapToScene(view.viewport().rect().center())
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

    def edit_combatant(self) -> TokenForm | None:
        """Build ▸ Edit Combatant (a logged GM override, also mid-combat)."""
        token = selected_token(self.host)
        if token is None:
            return None
        form = self.combatant_form(f"Edit {token.name}", token, EditToken)
        form.show()
        return form

    def duplicate_combatant(self) -> None:
        """Build ▸ Duplicate: Orc → Orc 2, on the nearest free cell."""
        token = selected_token(self.host)
        if token is None:
            return
        state = self.host.session.referee.state
        copy = next_copy(token, state.tokens)
        copy.x, copy.y = free_cell(state, token.cell, token.size)
        if self.host.run(AddToken(copy)):
            self.host.select(copy.id)

    def remove_combatant(self) -> None:
        """Build ▸ Remove Combatant."""
        token = selected_token(self.host)
        if token is not None and self.host.run(RemoveToken(token.id)):
            self.host.select(None)

    # --- the map image ----------------------------------------------------------------------

    def load_image(self) -> None:
        """File ▸ Load Map Image: copy it beside the encounter and show it under the grid.

        An encounter not saved yet keeps the image with its autosave until the first save.
        """
        name, _ = QFileDialog.getOpenFileName(self.host.window(), "Map image",
                                              str(work_folder(self.host.session)), IMAGES)
        if name:
            self.use_image(Path(name))

    def use_image(self, source: Path) -> bool:
        """Copy ``source`` into the image folder and set it as the map image (True: done).

        A name carrying its grid (``Crypt [24x18].png``) scales the image to that
        many cells from the map's corner: nothing to align.
        """
        name = self.copy_image(source)
        if name is None:
            return False
        m = self.host.session.referee.state.map
        scale = named_scale(source)
        if scale is not None:
            return self.host.run(SetMapImage(name, (0.0, 0.0), scale))
        return self.host.run(SetMapImage(name, m.image_offset, m.image_scale))

    def align_image(self) -> None:
        """View ▸ Align Map Image: offset in metres and metres per image pixel."""
        m = self.host.session.referee.state.map
        if m.image is None:
            self.host.error("There is no map image to align: File ▸ Load Map Image first.")
            return
        dialog = QDialog(self.host.window())
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
            self.host.run(SetMapImage(m.image, (ox.value(), oy.value()), scale.value()))
