"""File ▸ New: the dialog that names a new encounter, its ruleset and its map's size."""

from __future__ import annotations

from tacmap.engine.model.state import DIAGONAL_RULES
from tacmap.engine.model.units import METRES
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.ask import ok_cancel
from tacmap.ui.qt import QComboBox, QDialog, QFormLayout, QLineEdit, QWidget
from tacmap.ui.token_form import Cells

#: A new map's size in cells: 30×20 m where a cell is a metre, 150×100 ft at 5 ft.
WIDTH, HEIGHT = 30, 20


class NewEncounterDialog(QDialog):
    """Name, ruleset, diagonal rule and the map's width and height, the last two in the
    chosen ruleset's units (speed_rank's map is measured in feet, not metres)."""

    def __init__(self, registry: Registry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New encounter")
        self.registry = registry
        form = QFormLayout(self)
        self.name = QLineEdit("New encounter")
        self.ruleset = QComboBox()
        for rid in registry.ids():
            self.ruleset.addItem(f"{registry.manifests[rid].name} ({rid})", rid)
        self.diagonal = QComboBox()
        self.diagonal.addItem("the ruleset's own", "")
        for rule in DIAGONAL_RULES:
            self.diagonal.addItem(rule, rule)
        self.map_width, self.map_height = Cells(METRES), Cells(METRES)
        for box, cells in ((self.map_width, WIDTH), (self.map_height, HEIGHT)):
            box.setRange(1, 10_000)
            box.setValue(cells)
        form.addRow("Name", self.name)
        form.addRow("Ruleset", self.ruleset)
        form.addRow("Diagonal rule", self.diagonal)
        form.addRow("Width", self.map_width)
        form.addRow("Height", self.map_height)
        form.addRow(ok_cancel(self))
        self.ruleset.currentIndexChanged.connect(lambda _: self._measure())
        self._measure()

    def _measure(self) -> None:
        """Show the size in the chosen ruleset's units; the cells stay as they were."""
        manifest = self.registry.manifests.get(str(self.ruleset.currentData()))
        units = manifest.units if manifest is not None else METRES
        for box in (self.map_width, self.map_height):
            box.show_in(units)

    def chosen(self) -> tuple[str, int, int, str, str]:
        """Ruleset id, width and height in cells, name and diagonal rule ("": the ruleset's)."""
        return (str(self.ruleset.currentData()), self.map_width.value(), self.map_height.value(),
                self.name.text().strip() or "New encounter", str(self.diagonal.currentData()))
