"""The odds card: the exact chances of an action, shown before the GM confirms it."""

from __future__ import annotations

import pyqtgraph as pg

from tacmap.engine.views import Odds, Preview
from tacmap.ui.qt import (
    QDialog,
    QDialogButtonBox,
    QFont,
    QLabel,
    QVBoxLayout,
    QWidget,
)

#: Bar colours of the odds' labelled distributions, in order.
SPREAD_COLOURS = ("#2e6fbd", "#c8312f", "#2e9d4f", "#8a5cc2")


def percent(p: float) -> str:
    """``62.5%``; very small chances are not rounded to zero."""
    if 0 < p < 0.001:
        return "<0.1%"
    return f"{p * 100:.1f}%"


class OddsCard(QDialog):
    """Title, chance to succeed, chance the target drops, damage distribution; Confirm/Cancel."""

    def __init__(self, title: str, target: str, preview: Preview,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Odds")
        self.preview = preview
        layout = QVBoxLayout(self)
        head = QLabel(title)
        font = QFont(head.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        head.setFont(font)
        layout.addWidget(head)
        odds = preview.odds
        if not preview.legal:
            self.summary = QLabel(f"Not allowed: {preview.reason}")
        elif odds is None:
            self.summary = QLabel("No dice decide this: it simply happens.")
        else:
            lines = [f"Chance to succeed: <b>{percent(odds.success)}</b>"]
            if odds.damage:
                lines.append(f"Damage if it succeeds: {odds.mean_damage:.1f} on average, "
                             f"{min(d for d, _ in odds.damage)}–{max(d for d, _ in odds.damage)}")
            lines.append(f"Chance {target} drops: <b>{percent(odds.drop)}</b>")
            lines += [f"{label}: <b>{percent(p)}</b>" for label, p in odds.chances]
            lines += [f"<small>{line}</small>" for line in odds.lines]
            self.summary = QLabel("<br>".join(lines))
        layout.addWidget(self.summary)
        self.plot: pg.PlotWidget | None = None
        if odds is not None and odds.damage:
            plot = pg.PlotWidget(background="#fbf8ef")
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.setMenuEnabled(False)
            plot.setFixedHeight(150)
            xs = [d for d, _ in odds.damage]
            ys = [p * 100 for _, p in odds.damage]
            plot.addItem(pg.BarGraphItem(x=xs, height=ys, width=0.8, brush="#c8312f"))
            plot.setLabel("bottom", "damage")
            plot.setLabel("left", "%")
            layout.addWidget(plot)
            self.plot = plot
        self.spread_plot: pg.PlotWidget | None = None
        if odds is not None and odds.spreads:
            keys = "&nbsp;&nbsp;".join(
                f'<span style="color:{SPREAD_COLOURS[i % len(SPREAD_COLOURS)]}">■</span> '
                f"{s.label}" for i, s in enumerate(odds.spreads))
            self.spread_keys = QLabel(keys)
            self.spread_keys.setWordWrap(True)
            layout.addWidget(self.spread_keys)
            self.spread_plot = self._spreads(odds)
            layout.addWidget(self.spread_plot)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        confirm = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        confirm.setText("Confirm")
        confirm.setEnabled(preview.legal)
        self.confirm_button = confirm
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        tall = (self.plot is not None) + (self.spread_plot is not None)
        self.resize(380, 160 + 150 * tall)

    @staticmethod
    def _spreads(odds: Odds) -> pg.PlotWidget:
        """The odds' labelled distributions as bars side by side, with a legend."""
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
        plot.setLabel("bottom", odds.spread_axis)
        plot.setLabel("left", "%")
        return plot
