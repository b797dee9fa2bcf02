"""The combatant form, built from the ruleset's stat block schema (no ruleset code here)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec.structs import replace

from tacmap.engine.model.records import Json
from tacmap.engine.model.state import Token
from tacmap.engine.model.units import METRES, Units
from tacmap.engine.rules.statblock import StatField
from tacmap.ui.qt import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSpinBox,
    Qt,
    QValidator,
    QVBoxLayout,
    QWidget,
)

#: Pixels of a screen's height the form leaves to its title bar, margins and message.
FRAME_ROOM = 120
#: ``check(token) -> problem or ""``: the referee's verdict on the finished token.
Check = Callable[[Token], str]


class Cells(QSpinBox):
    """A length in whole cells, shown in the ruleset's units ("10 ft" for 2 cells of 5 ft):
    a token's footprint (as the sight beside it), a new map's width and height."""

    def __init__(self, units: Units) -> None:
        super().__init__()
        self.units = units

    def show_in(self, units: Units) -> None:
        """Show the same cells in ``units`` from now on."""
        self.units = units
        self.lineEdit().setText(self.textFromValue(self.value()))

    def textFromValue(self, value: int) -> str:
        return self.units.of(value)

    def valueFromText(self, text: str) -> int:
        number = text.replace(self.units.unit, "").strip()
        try:
            return max(1, round(float(number) / self.units.cell_size))
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        # Any text: valueFromText makes the nearest whole cell of it.
        return QValidator.State.Acceptable, text, pos


def unchanged(editor_value: Json, default: Json) -> bool:
    """Whether a field the token never had still holds its default (the form shows every
    field, filled with its default: only what the GM changes is the token's)."""
    def plain(v: Json) -> Json:
        return list(v) if isinstance(v, tuple) else v
    return bool(plain(editor_value) == plain(default))


class ChoiceCounts(QWidget):
    """A repeatable choices list as a count per choice (speed_rank's memorised spells:
    "a spell listed twice can be cast twice"), where ticks could hold each once only."""

    def __init__(self, choices: Sequence[str], most: int) -> None:
        super().__init__()
        self.spins: dict[str, QSpinBox] = {}
        #: The list as the token had it: its order is kept where the counts allow.
        self.had: tuple[str, ...] = ()
        rows = QFormLayout(self)
        rows.setContentsMargins(0, 0, 0, 0)
        for choice in choices:
            spin = QSpinBox()
            spin.setRange(0, most)
            spin.setSpecialValueText("—")  # none memorised reads apart from a count
            spin.setSuffix(" ×")
            rows.addRow(choice, spin)
            self.spins[choice] = spin

    def count_of(self, choice: str) -> int:
        """How many times ``choice`` is listed."""
        return self.spins[choice].value()

    def set_count(self, choice: str, count: int) -> None:
        """List ``choice`` ``count`` times."""
        self.spins[choice].setValue(count)

    def show_list(self, value: Sequence[str]) -> None:
        """Show the counts of ``value``."""
        self.had = tuple(value)
        for choice, spin in self.spins.items():
            spin.setValue(self.had.count(choice))

    def listed(self) -> tuple[str, ...]:
        """The list the counts say: the token's own, less what was taken off, then what
        was added, in the choices' order. A name no choice offers stays, to be refused."""
        kept: list[str] = []
        for name in self.had:
            if name not in self.spins or kept.count(name) < self.count_of(name):
                kept.append(name)
        for choice in self.spins:
            kept += [choice] * (self.count_of(choice) - kept.count(choice))
        return tuple(kept)


class FieldEditor:
    """One stat's widget and how to read and write its value."""

    def __init__(self, field: StatField) -> None:
        self.field = field
        self.widget = self._make()

    def _make(self) -> QWidget:
        f = self.field
        if f.kind == "int":
            box = QSpinBox()
            box.setRange(int(f.min if f.min is not None else -1_000_000),
                         int(f.max if f.max is not None else 1_000_000))
            box.setSpecialValueText(f.least_means)
            return box
        if f.kind == "float":
            dbox = QDoubleSpinBox()
            dbox.setRange(f.min if f.min is not None else -1e6, f.max if f.max is not None else 1e6)
            dbox.setSpecialValueText(f.least_means)
            return dbox
        if f.kind == "choice":
            combo = QComboBox()
            combo.addItems(list(f.choices))
            return combo
        if f.kind == "choices" and f.choices and f.repeats:
            return ChoiceCounts(f.choices, int(f.max) if f.max is not None else 9)
        if f.kind == "choices" and f.choices:
            items = QListWidget()
            for choice in f.choices:
                item = QListWidgetItem(choice)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Unchecked)
                items.addItem(item)
            items.setMaximumHeight(110)
            return items
        if f.kind == "bool":
            return QCheckBox()
        line = QLineEdit()
        if f.kind == "table":
            line.setPlaceholderText("name=2, other=1")
        elif f.kind == "choices":
            line.setPlaceholderText("names, separated by commas")
        return line

    def set(self, value: Json) -> None:
        """Show ``value`` (a stat from a token, or the default)."""
        w, f = self.widget, self.field
        if isinstance(w, QSpinBox):
            w.setValue(int(value) if isinstance(value, int | float) else 0)
        elif isinstance(w, QDoubleSpinBox):
            w.setValue(float(value) if isinstance(value, int | float) else 0.0)
        elif isinstance(w, QComboBox):
            w.setCurrentIndex(max(0, w.findText(str(value))))
        elif isinstance(w, ChoiceCounts):
            w.show_list([str(v) for v in value] if isinstance(value, list | tuple) else [])
        elif isinstance(w, QListWidget):
            chosen = set(value) if isinstance(value, list | tuple) else set()
            for i in range(w.count()):
                item = w.item(i)
                item.setCheckState(Qt.CheckState.Checked if item.text() in chosen
                                   else Qt.CheckState.Unchecked)
        elif isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QLineEdit):
            if f.kind == "table" and isinstance(value, dict):
                w.setText(", ".join(f"{k}={v}" for k, v in value.items()))
            elif f.kind == "choices" and isinstance(value, list | tuple):
                w.setText(", ".join(str(v) for v in value))
            else:
                w.setText("" if value is None else str(value))

    def get(self) -> Json:
        """The value as the stat block holds it (a typing slip is kept, to be refused)."""
        w, f = self.widget, self.field
        if isinstance(w, QSpinBox):
            return w.value()
        if isinstance(w, QDoubleSpinBox):
            return w.value()
        if isinstance(w, QComboBox):
            return w.currentText()
        if isinstance(w, ChoiceCounts):
            return w.listed()
        if isinstance(w, QListWidget):
            return tuple(w.item(i).text() for i in range(w.count())
                         if w.item(i).checkState() == Qt.CheckState.Checked)
        if isinstance(w, QCheckBox):
            return w.isChecked()
        assert isinstance(w, QLineEdit)
        text = w.text().strip()
        if f.kind == "choices":
            return tuple(p.strip() for p in text.split(",") if p.strip())
        if f.kind != "table":
            return text
        out: dict[str, Json] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, number = part.partition("=")
            try:
                out[name.strip()] = int(number)
            except ValueError:
                out[name.strip()] = number.strip()  # refused by the check, with its reason
        return out


class TokenForm(QDialog):
    """Name, side, footprint, hit points, portrait, GM-only, then the ruleset's stats.

    OK asks ``check`` (the referee's preview of the command) and stays open
    with the reason shown while the token would be refused.
    """

    def __init__(self, title: str, fields: Sequence[StatField], token: Token,
                 sides: Sequence[str], check: Check, parent: QWidget | None = None,
                 units: Units = METRES) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.base = token
        self.check = check
        self.result_token: Token | None = None
        # The fields scroll and OK stays in sight: a long stat block (speed_rank's)
        # is taller than a 1280x800 screen.
        body = QWidget()
        form = QFormLayout(body)
        self.name = QLineEdit(token.name)
        self.side = QComboBox()
        self.side.setEditable(True)
        self.side.addItems(list(dict.fromkeys([*sides, token.side])))
        self.side.setCurrentText(token.side)
        self.footprint = Cells(units)
        self.footprint.setRange(1, 20)
        self.footprint.setValue(token.size)
        self.hp, self.max_hp = QSpinBox(), QSpinBox()
        for box, value in ((self.hp, token.hp), (self.max_hp, token.max_hp)):
            box.setRange(-1_000_000, 1_000_000)
            box.setValue(value)
        self.image = QLineEdit(token.image or "")
        # Short enough for the field: the whole sentence was cut ("… in the encou…").
        self.image.setPlaceholderText("no portrait")
        self.image.setToolTip("A picture file in the encounter's image folder; Choose… "
                              "copies one there")
        #: ``choose_image() -> name`` copies a picture into the image folder (the window's).
        self.choose_image: Callable[[], str | None] | None = None
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose)
        portrait = QHBoxLayout()
        portrait.addWidget(self.image, 1)
        portrait.addWidget(choose)
        self.hidden = QCheckBox("GM only (hidden from the player view)")
        self.hidden.setChecked(token.hidden)
        form.addRow("Name", self.name)
        form.addRow("Side", self.side)
        form.addRow("Footprint", self.footprint)
        form.addRow("Hit points", self.hp)
        form.addRow("Max hit points", self.max_hp)
        form.addRow("Portrait", portrait)
        form.addRow("", self.hidden)
        self.editors: dict[str, FieldEditor] = {}
        for field in fields:
            editor = FieldEditor(field)
            editor.set(token.stats.get(field.key, field.default))
            editor.widget.setToolTip(field.help)
            form.addRow(field.label, editor.widget)
            self.editors[field.key] = editor
        self.problem = QLabel("")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.try_accept)
        self.buttons.rejected.connect(self.reject)
        self.fields = QScrollArea()
        self.fields.setWidget(body)
        self.fields.setWidgetResizable(True)
        self.fields.setFrameShape(QFrame.Shape.NoFrame)
        self.fields.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        column = QVBoxLayout(self)
        column.addWidget(self.fields, 1)
        column.addWidget(self.problem)
        column.addWidget(self.buttons)
        self._fit(body)

    def _fit(self, body: QWidget) -> None:
        """As tall as the fields need, up to what the screen leaves beside the buttons."""
        wanted = body.sizeHint()
        screen = (self.parentWidget() or self).screen().availableGeometry()
        room = screen.height() - self.buttons.sizeHint().height() - FRAME_ROOM
        bar = self.fields.verticalScrollBar().sizeHint().width()
        self.fields.setMinimumSize(wanted.width() + (bar if wanted.height() > room else 0),
                                   min(wanted.height(), room))

    def _choose(self) -> None:
        name = self.choose_image() if self.choose_image is not None else None
        if name:
            self.image.setText(name)

    def token(self) -> Token:
        """The token as the form now says."""
        stats = dict(self.base.stats)
        for key, editor in self.editors.items():
            value = editor.get()
            if key in stats or not unchanged(value, editor.field.default):
                stats[key] = value
        return replace(self.base, name=self.name.text().strip(),
                       side=self.side.currentText().strip(), size=self.footprint.value(),
                       hp=self.hp.value(), max_hp=self.max_hp.value(),
                       image=self.image.text().strip() or None,
                       hidden=self.hidden.isChecked(), stats=stats)

    def try_accept(self) -> bool:
        """Accept when the rules take the token; otherwise show why and stay open."""
        try:
            token = self.token()
        except ValueError as err:
            self.problem.setText(str(err))
            return False
        if not token.side:
            self.problem.setText("A combatant needs a side.")
            return False
        problem = self.check(token)
        if problem:
            self.problem.setText(problem)
            return False
        self.result_token = token
        self.accept()
        return True
