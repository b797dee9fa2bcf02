"""The odds card: the exact chances of an action, shown before the GM confirms it.

An option can carry choices (``ActionOption.choices``: an attack type, a hit
location …); the card shows one list per choice and asks the rules again each
time the GM changes one, so the chances shown are always those of what Confirm
will send.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyqtgraph as pg

from tacmap.engine.views import Odds, Preview
from tacmap.ui import plain
from tacmap.ui.plain import esc
from tacmap.ui.qt import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFont,
    QFormLayout,
    QLabel,
    Qt,
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
        layout = QVBoxLayout(self)
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
        self.plot: pg.PlotWidget | None = None
        self.spread_plot: pg.PlotWidget | None = None
        self.plot_layout = QVBoxLayout()
        layout.addLayout(self.plot_layout)
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

    def show_preview(self, preview: Preview) -> None:
        """Show the chances of ``preview``."""
        self.preview = preview
        odds = preview.odds
        if not preview.legal:
            text = esc(f"Not allowed: {preview.reason}")
        elif odds is None:
            text = "No dice decide this: it simply happens."
        else:
            lines = [f"Chance to succeed: <b>{percent(odds.success)}</b>"]
            if odds.damage:
                lines.append(f"Damage if it succeeds: {odds.mean_damage:.1f} on average, "
                             f"{min(d for d, _ in odds.damage)}–{max(d for d, _ in odds.damage)}")
            lines.append(f"Chance {esc(self.target)} drops: <b>{percent(odds.drop)}</b>")
            lines += [f"{esc(label)}: <b>{percent(p)}</b>" for label, p in odds.chances]
            lines += [f"<small>{esc(line)}</small>" for line in odds.lines]
            if self.choice_boxes:
                lines += [f"<small>{esc(note)}</small>" for note in preview.notes]
            text = "<br>".join(lines)
        self.summary.setText(text)
        # Drawn afresh for each preview: a changed choice changes every number.
        while self.plot_layout.count():
            item = self.plot_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.plot = self.spread_plot = None
        if odds is not None and odds.damage and preview.legal:
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
            self.plot_layout.addWidget(plot)
            self.plot = plot
        if odds is not None and odds.spreads and preview.legal:
            keys = "&nbsp;&nbsp;".join(
                f'<span style="color:{SPREAD_COLOURS[i % len(SPREAD_COLOURS)]}">■</span> '
                f"{esc(s.label)}" for i, s in enumerate(odds.spreads))
            key_label = QLabel(keys)
            key_label.setTextFormat(Qt.TextFormat.RichText)
            key_label.setWordWrap(True)
            self.plot_layout.addWidget(key_label)
            self.spread_plot = self._spreads(odds)
            self.plot_layout.addWidget(self.spread_plot)
        self.confirm_button.setEnabled(preview.legal)
        tall = (self.plot is not None) + (self.spread_plot is not None)
        extra = 30 * len(self.choice_boxes) + (18 * len(preview.notes) if self.choice_boxes
                                                else 0)
        self.resize(400, 160 + 150 * tall + extra)

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
