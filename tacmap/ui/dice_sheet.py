"""Physical dice: every die of one action asked in one dialog, checked as it is typed.

Which dice an action needs can depend on the faces (a hit rolls damage, a
miss does not), so the sheet finds out by trying the command on a copy of the
encounter with the faces typed so far: the first roll they do not cover is
the next one to ask for, and its fields appear in the same dialog. A face a
die cannot show (a 9 on a d8) marks its field, says why and keeps OK greyed;
the action is never dropped for a typo. Only Cancel gives the action up.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tacmap.engine.model.commands import Command
from tacmap.engine.model.errors import RuleError
from tacmap.engine.play.referee import Referee, resolve_override
from tacmap.engine.rules.dice import DiceSource, Roll
from tacmap.engine.rules.ruleset import Resolution
from tacmap.ui import plain
from tacmap.ui.qt import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

#: Style of a field holding a face its die cannot show.
WRONG = "QLineEdit { background:#ffd9d6; border:1px solid #c8312f; }"
#: Width of the sheet; its text wraps to it.
SHEET_WIDTH = 560
#: Dice fields on one row; more go on the next.
PER_ROW = 6


@dataclass(frozen=True)
class Need:
    """One roll the rules ask for: ``count`` dice of ``sides`` faces, and what for."""

    count: int
    sides: int
    why: str


class _More(Exception):
    """The faces typed so far are used up and the rules want another roll."""


class _Probe:
    """A dice source that hands out the typed faces and notes every roll asked of it."""

    def __init__(self, faces: Sequence[int]) -> None:
        self.faces = list(faces)
        self.used = 0
        self.needs: list[Need] = []

    def roll(self, count: int, sides: int, why: str = "") -> Roll:
        """The next typed faces, or _More when they run out."""
        if count <= 0:
            return Roll(sides, ())
        self.needs.append(Need(count, sides, why))
        if self.used + count > len(self.faces):
            raise _More
        faces = tuple(self.faces[self.used:self.used + count])
        self.used += count
        return Roll(sides, faces)


Trial = Callable[[DiceSource], None]
"""Runs the command on a copy of the encounter with the given dice."""


def trial_of(referee: Referee, command: Command) -> Trial:
    """Try ``command`` on a copy of ``referee``'s encounter (nothing real changes)."""
    def trial(dice: DiceSource) -> None:
        ctx = Resolution(copy.deepcopy(referee.state), dice)
        if command.override:
            resolve_override(ctx, command, referee.ruleset)
        else:
            referee.ruleset.resolve(ctx, command)
    return trial


class DicePlan:
    """The dice one action needs, found roll by roll from the faces typed so far."""

    def __init__(self, what: str, trial: Trial) -> None:
        self.what = what
        """The action, as a sentence (the sheet's heading)."""
        self.trial = trial

    def needs(self, faces: Sequence[int]) -> tuple[list[Need], bool]:
        """The rolls ``faces`` answer, then the next roll wanted; True when none is.

        RuleError when the rules refuse the action with these faces.
        """
        probe = _Probe(faces)
        try:
            self.trial(probe)
        except _More:
            return probe.needs, False
        return probe.needs, True

    def answer(self, faces_for: Callable[[int, int, str], Sequence[int]]) -> list[int]:
        """Every face, asking ``faces_for(count, sides, why)`` roll by roll (scripts, tests)."""
        faces: list[int] = []
        while True:
            needs, done = self.needs(faces)
            if done:
                return faces
            need = needs[-1]
            faces += list(faces_for(need.count, need.sides, need.why))


def face_problem(text: str, sides: int) -> str:
    """Why ``text`` is not a face of a d``sides`` ("" when it is, or when still empty)."""
    text = text.strip()
    if not text:
        return ""
    if not text.isdigit():
        return f"{text!r} is not a number: type the face the d{sides} shows"
    if not 1 <= int(text) <= sides:
        return f"a d{sides} shows 1 to {sides}, not {int(text)}: look at the die again"
    return ""


class _Group(QWidget):
    """The fields of one roll: a line saying what for, one field per die."""

    def __init__(self, need: Need, typed: Sequence[str], changed: Callable[[], None],
                 width: int) -> None:
        super().__init__()
        self.need = need
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        title = plain.label(f"Roll {need.count}d{need.sides} for {need.why or 'a roll'}:")
        title.setWordWrap(True)
        title.setFixedWidth(width)  # the sheet's own width: Qt then gets the wrapped height
        # Never squeezed under its wrapped height when more rolls come (the sheet grows, or
        # scrolls on a short screen, rather than clipping the first roll's words).
        title.setMinimumHeight(title.heightForWidth(width))
        layout.addWidget(title)
        self.fields: list[QLineEdit] = []
        row = QHBoxLayout()
        for i in range(need.count):
            if i and i % PER_ROW == 0:
                row.addStretch(1)
                layout.addLayout(row)
                row = QHBoxLayout()
            row.addWidget(QLabel(f"d{need.sides}"))
            field = QLineEdit(typed[i] if i < len(typed) else "")
            field.setPlaceholderText(f"1–{need.sides}")
            field.setMaxLength(4)
            field.setFixedWidth(56)
            field.setToolTip(f"the face this d{need.sides} shows")
            field.textChanged.connect(lambda _text: changed())
            row.addWidget(field)
            self.fields.append(field)
        row.addStretch(1)
        layout.addLayout(row)

    def texts(self) -> list[str]:
        """What each field holds."""
        return [f.text() for f in self.fields]


class DiceSheet(QDialog):
    """All the dice of one action; OK once every face is in and each fits its die."""

    def __init__(self, plan: DicePlan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Physical dice")
        self.plan = plan
        layout = QVBoxLayout(self)
        margins = layout.contentsMargins()
        #: The width text wraps to: the sheet's, inside its margins.
        self.text_width = SHEET_WIDTH - margins.left() - margins.right()
        self.setFixedWidth(SHEET_WIDTH)
        head = plain.label(f"{plan.what}: roll real dice and type each face as it fell.")
        head.setWordWrap(True)
        head.setFixedWidth(self.text_width)
        layout.addWidget(head)
        self.group_box = QVBoxLayout()
        layout.addLayout(self.group_box)
        #: The sentence that says what is wrong, or what comes next.
        self.message = plain.label()
        self.message.setWordWrap(True)
        self.message.setFixedWidth(self.text_width)
        layout.addWidget(self.message)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout.addWidget(self.buttons)
        self.groups: list[_Group] = []
        #: Faces typed into a roll that went away (an earlier face changed), by place.
        self._kept: dict[tuple[int, Need], list[str]] = {}
        #: The faces of every roll, in order, once OK may be pressed.
        self.faces: list[int] = []
        self.update_fields()
        if self.groups and self.groups[0].fields:
            self.groups[0].fields[0].setFocus()

    @property
    def fields(self) -> list[QLineEdit]:
        """Every die's field, in the order the dice are rolled."""
        return [f for g in self.groups for f in g.fields]

    def update_fields(self) -> None:
        """Check every field, find the rolls the faces lead to, grow or shrink the sheet."""
        faces: list[int] = []
        problem, complete = "", True
        for group in self.groups:
            texts = group.texts()
            for field, text in zip(group.fields, texts, strict=True):
                wrong = face_problem(text, group.need.sides)
                field.setStyleSheet(WRONG if wrong else "")
                problem = problem or wrong
            if problem or not all(t.strip() for t in texts):
                complete = False
                break
            faces += [int(t) for t in texts]
        try:
            needs, done = self.plan.needs(faces)
        except RuleError as err:
            needs, done, problem = [], False, problem or f"the rules refuse this: {err}"
        # While a face is wrong the sheet holds still: the GM fixes it where it is.
        if not problem and self._reconcile(needs):
            self.update_fields()  # faces typed before came back: check them with the rest
            return
        ready = done and complete and not problem and len(faces) == len(self.fields)
        self.faces = faces if ready else []
        self.ok_button.setEnabled(ready)
        if problem:
            self.message.setStyleSheet("color:#a0211f")
            self.message.setText(problem[0].upper() + problem[1:] + ".")
        else:
            self.message.setStyleSheet("")
            self.message.setText("Every die is in: OK sends the action." if ready else
                                 "More dice appear here when the rules need them.")
        self.adjustSize()

    def _reconcile(self, needs: list[Need]) -> bool:
        """Keep the groups that still match ``needs``; make or remove the rest.

        True when a group came back with faces typed before (they need checking).
        """
        keep = 0
        while keep < min(len(needs), len(self.groups)) and self.groups[keep].need == needs[keep]:
            keep += 1
        for i in range(len(self.groups) - 1, keep - 1, -1):
            group = self.groups.pop()
            self._kept[(i, group.need)] = group.texts()
            self.group_box.removeWidget(group)
            group.deleteLater()
        for i in range(keep, len(needs)):
            typed = self._kept.pop((i, needs[i]), [])
            group = _Group(needs[i], typed, self.update_fields, self.text_width)
            self.group_box.addWidget(group)
            self.groups.append(group)
            if typed:
                return True
        return False


def ask_on_sheet(plan: DicePlan, parent: QWidget | None) -> list[int] | None:
    """Open the sheet; the faces in order, or None when the GM cancels."""
    sheet = DiceSheet(plan, parent)
    if sheet.exec() != QDialog.DialogCode.Accepted:
        return None
    return sheet.faces
