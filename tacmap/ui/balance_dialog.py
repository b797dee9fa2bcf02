"""Build ▸ Balance Encounter (issue 39): the GM states a target, a worker process searches
proposals with the forecast, and the one the GM picks is sent as one undoable command.

The window only draws: the search runs in a worker process of its own (``workers``), and
the dialog looks at its reports on a timer. Nothing changes until Apply.
"""

from __future__ import annotations

from collections.abc import Callable

from tacmap.engine.files.roster import combatants
from tacmap.engine.model.commands import Command
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Encounter, Token, party_side, sides_of
from tacmap.engine.play.balance import Proposal, Target, changed_side, parse_target
from tacmap.engine.play.forecast import default_jobs
from tacmap.engine.rules.ruleset import Ruleset
from tacmap.ui.plain import label
from tacmap.ui.qt import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTimer,
    QVBoxLayout,
    QWidget,
)
from tacmap.ui.settings import roster_file
from tacmap.ui.workers import Worker, balance_task

#: Milliseconds between two looks at the worker's reports.
LOOK_EVERY = 250
#: Who may play the search's fights, as the dialog names them (issue 39 item 3).
#: The autopilot thinks before every step: over a hundred times slower than greedy.
POLICIES = ("the forecast's greedy policy (a minute or two)",
            "the autopilot (stronger; an hour or more)")


class BalanceDialog(QDialog):
    """Target, side, Find; the proposals as they come; Apply sends the one picked."""

    #: (first-guess fights, confirming fights, steps) of the search; None: the engine's.
    sizes: tuple[int, int, int] | None = None

    def __init__(self, state: Encounter, ruleset: Ruleset, run: Callable[[Command], bool],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Balance Encounter")
        self.state, self.ruleset, self.run = state.copy(), ruleset, run
        self.worker: Worker | None = None
        self.job = 0
        self.proposals: list[Proposal] = []
        self.wanted: Target | None = None
        self.sides = sides_of(state)
        party = party_side(state) or (self.sides[0] if self.sides else "party")
        self.target = QLineEdit(f"{party} win{'s' if not party.endswith('s') else ''} 75%")
        self.target.setToolTip('"party wins 75%", "party wins 60% ± 10%", "party wins 75%, '
                               'at most 1 down in half the fights"')
        self.side = QComboBox()
        self.side.addItems(self.sides)
        foes = [s for s in self.sides if s != party]
        if foes:
            self.side.setCurrentText(foes[0])
        self.roster = QLineEdit()
        self.roster.setPlaceholderText("optional: roster words, e.g. goblin")
        self.roster.setToolTip("Combatants of your roster whose name or tags hold these "
                               "words may join that side too (beside copies of those on "
                               "the map)")
        self.policy = QComboBox()
        self.policy.addItems(POLICIES)
        self.find_button = QPushButton("Find proposals")
        self.find_button.setDefault(True)
        self.find_button.clicked.connect(self.search)
        form = QFormLayout()
        form.addRow("Target", self.target)
        form.addRow("Change", self.side)
        form.addRow("Also from roster", self.roster)
        form.addRow("Fights played by", self.policy)
        self.status = label("State the target, then Find proposals. The fights are played "
                            "in processes beside the window; nothing changes until Apply.")
        self.status.setWordWrap(True)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.currentRowChanged.connect(lambda _row: self._ready())
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.apply = self.buttons.addButton("Apply", QDialogButtonBox.ButtonRole.ApplyRole)
        self.apply.setEnabled(False)
        self.apply.clicked.connect(self.take)
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addLayout(form)
        column.addWidget(self.find_button)
        column.addWidget(self.status)
        column.addWidget(self.list, 1)
        column.addWidget(self.buttons)
        self.resize(640, 420)
        self.timer = QTimer(self)
        self.timer.setInterval(LOOK_EVERY)
        self.timer.timeout.connect(self._look)
        self.finished.connect(lambda _result: self.stop())

    def search(self) -> None:
        """Read the target and start the search in the worker (a running one stops)."""
        try:
            target = parse_target(self.target.text(), self.sides)
            side = changed_side(self.state, target, self.side.currentText())
            pool = self._pool()
        except InputError as err:
            self.status.setText(str(err))
            return
        self.proposals = []
        self.list.clear()
        self.apply.setEnabled(False)
        if self.worker is None:
            self.worker = Worker(pool=True)
        autopilot = self.policy.currentIndex() == 1
        self.job = self.worker.submit(balance_task, self.state, self.ruleset, target, side,
                                      pool, default_jobs(), autopilot, self.sizes)
        self.wanted = target
        self.status.setText(f"Searching for {target.describe()}, changing {side}, "
                            f"{'the autopilot' if autopilot else 'greedy'} playing: "
                            f"{'an hour or more' if autopilot else 'a minute or two'}…")
        self.timer.start()

    def _pool(self) -> tuple[Token, ...]:
        """The roster's combatants the GM named (none when the field is empty)."""
        words = self.roster.text().strip()
        if not words:
            return ()
        return tuple(combatants(roster_file(), self.ruleset.id, words))

    def _look(self) -> None:
        if self.worker is None:
            return
        for report in self.worker.reports():
            if report.job != self.job:
                continue
            if report.error:
                self.status.setText(f"The search stopped: {report.error}")
                self.timer.stop()
            elif report.over:
                self.timer.stop()
                self.show_proposals(list(report.result or []))
            elif isinstance(report.result, str):
                self.status.setText(f"Searching… {report.result}")

    def show_proposals(self, found: list[Proposal]) -> None:
        """List ``found`` (plain text), the first picked."""
        self.proposals = found
        self.list.clear()
        side = self.wanted.side if self.wanted is not None else ""
        for k, p in enumerate(found, 1):
            chance, lo, hi = p.result.win(side)
            down = ", ".join(f"{n}: {100 * q:.0f}%" for n, q in p.result.losses(side).items())
            met = "meets the target" if p.miss == 0 else "misses the target"
            QListWidgetItem(f"{k}. {p.words}\n   {side} {100 * chance:.1f}% to win "
                            f"({100 * lo:.0f}–{100 * hi:.0f}%, {p.result.fights} fights); "
                            f"down {down}; {met}", self.list)
        if found:
            self.list.setCurrentRow(0)
            self.status.setText("Pick a proposal and Apply: one command, undone as one.")
        else:
            self.status.setText("No change of that side fits on this map.")
        self._ready()

    def _ready(self) -> None:
        self.apply.setEnabled(0 <= self.list.currentRow() < len(self.proposals))

    def take(self) -> None:
        """Send the proposal picked (the dialog closes when the referee takes it)."""
        row = self.list.currentRow()
        if 0 <= row < len(self.proposals) and self.run(self.proposals[row].command):
            self.accept()

    def stop(self) -> None:
        """End the worker (the dialog is closing)."""
        self.timer.stop()
        if self.worker is not None:
            self.worker.close()
            self.worker = None
