"""The odds card: the exact chances of an action, shown before the GM confirms it.

An option can carry choices (``ActionOption.choices``: an attack type, a hit
location …); the card shows one list per choice and asks the rules again each
time the GM changes one, so the chances shown are always those of what Confirm
will send.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tacmap.engine.rules.views import Odds, Preview, Reaction
from tacmap.ui import plain
from tacmap.ui.plain import esc
from tacmap.ui.qt import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFont,
    QFormLayout,
    QLabel,
    QPoint,
    QRect,
    QSize,
    Qt,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:  # pyqtgraph is imported with the first chart, after the first paint
    import pyqtgraph as pg

#: Bar colours of the odds' labelled distributions, in order.
SPREAD_COLOURS = ("#2e6fbd", "#c8312f", "#2e9d4f", "#8a5cc2")
#: Width of the card in pixels: wide enough for a 15-value damage plot; text wraps to it.
CARD_WIDTH = 420
#: Pixels between the card and the tokens it is about.
GAP = 24
#: Pixels of a window manager's title bar, guessed until the card is framed.
TITLE_GUESS = 30
#: Most labelled ticks an axis of whole numbers gets.
MOST_TICKS = 14


def whole_ticks(low: int, high: int) -> list[tuple[float, str]]:
    """Ticks at whole numbers from ``low`` to ``high``: every one, or every 2nd, 5th …"""
    span = max(1, high - low)
    step = 1
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000):
        if span / step <= MOST_TICKS:
            break
    else:
        step = math.ceil(span / MOST_TICKS)
    first = math.ceil(low / step) * step
    return [(float(v), str(v)) for v in range(first, high + 1, step)]


def whole_axis(plot: pg.PlotWidget, low: int, high: int) -> None:
    """Label ``plot``'s bottom axis at whole numbers only, with half a bar of air each side."""
    plot.getAxis("bottom").setTicks([whole_ticks(low, high), []])
    plot.setXRange(low - 0.7, high + 0.7, padding=0)


def percent_axis(plot: pg.PlotWidget, highest: float) -> None:
    """The left axis from 0 to ``highest`` per cent, labelled at round numbers none above
    ``highest``: a label at the chart's top edge was cut in half ("15" over a 14% bar)."""
    plot.setYRange(0, highest, padding=0.08)
    if highest >= 2:
        step = next((s for s in (1, 2, 5, 10, 20, 25) if highest / s <= 4), 50)
        plot.getAxis("left").setTicks([[(float(v), str(v))
                                        for v in range(0, int(highest) + 1, step)], []])


def reaction_line(reaction: Reaction, target: str) -> str:
    """A reaction the card names, with the odds without it when the rules know them."""
    text = f"⚠ {esc(reaction.text)}"
    without = []
    if reaction.success is not None:
        without.append(f"{esc(percent(reaction.success))} to succeed")
    if reaction.drop is not None:
        without.append(f"{esc(percent(reaction.drop))} that {esc(target)} drops")
    if without:
        text += f"<br>&nbsp;&nbsp;without it: <b>{', '.join(without)}</b>"
    return text


def beside(area: QRect, size: tuple[int, int], screen: QRect,
           avoid: Sequence[QRect] = (), over: QRect | None = None) -> QPoint:
    """Where a card of ``size`` goes next to ``area`` (the tokens) without covering it,
    nor any of ``avoid`` (the other tokens on screen) where it can.

    Right of the tokens when it fits on ``screen``, else left, else below, else
    above, each slid along its side in steps of half the card, then pushed further
    away from the tokens, when that clears the other tokens; always kept on the
    screen. Of the places that cover the fewest other tokens, the first in that
    order that stays within ``over`` (the map on screen) if any does: a small screen
    may leave no room but over the panels, and a token hidden is worse than a panel.
    """
    w, h = size
    top, left = area.center().y() - h // 2, area.center().x() - w // 2
    # Beside: only the x must fit (y slides along the screen); above/below: only the y.
    right_x, left_x = area.right() + GAP, area.left() - GAP - w
    below_y, above_y = area.bottom() + GAP, area.top() - GAP - h
    sides: list[tuple[int, int, int, int]] = []  # (x, y, away x, away y)
    if right_x + w <= screen.right() + 1:
        sides.append((right_x, top, 1, 0))
    if left_x >= screen.left():
        sides.append((left_x, top, -1, 0))
    if below_y + h <= screen.bottom() + 1:
        sides.append((left, below_y, 0, 1))
    if above_y >= screen.top():
        sides.append((left, above_y, 0, -1))
    if not sides:  # a screen too small for both: keep the card on it, over the map
        sides.append((right_x, top, 1, 0))

    def kept(x: int, y: int) -> QPoint:
        return QPoint(max(screen.left(), min(x, screen.right() + 1 - w)),
                      max(screen.top(), min(y, screen.bottom() + 1 - h)))

    best: tuple[tuple[int, bool], QPoint] | None = None
    for away in (0, 1, 2):
        for x, y, ax, ay in sides:
            along = (h if ax else w) // 2
            for k in (0, -1, 1, -2, 2, -3, 3):
                at = kept(x + ax * away * w // 2 + (0 if ax else k * along),
                          y + ay * away * h // 2 + (k * along if ax else 0))
                card = QRect(at, QSize(w, h))
                if card.intersects(area):
                    continue
                score = (sum(1 for r in avoid if card.intersects(r)),
                         over is not None and not over.contains(card))
                if best is None or score < best[0]:
                    best = (score, at)
                if score == (0, False):
                    return at
    return best[1] if best is not None else kept(*sides[0][:2])


def percent(p: float) -> str:
    """``62.5%``; very small chances are not rounded to zero (plain text: ``<0.1%`` goes
    through ``esc`` into rich text, where it would open a tag)."""
    if 0 < p < 0.001:
        return "<0.1%"
    return f"{p * 100:.1f}%"


class OddsCard(QDialog):
    """Title, choices, chance to succeed, chance the target drops, damage; Confirm/Cancel."""

    def __init__(self, title: str, target: str, preview: Preview,
                 parent: QWidget | None = None, *,
                 choices: Sequence[tuple[str, Sequence[str]]] = (), chosen: str = "",
                 repreview: Callable[[str], Preview] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Odds")
        self.preview = preview
        self.target = target
        self.repreview = repreview
        #: The tokens' rectangle on screen the card keeps beside (None: not placed).
        self.area: QRect | None = None
        #: The other tokens on screen, which the card keeps clear of where it can.
        self.avoid: list[QRect] = []
        self.over: QRect | None = None
        layout = QVBoxLayout(self)
        #: The card's one column: title, choices, text, reactions, plots, buttons.
        self.column = layout
        head = plain.label(title)
        font = QFont(head.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        head.setFont(font)
        layout.addWidget(head)
        #: One list per choice the option carries, in its order.
        self.choice_boxes: list[QComboBox] = []
        if choices:
            form = QFormLayout()
            picked = chosen.split("/") if chosen else []
            for i, (label, values) in enumerate(choices):
                box = QComboBox()
                box.addItems(list(values))
                if i < len(picked) and picked[i] in values:
                    box.setCurrentText(picked[i])
                box.currentTextChanged.connect(lambda _text: self._choose())
                form.addRow(label, box)
                self.choice_boxes.append(box)
            layout.addLayout(form)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.RichText)  # user text is escaped
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        #: The reactions that may fire, on an amber ground (hidden when there are none).
        self.reactions = QLabel()
        self.reactions.setTextFormat(Qt.TextFormat.RichText)  # user text is escaped
        self.reactions.setWordWrap(True)
        self.reactions.setStyleSheet("background:#fff1c9; color:#4a3500; padding:4px;"
                                     "border:1px solid #d9a400; border-radius:3px")
        layout.addWidget(self.reactions)
        head.setWordWrap(True)
        for widget in (head, self.summary, self.reactions):
            # A fixed width lets Qt work out the wrapped height exactly: no line is lost.
            widget.setFixedWidth(CARD_WIDTH - 24)
        self.plot: pg.PlotWidget | None = None
        self.spread_plot: pg.PlotWidget | None = None
        #: The plots and their key, straight in the card's layout above the buttons (a
        #: nested layout let Qt under-count their height and draw them over the buttons).
        self.drawn: list[QWidget] = []
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        confirm = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        confirm.setText("Confirm")
        self.confirm_button = confirm
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.show_preview(preview)

    @property
    def detail(self) -> str:
        """The choices picked, joined by ``/`` (``"swing/head"``)."""
        return "/".join(box.currentText() for box in self.choice_boxes)

    def _choose(self) -> None:
        if self.repreview is not None:
            self.show_preview(self.repreview(self.detail))
            if self.area is not None:  # a taller or shorter card: still beside, on screen
                self.place_beside(self.area)

    def show_preview(self, preview: Preview) -> None:
        """Show the chances of ``preview``."""
        self.preview = preview
        odds = preview.odds
        if not preview.legal:
            text = esc(f"Not allowed: {preview.reason}")
        elif odds is None:
            text = "No dice decide this: it simply happens."
        else:
            lines = [f"Chance to succeed: <b>{esc(percent(odds.success))}</b>"]
            if odds.damage:
                lines.append(esc(f"Damage if it succeeds: {odds.mean_damage:.1f} on average, "
                                 f"{min(d for d, _ in odds.damage)}–"
                                 f"{max(d for d, _ in odds.damage)}"))
            # Non-breaking: a wrapped line keeps its value beside its words.
            lines.append(f"Chance {esc(self.target)} drops:&nbsp;<b>{esc(percent(odds.drop))}</b>")
            lines += [f"{esc(label)}:&nbsp;<b>{esc(percent(p))}</b>" for label, p in odds.chances]
            lines += [f"<small>{esc(line)}</small>" for line in odds.lines]
            if self.choice_boxes:
                lines += [f"<small>{esc(note)}</small>" for note in preview.notes]
            text = "<br>".join(lines)
        self.summary.setText(text)
        said = odds.reactions if odds is not None and preview.legal else ()
        self.reactions.setText("<br>".join(reaction_line(r, self.target) for r in said))
        self.reactions.setVisible(bool(said))
        # Drawn afresh for each preview: a changed choice changes every number.
        for widget in self.drawn:
            self.column.removeWidget(widget)
            widget.hide()
            widget.deleteLater()
        self.drawn = []
        self.plot = self.spread_plot = None
        if odds is not None and odds.damage and preview.legal:
            import pyqtgraph as pg

            plot = pg.PlotWidget(background="#fbf8ef")
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.setMenuEnabled(False)
            plot.setFixedHeight(150)
            xs = [d for d, _ in odds.damage]
            ys = [p * 100 for _, p in odds.damage]
            plot.addItem(pg.BarGraphItem(x=xs, height=ys, width=0.8, brush="#c8312f"))
            whole_axis(plot, min(xs), max(xs))
            percent_axis(plot, max(ys))
            plot.setLabel("bottom", "damage")
            plot.setLabel("left", "%")
            self._draw(plot)
            self.plot = plot
        if odds is not None and odds.spreads and preview.legal:
            keys = "&nbsp;&nbsp;".join(
                f'<span style="color:{SPREAD_COLOURS[i % len(SPREAD_COLOURS)]}">■</span> '
                f"{esc(s.label)}" for i, s in enumerate(odds.spreads))
            key_label = QLabel(keys)
            key_label.setTextFormat(Qt.TextFormat.RichText)
            key_label.setWordWrap(True)
            self._draw(key_label)
            self.spread_plot = self._spreads(odds)
            self._draw(self.spread_plot)
        self.confirm_button.setEnabled(preview.legal)
        self._fit()

    def _draw(self, widget: QWidget) -> None:
        """Put ``widget`` under the text, above the buttons."""
        self.column.insertWidget(self.column.indexOf(self.buttons), widget)
        self.drawn.append(widget)

    def _fit(self) -> None:
        """Make the card exactly as tall as its wrapped text, plots and buttons need.

        Added up here, item by item, at the card's width: the minimum is that
        height too, so no plot can be drawn over the buttons, whatever the fonts.
        """
        layout = self.column
        layout.invalidate()
        margins = layout.contentsMargins()
        inner = CARD_WIDTH - margins.left() - margins.right()
        heights = []
        for i in range(layout.count()):
            item = layout.itemAt(i)
            if item is None:
                continue
            widget = item.widget()
            if widget is self.reactions and widget.isHidden():
                continue  # no reaction to name: the layout leaves the label out
            if item.hasHeightForWidth():
                # At the width the text really gets: two pixels more can save a line.
                width = min(inner, widget.maximumWidth()) if widget is not None else inner
                heights.append(item.heightForWidth(width))
            else:
                heights.append(max(item.minimumSize().height(), item.sizeHint().height()))
        height = sum(heights) + layout.spacing() * max(0, len(heights) - 1) \
            + margins.top() + margins.bottom()
        self.setMinimumSize(CARD_WIDTH, height)
        self.resize(CARD_WIDTH, height)

    def place_beside(self, area: QRect, avoid: Sequence[QRect] | None = None,
                     over: QRect | None = None) -> None:
        """Move the card next to ``area`` (the two tokens, in screen pixels), not over it
        nor over the other tokens of ``avoid`` where it can, within ``over`` (the map
        on screen) where that costs no token."""
        self.area = area
        if avoid is not None:
            self.avoid = list(avoid)
        if over is not None:
            self.over = over
        screen = self.screen().availableGeometry()
        # move() places the frame: plan with its size, a title bar's guess before
        # the window manager has framed the card.
        frame, inner = self.frameGeometry().size(), self.size()
        extra = frame.height() - inner.height() or TITLE_GUESS
        self.move(beside(area, (frame.width(), inner.height() + extra), screen,
                         self.avoid, self.over))

    @staticmethod
    def _spreads(odds: Odds) -> pg.PlotWidget:
        """The odds' labelled distributions as bars side by side, with a legend."""
        import pyqtgraph as pg

        plot = pg.PlotWidget(background="#fbf8ef")
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.setFixedHeight(170)
        width = 0.8 / len(odds.spreads)
        for i, spread in enumerate(odds.spreads):
            colour = SPREAD_COLOURS[i % len(SPREAD_COLOURS)]
            xs = [v - 0.4 + width * (i + 0.5) for v, _ in spread.values]
            ys = [p * 100 for _, p in spread.values]
            plot.addItem(pg.BarGraphItem(x=xs, height=ys, width=width * 0.95, brush=colour))
        values = [v for spread in odds.spreads for v, _ in spread.values]
        if values:
            whole_axis(plot, min(values), max(values))
            percent_axis(plot, max(p * 100 for spread in odds.spreads
                                   for _, p in spread.values))
        plot.setLabel("bottom", odds.spread_axis)
        plot.setLabel("left", "%")
        return plot
