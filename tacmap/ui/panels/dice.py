"""The Dice dock: a free roll typed in notation or built from dice buttons, weighed, then rolled.

As the GM types, the dock draws the roll's distribution (whole-number totals)
with its average, range and the chance to reach the target, if one is set; a
malformed roll is one red sentence under the field and greys Roll out. Roll
sends ``RollDice`` through the window's ``run`` like any command, so it is
logged, undoable and autosaved, and asks for the faces in physical dice mode;
the dock then shows the total big, with the faces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tacmap.engine.model.commands import Command, RollDice
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.events import GmRolled
from tacmap.engine.play.referee import Entry
from tacmap.engine.rules.free_roll import odds_lines
from tacmap.engine.rules.notation import MAX_DICE, MAX_SIDES, Chances, DiceTerm, Notation, parse
from tacmap.ui.odds_card import percent_axis, whole_axis
from tacmap.ui.plain import esc
from tacmap.ui.qt import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    Qt,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:  # pyqtgraph is imported with the first chart, after the first paint
    import pyqtgraph as pg

#: The dice buttons, in the order of a dice bag.
DICE = (4, 6, 8, 10, 12, 20, 100)
#: Least width of a die button, in pixels.
BUTTON_MIN = 48
#: The target spin box at its lowest reads "none": no target.
NO_TARGET = 0
#: A chart of more totals than this is drawn as a filled curve, not one bar each.
MOST_BARS = 300
#: Bar colours: totals short of the target, totals that reach it (or all, with none).
SHORT, REACH = "#b9b2a2", "#2e7d4f"
#: The sentence under the field when the roll cannot be read.
PROBLEM_STYLE = "QLabel { color: #c8312f; }"


def with_die(text: str, sides: int) -> str:
    """``text`` with one more d``sides``: ``2d6`` + d6 → ``3d6``; ``2d6+3`` + d8 → ``2d6+d8+3``.

    A roll that cannot be read yet gets the die appended, so a click is never lost.
    """
    try:
        notation = parse(text)
    except InputError:
        stripped = text.strip()
        return f"{stripped}+d{sides}" if stripped else f"d{sides}"
    terms = list(notation.terms)
    for i, term in enumerate(terms):
        if term.sides == sides and term.sign > 0 and term.keep == term.count:
            terms[i] = DiceTerm(term.count + 1, sides, term.count + 1)
            break
    else:
        terms.append(DiceTerm(1, sides, 1))
    return str(Notation(tuple(terms), notation.modifier))


def sentence(problem: str) -> str:
    """An engine message as a sentence under the field."""
    return problem[:1].upper() + problem[1:] + ("" if problem.endswith(".") else ".")


class DicePanel(QWidget):
    """The Dice dock's contents; ``run`` sends the roll (the window's referee)."""

    def __init__(self, run: Callable[[Command], bool],
                 last: Callable[[], Entry | None]) -> None:
        super().__init__()
        self.run = run
        self.last = last
        #: The roll as read from the field (None while it cannot be read).
        self.notation: Notation | None = None
        #: Its distribution (None too when keeping dice of a pool too large to count).
        self.chances: Chances | None = None
        layout = QVBoxLayout(self)
        self.field = QLineEdit()
        self.field.setPlaceholderText("2d6+3, 4d6kh3, d20 adv, 3d8-1")
        self.field.setToolTip("A roll in dice notation: NdS, +/- numbers, khN/klN keeps the "
                              "highest/lowest N, adv/dis rolls one die twice")
        self.field.textChanged.connect(self.preview)
        self.field.returnPressed.connect(self.roll)
        layout.addWidget(self.field)
        self.problem = QLabel()
        self.problem.setStyleSheet(PROBLEM_STYLE)
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout.addWidget(self.problem)
        rows = (QHBoxLayout(), QHBoxLayout())
        self.dice_buttons: dict[int, QPushButton] = {}
        for i, sides in enumerate(DICE):
            button = QPushButton(f"d{sides}")
            # Narrower than the style's 80 px a button: four a row fit the docks' column
            # with its scroll bar (the last ones were cut, under a sideways scroll bar).
            button.setMinimumWidth(BUTTON_MIN)
            button.setToolTip(f"Add one d{sides} to the roll")
            button.clicked.connect(lambda _=False, s=sides: self.add_die(s))
            rows[i // 4].addWidget(button)
            self.dice_buttons[sides] = button
        clear = QPushButton("Clear")
        clear.setMinimumWidth(BUTTON_MIN)
        clear.setToolTip("Empty the roll")
        clear.clicked.connect(self.field.clear)
        rows[1].addWidget(clear)
        for dice in rows:
            layout.addLayout(dice)
        row = QHBoxLayout()
        row.addWidget(QLabel("Target"))
        self.target = QSpinBox()
        self.target.setRange(NO_TARGET, MAX_DICE * MAX_SIDES)
        self.target.setSpecialValueText("none")
        self.target.setToolTip("The chance to reach this total is shown; none: no target")
        self.target.valueChanged.connect(lambda _: self.preview())
        row.addWidget(self.target, 1)
        self.public = QCheckBox("Public")
        self.public.setChecked(True)
        self.public.setToolTip("Unticked: the roll is the GM's only, marked so in the log "
                               "and never shown to the players")
        row.addWidget(self.public)
        self.roll_button = QPushButton("Roll")
        self.roll_button.setDefault(True)
        self.roll_button.clicked.connect(self.roll)
        row.addWidget(self.roll_button)
        layout.addLayout(row)
        self.odds = QLabel()
        self.odds.setWordWrap(True)
        layout.addWidget(self.odds)
        #: The chart, made with the first roll typed (pyqtgraph loads after the first paint).
        self.plot: pg.PlotWidget | None = None
        self.plot_box = QVBoxLayout()
        self.plot_box.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.plot_box, 1)
        self.total = QLabel()
        self.total.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.total.setObjectName("dice-total")
        self.total.setStyleSheet("QLabel#dice-total { font-size: 34pt; font-weight: bold; }")
        layout.addWidget(self.total)
        self.faces = QLabel()
        self.faces.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.faces.setWordWrap(True)
        self.faces.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.faces)
        self.preview()

    @property
    def target_value(self) -> int | None:
        """The target total, or None when the spin box reads "none"."""
        value = self.target.value()
        return None if value == NO_TARGET else value

    def add_die(self, sides: int) -> None:
        """A dice button: one more die of that kind in the roll."""
        self.field.setText(with_die(self.field.text(), sides))
        self.field.setFocus()

    def preview(self) -> None:
        """Read the field: the chart, the odds lines, or the one sentence of what is wrong."""
        text = self.field.text()
        if self.plot is not None:
            # Only the roll typed now is charted: empty axes under a red sentence read as
            # the last roll's chart.
            self.plot.clear()
            self.plot.hide()
        self.notation = self.chances = None
        if not text.strip():
            self.problem.hide()
            self.odds.setText("Type a roll or click the dice.")
            self.roll_button.setEnabled(False)
            return
        try:
            self.notation = parse(text)
        except InputError as err:
            self.problem.setText(sentence(str(err)))
            self.problem.show()
            self.odds.setText("")
            self.roll_button.setEnabled(False)
            return
        self.problem.hide()
        self.roll_button.setEnabled(True)
        self.chances = self.notation.distribution()
        target = self.target_value
        self.odds.setText("<br>".join(
            esc(line) for line in odds_lines(self.notation, self.chances, target)))
        if self.chances is not None:
            self._chart(self.chances, target)

    def _plot(self) -> pg.PlotWidget:
        """The chart, made the first time a roll is charted."""
        if self.plot is None:
            import pyqtgraph as pg

            plot = pg.PlotWidget(background="#fbf8ef")
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.setMenuEnabled(False)
            plot.setMinimumHeight(140)
            plot.setLabel("left", "%")
            plot.getAxis("left").enableAutoSIPrefix(False)
            self.plot_box.addWidget(plot)
            self.plot = plot
        return self.plot

    def _chart(self, chances: Chances, target: int | None) -> None:
        import pyqtgraph as pg

        plot = self._plot()
        plot.show()
        totals = chances.items()
        xs = [t for t, _ in totals]
        ys = [100 * p for _, p in totals]
        axis = plot.getAxis("bottom")
        if len(totals) > MOST_BARS:
            plot.addItem(pg.PlotDataItem(xs, ys, fillLevel=0, brush=REACH, pen=REACH))
            axis.setTicks(None)  # pyqtgraph's round numbers read better than whole ticks here
        else:
            brushes = [REACH if target is None or t >= target else SHORT for t in xs]
            plot.addItem(pg.BarGraphItem(x=xs, height=ys, width=0.8, brushes=brushes,
                                              pens=brushes))
        if target is not None and xs[0] <= target <= xs[-1]:
            plot.addItem(pg.InfiniteLine(target - 0.5, angle=90,
                                              pen=pg.mkPen("#7a2a00", width=2)))
        if len(totals) > MOST_BARS:
            plot.setXRange(xs[0], xs[-1], padding=0)
        else:
            whole_axis(plot, xs[0], xs[-1])
        percent_axis(plot, max(ys))

    def roll(self) -> bool:
        """Roll: the roll goes to the referee; the total shows big, the faces under it."""
        if self.notation is None:
            return False
        if not self.run(RollDice(self.field.text().strip(), self.public.isChecked())):
            return False
        entry = self.last()
        rolled = next((e for e in entry.events if isinstance(e, GmRolled)), None) \
            if entry is not None else None
        if rolled is not None:
            self.show_result(rolled)
        return True

    def show_result(self, rolled: GmRolled) -> None:
        """The total big, the faces (dropped dice in brackets) and the target's verdict."""
        target = self.target_value
        verdict = "" if target is None else (
            f" — reaches {target}" if rolled.total >= target else f" — short of {target}")
        self.total.setText(str(rolled.total))
        secret = "" if rolled.public else " (GM only)"
        self.faces.setText(f"{rolled.shown}{verdict}{secret}")


def scrolled(panel: QWidget) -> QScrollArea:
    """``panel`` in a scroll area, so a short window squeezes the dock instead of growing."""
    area = QScrollArea()
    area.setWidget(panel)
    area.setWidgetResizable(True)
    return area
