"""The odds card: the exact chances of an action, shown before the GM confirms it."""

from __future__ import annotations

import pyqtgraph as pg

from tacmap.engine.views import Preview
from tacmap.ui.qt import (
    QDialog,
    QDialogButtonBox,
    QFont,
    QLabel,
    QVBoxLayout,
    QWidget,
)


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
            lines += [f"Chance of {label}: <b>{percent(p)}</b>" for label, p in odds.chances]
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
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        confirm = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        confirm.setText("Confirm")
        confirm.setEnabled(preview.legal)
        self.confirm_button = confirm
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.resize(380, 300 if self.plot is not None else 160)
