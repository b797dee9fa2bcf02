"""The last result, kept in view until the next one: who did what to whom, dice, damage, HP left.

The floating "−8" over a token lasts a moment; this strip holds the whole
outcome of the last entry that decided something (rolled dice or changed hit
points): the sentence of what was asked, every roll with its faces, every
change of hit points with what is left, every ruleset line, and each reaction
that fired, picked out. A Fireball's five saves are all there. Moves and turn
ends that roll nothing leave it as it is, so an attack's result stays up while
the GM ends the turn.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence

from tacmap.engine.model.commands import Act, Attack
from tacmap.engine.model.events import (
    ConditionChanged,
    DiceRolled,
    Event,
    GmRolled,
    HpChanged,
    Said,
)
from tacmap.engine.model.state import Encounter
from tacmap.engine.play.narrate import declaration, reactions, sentence
from tacmap.engine.play.referee import Entry
from tacmap.ui.plain import esc
from tacmap.ui.qt import QLabel, QScrollArea, QSize, Qt, QTimer, QVBoxLayout, QWidget

#: Entries looked back through for the last result after an undo.
LOOK_BACK = 200
#: Colours of the strip's lines: hurt, healed, a reaction.
HURT, HEALED, REACTED = "#a0211f", "#1f7a3a", "#6a2fa6"
#: The events whose lines the strip shows: the outcome, not the bookkeeping.
SHOWN = (DiceRolled, HpChanged, Said, ConditionChanged)


def is_result(state: Encounter, entry: Entry) -> bool:
    """Whether ``entry`` decided something the GM wants to see: dice rolled (the rules' or
    the GM's own free roll), HP changed, or an attack or action resolved on dice rolled
    before (reflex rolls a round's pools at once: a miss then rolls nothing new)."""
    if any(isinstance(ev, DiceRolled | GmRolled | HpChanged) for ev in entry.events):
        return True
    cmd = entry.command
    return isinstance(cmd, Attack | Act) and bool(cmd.target) and bool(entry.events) \
        and not declaration(state, cmd, entry.events)


def _line(state: Encounter, ev: Event) -> str:
    try:
        text = ev.text(state)
    except (KeyError, ValueError, IndexError, TypeError, AttributeError):
        return ""  # an event that no longer fits the map (a token removed since)
    if isinstance(ev, HpChanged):  # its sentence ends with the HP left ("18 → 6 HP")
        colour = HURT if ev.new < ev.old else HEALED
        return f'<span style="color:{colour}"><b>{esc(text)}</b></span>'
    return esc(text)


def result_lines(state: Encounter, entry: Entry, said: str | None = None
                 ) -> tuple[str, list[str]]:
    """The heading (plain text) and the rich-text lines of ``entry``'s outcome; ``said`` is
    the entry's sentence when the caller has made it already (the log has)."""
    heading = sentence(state, entry.command, entry.events) if said is None else said
    lines = [line for ev in entry.events if isinstance(ev, SHOWN)
             if (line := _line(state, ev))]
    for reaction in reactions(state, entry.command, entry.events):
        lines.append(f'<span style="color:{REACTED}"><b>Reaction:</b> '
                     f"{esc(reaction.text)}</span>")
    return heading, lines


#: Lines the last result shows at most as a rule, and for a long result.
USUAL_LINES, MOST_LINES = 9, 16


class ResultStrip(QScrollArea):
    """The last result: a heading and its lines; scrolls when a big spell has many."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("last-result")
        self._pending: str | None = None
        """Words to show at the next turn of the event loop."""
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.RichText)  # user text is escaped
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setStyleSheet("QLabel { background:#fbf8ef; padding:4px; }")
        inner = QWidget()
        layout = QVBoxLayout(inner)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        self.setWidget(inner)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Tall enough for an attack at a glance, never so tall that the log has no room.
        self.setMinimumHeight(self.fontMetrics().lineSpacing() * 3 + 12)
        self.setMaximumHeight(self.fontMetrics().lineSpacing() * USUAL_LINES + 12)
        #: Asked with the height the strip would like after a new result (the window's
        #: column grows its dock, taking room from the tabs below; issue 36 item 7).
        self.wants_room: Callable[[int], None] = lambda height: None
        self.clear()

    def sizeHint(self) -> QSize:
        """As tall as its lines at its width, within its minimum and maximum."""
        tall = self.label.heightForWidth(self._text_width()) + 2 * self.frameWidth()
        return QSize(super().sizeHint().width(),
                     max(self.minimumHeight(), min(self.maximumHeight(), tall)))

    def _text_width(self) -> int:
        """The label's width with the scroll bar shown: measured so, the height asked for
        is enough whether the bar shows or not (a bar that comes narrows the text and
        makes it taller)."""
        if not self.isVisible():
            return 300
        return self.width() - 2 * self.frameWidth() - self.verticalScrollBar().sizeHint().width()

    def clear(self) -> None:
        """Nothing decided yet."""
        self._pending = None
        self.label.setText("<i>Last result: nothing rolled yet.</i>")
        self.setToolTip("")
        self.updateGeometry()

    def show_entry(self, state: Encounter, entry: Entry, said: str | None = None) -> bool:
        """Show ``entry`` if it decided something; True when it did (and is shown).

        ``said``: the entry's sentence, when the caller has made it already."""
        if not is_result(state, entry):
            return False
        heading, lines = result_lines(state, entry, said)
        text = f"<b>Last result: {esc(heading)}</b><br>" + "<br>".join(lines)
        if text == self._words():
            return True  # the same words again: nothing to lay out or draw anew
        # Laid out and drawn once the command's own work is done (the log's line first),
        # and once for a burst of entries: only the last one is ever seen.
        if self._pending is None:
            QTimer.singleShot(0, self._show_pending)
        self._pending = text
        return True

    def _words(self) -> str:
        return self._pending if self._pending is not None else self.label.text()

    def _show_pending(self) -> None:
        text, self._pending = self._pending, None
        if text is None:
            return
        self.label.setText(text)
        # A squeezed dock scrolls the strip; hovering shows every line at once.
        self.setToolTip(f"<p style='white-space:pre'>{text}</p>")
        self.verticalScrollBar().setValue(0)
        # Room for a long result (an opposed critical, a Fireball's saves), up to
        # MOST_LINES; back to the usual once a short one comes, so the turn order keeps
        # the rest of the column.
        line = self.fontMetrics().lineSpacing()
        tall = self.label.heightForWidth(self._text_width()) + 2 * self.frameWidth()
        self.setMaximumHeight(max(line * USUAL_LINES + 12, min(tall, line * MOST_LINES + 12)))
        self.updateGeometry()
        if self.isVisible():
            self.wants_room(self.sizeHint().height())

    def show_last(self, state: Encounter, log: Sequence[Entry]) -> None:
        """Show the newest result in ``log`` (an encounter opened, an entry undone)."""
        for entry in reversed(log[-LOOK_BACK:]):
            if self.show_entry(state, entry):
                return
        self.clear()

    def text(self) -> str:
        """What the strip says, as plain text (one line per line shown)."""
        return html.unescape(re.sub(r"<[^>]+>", "", self._words().replace("<br>", "\n")))
