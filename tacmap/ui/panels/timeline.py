"""The phase timeline (pyqtgraph): phases as columns, combatants as rows, actions as bars."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tacmap.engine.model.state import Encounter
from tacmap.engine.rules.views import Timeline, TimelineItem
from tacmap.ui.map.look import side_colours
from tacmap.ui.plain import esc, tip
from tacmap.ui.qt import (
    QColor,
    QFont,
    QFontMetricsF,
    QLabel,
    QResizeEvent,
    Qt,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    import pyqtgraph as pg


#: Pixels a timeline row takes (the GM's, the players' larger type), and the most the
#: panel takes of the window's height.
ROW_HEIGHT, PLAYER_ROW_HEIGHT, ROOM_MAX = 20, 22, 260


def merged(items: list[TimelineItem]) -> list[TimelineItem]:
    """One bar for each actor and span: items sharing both (speed_rank's "ready" and the
    move made in that phase) drew their bars and words over each other. The words are
    joined; the bar is struck out, or carried over, only when every item in it is."""
    out: dict[tuple[str, int, int], TimelineItem] = {}
    for item in items:
        key = (item.actor, item.start, item.end)
        had = out.get(key)
        if had is None:
            out[key] = item
            continue
        words = [("✗ " if i.struck and not (had.struck and item.struck) else "") + i.label
                 for i in (had, item)]
        out[key] = replace(had, label=" · ".join(words),
                           carried=had.carried and item.carried,
                           struck=had.struck if had.struck and item.struck else "")
    return list(out.values())


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
        #: What the last redraw drew from: the timeline, who is hidden, the panel's width,
        #: and each token's name and side (the rows' names, colours and the panel's height).
        self._drawn: tuple[object, ...] | None = None
        #: The chart's items, kept from one redraw to the next: the bars (one item), a
        #: label per bar, and the highlight of the phase under way.
        self._bar_item: pg.BarGraphItem | None = None
        self._labels: list[pg.TextItem] = []
        #: Each shown label's whole words, its font and the phases its bar spans: cut to
        #: the bar again whenever the chart's width changes.
        self._words: list[tuple[pg.TextItem, str, QFont, float]] = []
        self._region: pg.LinearRegionItem | None = None
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
            self.plot.getViewBox().sigResized.connect(self._fit_labels)
        return self.plot

    def show_timeline(self, state: Encounter, timeline: Timeline | None,
                      hidden: frozenset[str] = frozenset()) -> None:
        """Redraw; ``hidden`` token ids are left out (the player view). Nothing is redrawn
        when nothing drawn would change: most commands (a step, a roll) leave it as it was."""
        self._shown = (state, timeline, hidden)
        drawn = (timeline, hidden, self.width(),
                 tuple((t.id, t.name, t.side) for t in state.tokens.values()))
        if drawn == self._drawn:
            return
        self._drawn = drawn
        self.bars = []
        self.rows = []
        self.struck.setVisible(False)
        self._hold_height(state, hidden)
        self.waiting.setVisible(timeline is None)
        if self.plot is not None:
            self.plot.setVisible(timeline is not None)
        if timeline is None:
            self.current = None
            self._words = []
            self._labelled(0)
            return
        import pyqtgraph as pg

        plot = self._made_plot()
        plot.setVisible(True)
        colours = side_colours(state)
        visible = [i for i in timeline.items if i.actor not in hidden]
        items = merged(visible)
        rows: list[str] = []
        for item in items:
            if item.actor not in rows:
                rows.append(item.actor)
        self.rows = rows
        size = 14 if self.player else 9
        font = QFont()
        font.setPointSize(size)
        struck_font = QFont(font)
        struck_font.setStrikeOut(True)
        self._words = []
        fills: list[QColor] = []
        ys: list[int] = []
        labels = self._labelled(len(items))
        for item, label in zip(items, labels, strict=True):
            y = rows.index(item.actor)
            token = state.tokens.get(item.actor)
            colour = QColor(colours.get(token.side, "#888888") if token else "#888888")
            if item.carried:
                colour.setAlpha(140)
            if item.struck:
                colour = QColor("#9a9a9a")
            fills.append(colour)
            ys.append(-y)
            words_font = struck_font if item.struck else font
            label.setFont(words_font)
            label.setPos(item.start - 0.38, -y)
            # From the label's place to the bar's end (the bar reaches 0.42 past each side).
            words = ("✗ " if item.struck else "") + item.label
            self._words.append((label, words, words_font, item.end - item.start + 0.8))
            # The words a narrow bar cuts short, whole, under the mouse.
            label.setToolTip(tip(f"{token.name if token else item.actor}: {words}"))
            self.bars.append((item.actor, item.start, item.end, y))
        # The chart's items are made once and changed in place: a chart rebuilt for each
        # command cost the window 30 ms a command (speed_rank's demo).
        if self._bar_item is None:
            self._bar_item = pg.BarGraphItem(x0=[], x1=[], y=[], height=0.62)
            plot.addItem(self._bar_item)
        # (pyqtgraph 0.14 fails on an empty list of pens: no bars, the item is hidden.)
        self._bar_item.setVisible(bool(items))
        if items:
            self._bar_item.setOpts(x0=[i.start - 0.42 for i in items],
                                   x1=[i.end + 0.42 for i in items],
                                   y=ys, height=0.62,
                                   brushes=fills, pens=[pg.mkPen(c.darker(150)) for c in fills])
        struck = [i for i in visible if i.struck]
        if struck:
            who = {i.actor: state.tokens[i.actor].name if i.actor in state.tokens else i.actor
                     for i in struck}
            lines = [f"✗ <s>{esc(who[i.actor])}: {esc(i.label)}</s> — {esc(i.struck)}"
                     for i in struck]
            self.struck.setText("<span style='color:#8b1a1a'>Struck out: "
                                + "<br>".join(lines) + "</span>")
            self.struck.setVisible(True)
        self.current = timeline.current
        if self._region is None:
            self._region = pg.LinearRegionItem((0, 0), movable=False,
                                               brush=(255, 204, 0, 70), pen=pg.mkPen("#d69e00"))
            self._region.setZValue(20)  # over the bars and their words, as a highlight
            plot.addItem(self._region)
        self._region.setVisible(timeline.current is not None)
        if timeline.current is not None:
            self._region.setRegion((timeline.current - 0.5, timeline.current + 0.5))
        axis = plot.getAxis("bottom")
        axis.setTicks([list(enumerate(timeline.phases))])
        left = plot.getAxis("left")
        names = [(-i, state.tokens[a].name if a in state.tokens else a) for i, a in enumerate(rows)]
        left.setTicks([names])
        for ax in (axis, left):
            ax.setStyle(tickFont=font)
        plot.setXRange(-0.6, len(timeline.phases) - 0.4, padding=0)
        plot.setYRange(-max(len(rows), 1) + 0.4, 0.6, padding=0)
        self._fit_labels()

    def _fit_labels(self) -> None:
        """Each bar's words cut, with "…", to what its bar holds at the chart's width now
        (measured in the label's own font: the player view's type is half as large again)."""
        if self.plot is None:
            return
        box = self.plot.getViewBox()
        (left, right), _ = box.viewRange()
        per_phase = box.width() / max(right - left, 1e-9)
        metrics: dict[bool, QFontMetricsF] = {}  # one a font (plain, struck), not one a bar
        for label, words, font, span in self._words:
            measure = metrics.get(font.strikeOut())
            if measure is None:
                measure = metrics[font.strikeOut()] = QFontMetricsF(font)
            margins = 2 * label.textItem.document().documentMargin()
            room = max(0.0, per_phase * span - margins)
            label.setText(measure.elidedText(words, Qt.TextElideMode.ElideRight, room))

    def _labelled(self, count: int) -> list[pg.TextItem]:
        """``count`` bar labels on the chart, made as needed; the rest emptied and hidden
        (an empty one keeps no name of a token the players no longer see)."""
        while len(self._labels) < count:
            import pyqtgraph as pg  # not before the first bar: the first paint has none

            label = pg.TextItem("", color="#ffffff", anchor=(0, 0.5))
            label.setZValue(10)
            self._made_plot().addItem(label)
            self._labels.append(label)
        for label in self._labels[count:]:
            label.setText("")
            label.setVisible(False)
        for label in self._labels[:count]:
            label.setVisible(True)
        return self._labels[:count]

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
