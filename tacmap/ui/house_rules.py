"""Build ▸ House Rules…: the readings a rules text leaves open, set for this encounter.

Each option the ruleset declares (``[options.*]`` of ruleset.toml) shows the sentence of
the text it concerns and one button per value, the default marked. OK sends one
``SetHouseRule`` per changed option (each logged and undoable); during a fight the GM is
asked once first, since it changes the rules mid-fight.
"""

from __future__ import annotations

from collections.abc import Mapping

from tacmap.engine.model.commands import SetHouseRule
from tacmap.engine.model.state import Encounter
from tacmap.engine.rules.house_rules import HouseOption, differing, value_in_force
from tacmap.ui.host import Host
from tacmap.ui.plain import label
from tacmap.ui.qt import (
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QRadioButton,
    QScrollArea,
    Qt,
    QVBoxLayout,
    QWidget,
)

MID_FIGHT = ("Change the house rules in the middle of the fight? From the next command on "
             "the rules read the new values (Undo takes the change back).")


def words(key: str) -> str:
    """``"surprise_criticals"`` → ``"Surprise criticals"``: an option's key as a title."""
    text = key.replace("_", " ")
    return text[:1].upper() + text[1:]


class HouseRulesDialog(QDialog):
    """One group per option: its quoted sentence and a radio button per value."""

    def __init__(self, options: Mapping[str, HouseOption], state: Encounter,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("House Rules")
        self.options = options
        self.state = state
        self.buttons: dict[str, dict[str, QRadioButton]] = {}
        inner = QWidget()
        column = QVBoxLayout(inner)
        if not options:
            column.addWidget(label("This ruleset declares no house rules."))
        for key, option in options.items():
            box = QGroupBox(words(key))
            lines = QVBoxLayout(box)
            said = label(f"“{option.text}”")
            said.setWordWrap(True)
            lines.addWidget(said)
            now = value_in_force(options, state, key)
            self.buttons[key] = {}
            for value, line in option.values.items():
                mark = " (default)" if value == option.default else ""
                button = QRadioButton(f"{value}{mark}")  # a radio button is plain text
                button.setChecked(value == now)
                lines.addWidget(button)
                says = label(line)
                says.setWordWrap(True)
                says.setContentsMargins(24, 0, 0, 4)  # under the button's text, not its dot
                lines.addWidget(says)
                self.buttons[key][value] = button
            column.addWidget(box)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(inner)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer = QVBoxLayout(self)
        outer.addWidget(scroll)
        done = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                | QDialogButtonBox.StandardButton.Cancel)
        done.accepted.connect(self.accept)
        done.rejected.connect(self.reject)
        outer.addWidget(done)
        self.resize(640, 520)

    def pick(self, key: str, value: str) -> None:
        """Tick ``value`` of option ``key`` (what a click does)."""
        self.buttons[key][value].setChecked(True)

    def changes(self) -> dict[str, str]:
        """The options whose ticked value is not the one in force, with that value."""
        out = {}
        for key, values in self.buttons.items():
            ticked = next(v for v, b in values.items() if b.isChecked())
            if ticked != value_in_force(self.options, self.state, key):
                out[key] = ticked
        return out


def apply_changes(host: Host, changes: Mapping[str, str]) -> bool:
    """Send one SetHouseRule per change, asking once first during a fight; True if sent."""
    if not changes:
        return False
    if host.session.referee.state.round > 0 and not host.ask(MID_FIGHT):
        return False
    return all(host.run(SetHouseRule(key, value)) for key, value in changes.items())


def open_house_rules(host: Host) -> None:
    """Build ▸ House Rules…."""
    referee = host.session.referee
    dialog = HouseRulesDialog(referee.ruleset.manifest.options, referee.state, host.window())
    if dialog.exec() == QDialog.DialogCode.Accepted:
        apply_changes(host, dialog.changes())


def in_force_lines(options: Mapping[str, HouseOption], state: Encounter) -> list[str]:
    """"Surprise criticals: allowed" for each rule in force that is not the default."""
    return [f"{words(o.key)}: {value_in_force(options, state, o.key)}"
            for o in differing(options, state)]
