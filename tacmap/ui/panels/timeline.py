"""The phase timeline (pyqtgraph): phases as columns, combatants as rows, actions as bars."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tacmap.engine.model.state import Encounter
from tacmap.engine.rules.views import Timeline
from tacmap.ui.map.look import side_colours
from tacmap.ui.plain import esc
from tacmap.ui.qt import QColor, QFont, QLabel, QResizeEvent, Qt, QVBoxLayout, QWidget

if TYPE_CHECKING:
    import pyqtgraph as pg


#: Pixels a timeline row takes (the GM's, the players' larger type), and the most the
#: panel takes of the window's height.
ROW_HEIGHT, PLAYER_ROW_HEIGHT, ROOM_MAX = 20, 22, 260


class TimelinePanel(QWidget):
    """Draws a ruleset's Timeline view-model; hidden for rulesets without phases."""

    def __init__(self, player: bool = False) -> None:
        super().__init__()
        #: Made when the first timeline is drawn: pyqtgraph costs most of a second to
        #: import, and the first paint of a ruleset without phases never needs it.
        self.plot: pg.PlotWidget | None = None
        self.player = player
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(2, 2, 2, 2)
        layout = self._layout
        #: Actions an earlier one invalidated, each with its reason (hidden when none).
        self.struck = QLabel()
        self.struck.setWordWrap(True)
        self.struck.setTextFormat(Qt.TextFormat.RichText)
        self.struck.setVisible(False)
        layout.addWidget(self.struck)
        #: Before combat: where the timeline will be (the dock keeps its room from the
        #: start, so the map does not move when combat starts).
        self.waiting = QLabel("The phase timeline is drawn here once combat starts.")
        self.waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.waiting.setStyleSheet("color: #6b6b6b")
        layout.addWidget(self.waiting)
        self.bars: list[tuple[str, int, int, int]] = []
        self._shown: tuple[Encounter, Timeline | None, frozenset[str]] | None = None
        self.current: int | None = None
        self.rows: list[str] = []

    def _made_plot(self) -> pg.PlotWidget:
        """The chart, made (and pyqtgraph imported) the first time it is needed."""
        if self.plot is None:
            import pyqtgraph as pg

            pg.setConfigOptions(antialias=True)
            self.plot = pg.PlotWidget(background="#fbf8ef")
            self.plot.setMouseEnabled(x=False, y=False)
            self.plot.hideButtons()
            self.plot.setMenuEnabled(False)
            self.plot.showGrid(x=True, y=False, alpha=0.25)
            self._layout.insertWidget(0, self.plot)
        return self.plot

    def show_timeline(self, state: Encounter, timeline: Timeline | None,
                      hidden: frozenset[str] = frozenset()) -> None:
        """Redraw; ``hidden`` token ids are left out (the player view)."""
        self._shown = (state, timeline, hidden)
        if self.plot is not None:
            self.plot.clear()
        self.bars = []
        self.rows = []
        self.struck.setVisible(False)
        self._hold_height(state, hidden)
        self.waiting.setVisible(timeline is None)
        if self.plot is not None:
            self.plot.setVisible(timeline is not None)
        if timeline is None:
            self.current = None
            return
        import pyqtgraph as pg

        plot = self._made_plot()
        plot.setVisible(True)
        colours = side_colours(state)
        items = [i for i in timeline.items if i.actor not in hidden]
        rows: list[str] = []
        for item in items:
            if item.actor not in rows:
                rows.append(item.actor)
        self.rows = rows
        size = 14 if self.player else 9
        font = QFont()
        font.setPointSize(size)
        for item in items:
            y = rows.index(item.actor)
            token = state.tokens.get(item.actor)
            colour = QColor(colours.get(token.side, "#888888") if token else "#888888")
            if item.carried:
                colour.setAlpha(140)
            if item.struck:
                colour = QColor("#9a9a9a")
            bar = pg.BarGraphItem(x0=[item.start - 0.42], x1=[item.end + 0.42], y=[-y],
                                  height=0.62, brush=colour, pen=pg.mkPen(colour.darker(150)))
            plot.addItem(bar)
            # Characters that fit in the bar at this panel's type size.
            per = max(8 if self.player else 11,
                      int(plot.width() / max(len(timeline.phases), 1) / size))
            room = per * (item.end - item.start + 1)
            text = item.label if len(item.label) <= room else item.label[: room - 1] + "…"
            label = pg.TextItem(("✗ " if item.struck else "") + text, color="#ffffff",
                                anchor=(0, 0.5))
            if item.struck:
                struck_font = QFont(font)
                struck_font.setStrikeOut(True)
                label.setFont(struck_font)
            else:
                label.setFont(font)
            label.setPos(item.start - 0.38, -y)
            plot.addItem(label)
            self.bars.append((item.actor, item.start, item.end, y))
        struck = [i for i in items if i.struck]
        if struck:
            who = {i.actor: state.tokens[i.actor].name if i.actor in state.tokens else i.actor
                     for i in struck}
            lines = [f"✗ <s>{esc(who[i.actor])}: {esc(i.label)}</s> — {esc(i.struck)}"
                     for i in struck]
            self.struck.setText("<span style='color:#8b1a1a'>Struck out: "
                                + "<br>".join(lines) + "</span>")
            self.struck.setVisible(True)
        self.current = timeline.current
        if timeline.current is not None:
            region = pg.LinearRegionItem((timeline.current - 0.5, timeline.current + 0.5),
                                         movable=False, brush=(255, 204, 0, 70),
                                         pen=pg.mkPen("#d69e00"))
            plot.addItem(region)
        axis = plot.getAxis("bottom")
        axis.setTicks([list(enumerate(timeline.phases))])
        left = plot.getAxis("left")
        names = [(-i, state.tokens[a].name if a in state.tokens else a) for i, a in enumerate(rows)]
        left.setTicks([names])
        for ax in (axis, left):
            ax.setStyle(tickFont=font)
        plot.setXRange(-0.6, len(timeline.phases) - 0.4, padding=0)
        plot.setYRange(-max(len(rows), 1) + 0.4, 0.6, padding=0)

    def _hold_height(self, state: Encounter, hidden: frozenset[str]) -> None:
        """One height for the whole encounter: room for a row per combatant on the map, so
        rows coming and going between phases, or combat starting, never move the map."""
        rows = sum(1 for t in state.tokens if t not in hidden)
        row = PLAYER_ROW_HEIGHT if self.player else ROW_HEIGHT
        tall = min(ROOM_MAX, 50 + row * max(rows, 1))
        if self.minimumHeight() != tall or self.maximumHeight() != tall:
            self.setFixedHeight(tall)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Labels are cut to the room a phase has, so a new width draws them again."""
        super().resizeEvent(event)
        if self._shown is not None and event.oldSize().width() != event.size().width():
            self.show_timeline(*self._shown)
