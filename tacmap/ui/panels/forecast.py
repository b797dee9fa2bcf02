"""Combat ▸ Forecast: who wins this fight, played out in the background (issue 28).

A GM-only dock (the player view is another window and never shows it). The
forecast runs in a worker thread, fight by fight, and the dock redraws as the
fights come in: the win chances and the rounds as pyqtgraph charts, and each
combatant's chance to drop and HP left. While it is open it runs again from
the new state after each action. "What if" takes a combatant out, or adds one
from the roster, and shows that forecast beside the one of the encounter as
it is; the encounter itself never changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from tacmap.engine.model.state import Encounter, Token, sides_of
from tacmap.engine.play.retreat import Retreat
from tacmap.engine.rules.house_rules import value_in_force
from tacmap.engine.rules.ruleset import Ruleset
from tacmap.ui.odds_card import whole_axis
from tacmap.ui.plain import label
from tacmap.ui.qt import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSize,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QTimer,
    QVBoxLayout,
    QWidget,
)
from tacmap.ui.roster import RosterActions
from tacmap.ui.session import Session
from tacmap.ui.workers import Worker, forecast_task

if TYPE_CHECKING:  # the forecast itself is played in the worker
    from tacmap.engine.play.forecast import Forecast

#: Fights each forecast in the window plays (a few seconds; the first estimate comes
#: after the first fight).
FIGHTS = 200
#: The seed of the window's forecasts: the same state gives the same picture.
SEED = 1
#: Colours of the forecast now and of the what-if.
NOW, WHAT_IF = "#4a7ab8", "#d08a2c"


class ForecastHost(Protocol):
    """What the dock needs of the main window."""

    session: Session
    rosters: RosterActions

    def addDockWidget(self, area: Qt.DockWidgetArea, dock: QDockWidget) -> None:
        """Qt's: dock a widget."""


#: Seconds between two looks at what the forecast's worker has reported: each look that
#: finds more fights redraws the charts (about 5 ms, over two turns of the event loop),
#: so once a second keeps a drag beside it within its budget (DESIGN §7: p95 at most
#: 1.25× without a forecast). Until the first estimate is in, it looks ten times a second.
REPORT_EVERY, FIRST_LOOKS = 1.0, 0.1
#: The retreat choice that plays every fight to the last.
LAST = "Every side fights to the last"
#: The round after which a side flees, in the dock's retreat choice ("after round N").
RETREAT_ROUND = 3
#: What the dock says of an encounter with no fight in it.
NOTHING = "Nothing to forecast: it takes combatants on two sides still in the fight."


class Job:
    """One forecast, played by a worker process of its own kind ("now" or "what if");
    the dock takes the worker's newest report on a timer.

    (A thread of the window's process shared the interpreter lock with the map: a drag
    went from p95 22 ms to 140 ms while a forecast ran. A QThread emitting a signal
    per report once deadlocked against the charts' painting.)
    """

    def __init__(self, which: str, worker: Worker, state: Encounter,
                 ruleset: Ruleset, fights: int, panel: ForecastPanel) -> None:
        self.which = which
        self.fights = fights
        self.worker = worker
        self.number = worker.submit(forecast_task, state, ruleset, fights, SEED,
                                    panel.retreat_box.currentData())
        self.over = False
        """The worker said its last word of this job."""
        self.timer = QTimer(panel)
        self.timer.setInterval(int(FIRST_LOOKS * 1000))
        self.timer.timeout.connect(lambda: self._hand_over(panel))
        self.timer.start()

    def _hand_over(self, panel: ForecastPanel) -> None:
        newest: Forecast | None = None
        for report in self.worker.reports():
            if report.job != self.number:
                continue  # a late word of a job the dock has moved on from
            if report.result is not None:
                newest = report.result
            if report.error:
                panel.failed(self.which, report.error)
            self.over = self.over or report.over
        if newest is not None:
            panel.progressed(self.which, newest)
            self.timer.setInterval(int(REPORT_EVERY * 1000))  # the first estimate is in
        if self.over:
            self.timer.stop()
            panel.finished(self.which)

    def cancel(self) -> None:
        """Stop the worker's job after the fight under way; its late reports are dropped."""
        self.timer.stop()
        if not self.over:
            self.worker.cancel()

    def done(self) -> None:
        """Stop looking for reports (the job is over)."""
        self.timer.stop()


class ForecastPanel(QWidget):
    """The dock's contents: progress, Cancel, the charts, the table and the what-if."""

    def __init__(self, fights: int = FIGHTS) -> None:
        super().__init__()
        self.fights = fights
        self.state: Encounter | None = None
        self.ruleset: Ruleset | None = None
        self.jobs: dict[str, Job] = {}
        self.workers: dict[str, Worker] = {}
        """A worker process for each kind of forecast ("now", "what if"), kept between runs."""
        self.serial = 0
        self.results: dict[str, Forecast] = {}
        self.what_if: Encounter | None = None
        self.what_if_text = ""
        self.error = ""
        """Why the last forecast stopped short, shown in the title (empty if it did not)."""
        self.roster: list[Token] = []
        layout = QVBoxLayout(self)
        self.title = label("Open the forecast from Combat ▸ Forecast")
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        row = QHBoxLayout()
        self.bar = QProgressBar()
        self.bar.setRange(0, fights)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        row.addWidget(self.bar, 1)
        row.addWidget(self.cancel_button)
        layout.addLayout(row)
        import pyqtgraph as pg  # with the dock's charts, not the window's first paint

        self.wins = pg.PlotWidget(background="w")
        self.wins.setTitle("Chance to win (%)", color="k")
        self.wins.setMinimumHeight(150)
        self.wins.setMaximumHeight(260)
        self.wins.setMouseEnabled(False, False)
        self.wins.hideButtons()
        layout.addWidget(self.wins)
        self.rounds = pg.PlotWidget(background="w")
        self.rounds.setTitle("Fights by rounds (%)", color="k")
        self.rounds.setLabel("bottom", "rounds")
        self.rounds.setMinimumHeight(120)
        self.rounds.setMaximumHeight(200)
        self.rounds.setMouseEnabled(False, False)
        self.rounds.hideButtons()
        layout.addWidget(self.rounds)
        # Losses, not only winners (issue 39): how many of each side end the fight out.
        self.losses = label("")
        self.losses.setWordWrap(True)
        layout.addWidget(self.losses)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Combatant", "Drops", "HP left", "What if"])
        self.table.verticalHeader().setVisible(False)
        # The names take what the numbers leave: the table fills the dock's width.
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(160)
        layout.addWidget(self.table, 1)
        # Two rows, the lists stretching: a narrow dock still shows whole names.
        self.remove_box = QComboBox()
        self.remove_button = QPushButton("Without")
        self.remove_button.clicked.connect(self.remove_one)
        self.add_box = QComboBox()
        self.add_button = QPushButton("With")
        self.add_button.clicked.connect(self.add_one)
        # A house rule's other reading (issue 37): the same fight under it, side by side.
        self.rule_box = QComboBox()
        self.rule_button = QPushButton("Under")
        self.rule_button.clicked.connect(self.under_rule)
        self.clear_button = QPushButton("Clear what-if")
        self.clear_button.clicked.connect(self.clear_what_if)
        # A side that flees rather than fights to the last: both forecasts play it so.
        self.retreat_box = QComboBox()
        self.retreat_box.addItem(LAST, None)
        self.retreat_box.activated.connect(self.rerun)
        for row_widgets in ((label("Retreat:"), self.retreat_box),
                            (label("What if:"), self.remove_box, self.remove_button),
                            (self.add_box, self.add_button),
                            (self.rule_box, self.rule_button, self.clear_button)):
            what = QHBoxLayout()
            for w in row_widgets:
                what.addWidget(w, 1 if isinstance(w, QComboBox) else 0)
            layout.addLayout(what)

    # --- running ------------------------------------------------------------------

    def show_state(self, state: Encounter, ruleset: Ruleset, roster: list[Token]) -> None:
        """Forecast ``state`` (a copy is taken) afresh, and the what-if beside it if set."""
        self.state, self.ruleset, self.roster = state.copy(), ruleset, roster
        self.remove_box.clear()
        for t in state.tokens.values():
            self.remove_box.addItem(f"{t.name} ({t.side})", t.id)
        self.add_box.clear()
        for t in roster:
            self.add_box.addItem(t.name, t.id)
        if not roster:
            self.add_box.addItem("(no roster)")
        self.add_box.setEnabled(bool(roster))
        self.add_button.setEnabled(bool(roster))
        self.remove_button.setEnabled(bool(state.tokens))
        self.rule_box.clear()
        for key, option in ruleset.manifest.options.items():
            now = value_in_force(ruleset.manifest.options, state, key)
            title = key.replace("_", " ").capitalize()
            for value in option.values:
                if value != now:
                    self.rule_box.addItem(f"{title}: {value}", (key, value))
        if not self.rule_box.count():
            self.rule_box.addItem("(no house rules)")
        self.rule_box.setEnabled(bool(ruleset.manifest.options))
        self.rule_button.setEnabled(bool(ruleset.manifest.options))
        kept = self.retreat_box.currentText()  # by its words: Qt cannot find a Python value
        self.retreat_box.clear()
        self.retreat_box.addItem(LAST, None)
        for side in sides_of(state):
            for retreat in (Retreat(side), Retreat(side, RETREAT_ROUND)):
                self.retreat_box.addItem(retreat.describe(), retreat)
        self.retreat_box.setCurrentIndex(max(0, self.retreat_box.findText(kept)))
        sides = {t.side for t in state.tokens.values() if not ruleset.out_of_fight(t)}
        if len(sides) < 2:  # no fight to play out: say so rather than chart 200 empty ones
            self.cancel()
            self.results.clear()
            self.what_if, self.what_if_text = None, ""
            self.redraw()
            self.title.setText(NOTHING)
            return
        self.start("now", self.state)
        if self.what_if is not None:
            self.rebuild_what_if()

    def start(self, which: str, state: Encounter) -> None:
        """Run the forecast ``which`` ("now" or "what if") on ``state``."""
        old = self.jobs.pop(which, None)
        if old is not None:
            old.cancel()
        self.results.pop(which, None)
        self.error = ""
        assert self.ruleset is not None
        self.serial += 1
        # Reports carry the job's own name: one still queued from a cancelled job of the
        # same kind is told apart and dropped.
        worker = self.workers.setdefault(which, Worker())
        self.jobs[which] = Job(f"{which}#{self.serial}", worker, state, self.ruleset,
                               self.fights, self)
        self.cancel_button.setEnabled(True)
        self.redraw()

    def rerun(self) -> None:
        """Play the forecast (and the what-if) again under the retreat chosen."""
        if self.state is not None and self.ruleset is not None:
            self.start("now", self.state)
            if self.what_if is not None:
                self.start("what if", self.what_if)

    def _current(self, name: str) -> str | None:
        which = name.split("#")[0]
        job = self.jobs.get(which)
        return which if job is not None and job.which == name else None

    def progressed(self, name: str, result: Forecast) -> None:
        """More fights of the forecast ``name`` are in."""
        which = self._current(name)
        if which is not None:
            self.results[which] = result
            self.redraw()

    def finished(self, name: str) -> None:
        """A forecast is over: its thread is done with."""
        which = self._current(name)
        if which is None:
            return
        self.jobs.pop(which).done()
        self.cancel_button.setEnabled(bool(self.jobs))
        self.redraw()

    def cancel(self) -> None:
        """Stop every forecast under way (what is done so far stays shown)."""
        for job in list(self.jobs.values()):
            job.cancel()
        self.jobs.clear()
        self.cancel_button.setEnabled(False)
        self.redraw()

    def busy(self) -> bool:
        """Whether a forecast is still running."""
        return bool(self.jobs)

    # --- what if ------------------------------------------------------------------

    def remove_one(self) -> None:
        """What if the combatant picked were not in the fight."""
        tid = self.remove_box.currentData()
        base = self.what_if if self.what_if is not None else self.state
        if base is None or tid not in base.tokens:
            return
        self.what_if = base.copy()
        name = self.what_if.tokens.pop(tid).name
        self.what_if_text = _joined(self.what_if_text, f"without {name}")
        self.start("what if", self.what_if)

    def add_one(self) -> None:
        """What if the roster entry picked joined the fight, next to its side."""
        index = self.add_box.currentIndex()
        base = self.what_if if self.what_if is not None else self.state
        if base is None or not 0 <= index < len(self.roster):
            return
        self.what_if = base.copy()
        token = _placed(self.what_if, self.roster[index])
        self.what_if.tokens[token.id] = token
        self.what_if_text = _joined(self.what_if_text, f"with {token.name}")
        self.start("what if", self.what_if)

    def under_rule(self) -> None:
        """What if the house rule picked read the other way (the same fight, same dice)."""
        picked = self.rule_box.currentData()
        base = self.what_if if self.what_if is not None else self.state
        if base is None or not isinstance(picked, tuple):
            return
        key, value = picked
        self.what_if = base.copy()
        self.what_if.house_rules = {**self.what_if.house_rules, key: value}
        self.what_if_text = _joined(self.what_if_text,
                                    f"house rule {key.replace('_', ' ')} {value}")
        self.start("what if", self.what_if)

    def rebuild_what_if(self) -> None:
        """Keep the what-if's changes on the new state: forget it (the GM asks again)."""
        self.clear_what_if()

    def clear_what_if(self) -> None:
        """Back to the encounter as it is."""
        job = self.jobs.pop("what if", None)
        if job is not None:
            job.cancel()
        self.what_if = None
        self.what_if_text = ""
        self.results.pop("what if", None)
        self.redraw()

    # --- drawing ------------------------------------------------------------------

    def redraw(self) -> None:
        """Charts, table and progress from the results so far."""
        now = self.results.get("now")
        other = self.results.get("what if")
        done = now.fights if now is not None else 0
        self.bar.setValue(done)
        state = "running" if self.busy() else "done"
        text = f"Forecast: {done} of {self.fights} fights ({state})"
        if self.what_if_text:
            text += f" — what if: {self.what_if_text} (orange)"
        if self.error:
            text += f". {self.error}"
        self.title.setText(text)
        self._draw_wins(now, other)
        self._draw_rounds(now, other)
        self.losses.setText(losses_text(now) if now is not None and now.fights else "")
        self._fill_table(now, other)

    def _draw_wins(self, now: Forecast | None, other: Forecast | None) -> None:
        import pyqtgraph as pg

        self.wins.clear()
        if now is None:
            return
        fled = sorted(set(now.retreats) | (set(other.retreats) if other is not None else set()))
        sides = [*now.sides, *(f"{s} flee" for s in fled), "undecided"]
        width = 0.38 if other is not None else 0.7
        for k, (result, colour) in enumerate(((now, NOW), (other, WHAT_IF))):
            if result is None or not result.fights:
                continue
            heights, lows, highs = [], [], []
            for side in sides:
                p, lo, hi = result.undecided_chance() if side == "undecided" \
                    else result.retreat_chance(side[:-5]) if side.endswith(" flee") \
                    and side[:-5] in fled else result.win(side)
                heights.append(100 * p)
                lows.append(100 * (p - lo))
                highs.append(100 * (hi - p))
            xs = [i + (k - 0.5) * width if other is not None else i for i in range(len(sides))]
            self.wins.addItem(pg.BarGraphItem(x=xs, height=heights, width=width,
                                              brush=colour))
            self.wins.addItem(pg.ErrorBarItem(x=np.array(xs),
                                              y=np.array(heights),
                                              top=np.array(highs),
                                              bottom=np.array(lows), beam=0.1))
        self.wins.getAxis("bottom").setTicks([list(enumerate(sides))])
        self.wins.setYRange(0, 100)

    def _draw_rounds(self, now: Forecast | None, other: Forecast | None) -> None:
        import pyqtgraph as pg

        self.rounds.clear()
        spans = [r for result in (now, other) if result is not None for r in result.rounds]
        if spans:  # whole rounds only: a short fight's axis read "1.5"
            whole_axis(self.rounds, min(spans), max(spans))
        for k, (result, colour) in enumerate(((now, NOW), (other, WHAT_IF))):
            if result is None or not result.fights:
                continue
            xs = sorted(result.rounds)
            ys = [100 * result.rounds[r] / result.fights for r in xs]
            shift = (k - 0.5) * 0.4 if other is not None else 0.0
            self.rounds.addItem(pg.BarGraphItem(x=[x + shift for x in xs], height=ys,
                                                width=0.4 if other is not None else 0.8,
                                                brush=colour))

    def _fill_table(self, now: Forecast | None, other: Forecast | None) -> None:
        if now is None:
            self.table.setRowCount(0)
            return
        self.table.setRowCount(len(now.ids))
        for k, (tid, name) in enumerate(zip(now.ids, now.names, strict=True)):
            cells = [f"{name} ({now.token_sides[k]})", f"{100 * now.drop(k):.0f}%",
                     f"{now.mean_hp(k):.1f} / {now.start_hp[k]}", ""]
            if other is not None and other.fights:
                cells[3] = (f"{100 * other.drop(other.ids.index(tid)):.0f}% drop"
                            if tid in other.ids else "not in it")
            for c, value in enumerate(cells):
                self.table.setItem(k, c, QTableWidgetItem(value))

    def failed(self, name: str, why: str) -> None:
        """A forecast could not be played: say why in the title (the window goes on)."""
        if self._current(name) is not None:
            self.error = f"The forecast stopped: {why}"

    def close_workers(self) -> None:
        """End the worker processes (the window closes)."""
        self.cancel()
        for worker in self.workers.values():
            worker.close()
        self.workers.clear()

    def closeEvent(self, event: object) -> None:
        """Stop the workers' jobs with the dock."""
        self.cancel()

    def sizeHint(self) -> QSize:
        """At most a third of the window's width (the dock opens this wide): at 1280×800
        the charts' own wish took half the map."""
        hint = super().sizeHint()
        top = self.window()
        if top is not self and top.width() > 0:
            hint.setWidth(max(self.minimumSizeHint().width(),
                              min(hint.width(), top.width() // 3)))
        return hint


class ForecastDock:
    """Combat ▸ Forecast: the dock, and when it runs again (a change to the encounter
    while it is shown, looked for twice a second)."""

    def __init__(self, window: QMainWindow, host: ForecastHost) -> None:
        self.window = host
        self._panel: ForecastPanel | None = None
        self.dock = QDockWidget("Forecast", window)
        self.dock.setObjectName("forecast")
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)
        self.dock.hide()
        self.dock.visibilityChanged.connect(self._shown)
        self.seen: tuple[int, int] | None = None
        self.timer = QTimer(self.dock)
        self.timer.setInterval(500)
        self.timer.timeout.connect(self.check)

    @property
    def panel(self) -> ForecastPanel:
        """The dock's contents, made when first wanted (its charts need pyqtgraph, which the
        first paint of the window does not)."""
        if self._panel is None:
            self._panel = ForecastPanel()
            self.dock.setWidget(self._panel)
        return self._panel

    def open(self) -> None:
        """Show the dock and forecast the encounter as it is now."""
        panel = self.panel  # made before the dock shows, which takes its width from it
        panel.setFocus()
        self.dock.show()
        self.dock.raise_()
        self.seen = None
        self.check()

    def hold(self) -> None:
        """The GM is dragging: the forecast's workers wait (between two fights) a moment."""
        if self._panel is not None:
            for worker in self._panel.workers.values():
                worker.hold()

    def close(self) -> None:
        """End the forecast's worker processes (the window closes)."""
        if self._panel is not None:
            self._panel.close_workers()

    def _shown(self, visible: bool) -> None:
        if visible:
            self.timer.start()
        else:
            self.timer.stop()
            if self._panel is not None:
                self._panel.cancel()

    def check(self) -> None:
        """Forecast again if the encounter changed since the last forecast."""
        if not self.dock.isVisible():
            return
        referee = self.window.session.referee
        now = (id(referee), referee.version)
        if now == self.seen:
            return
        self.seen = now
        roster = self.window.rosters.roster()
        tokens = [e.token for e in roster.search(referee.state.ruleset)] if roster else []
        self.panel.show_state(referee.state, referee.ruleset, tokens)


def _joined(before: str, more: str) -> str:
    return f"{before}, {more}" if before else more


def _placed(state: Encounter, token: Token) -> Token:
    """A copy of ``token`` with a free id, beside the first member of its side (or where
    it was saved)."""
    n, tid = 1, token.id
    while tid in state.tokens:
        n += 1
        tid = f"{token.id}-{n}"
    near = next((t.cell for t in state.tokens.values() if t.side == token.side), token.cell)
    taken = {t.cell for t in state.tokens.values()}
    x, y = near
    for r in range(1, max(state.map.width, state.map.height)):
        ring = [(x + dx, y + dy) for dx in range(-r, r + 1) for dy in range(-r, r + 1)
                if max(abs(dx), abs(dy)) == r]
        free = [c for c in ring if c not in taken and 0 <= c[0] < state.map.width
                and 0 <= c[1] < state.map.height]
        if free:
            x, y = free[0]
            break
    return Token(tid, token.name if n == 1 else f"{token.name} {n}", token.side, x, y,
                 token.size, token.max_hp, token.max_hp, dict(token.stats))


def losses_text(result: Forecast) -> str:
    """One line a side: the chance that 0, 1, 2 … of it end the fight out, and the HP it
    loses on average (plain text)."""
    lines = ["Losses: how many end the fight down, and the HP lost"]
    for side in result.sides:
        spread = ", ".join(f"{k}: {100 * p:.0f}%" for k, p in result.losses(side).items())
        spent, of = result.hp_spent(side)
        lines.append(f"  {side} down {spread}; HP lost {spent:.0f} of {of}")
    return "\n".join(lines)
