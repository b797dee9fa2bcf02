"""The questions the window puts to the GM, and the dialogs that ask them.

Each question is a plain callable on the window (``window.ask_dice`` …), so a
test answers it by assigning a function; ``Dialogs`` holds the real ones.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tacmap.ui.dice_sheet import DicePlan, ask_on_sheet
from tacmap.ui.plain import message_box
from tacmap.ui.qt import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QInputDialog,
    QMessageBox,
    QWidget,
)

#: ``ask(question) -> bool``: a Yes/No question.
Ask = Callable[[str], bool]
#: ``ask_save(question)``: True save, False discard, None cancel.
AskSave = Callable[[str], "bool | None"]
#: ``tell(problem)``: a problem the GM must see.
Tell = Callable[[str], None]
#: ``ask_metres(shown) -> real metres``: the two-point image scale asks this.
AskMetres = Callable[[float], "float | None"]
#: ``ask_dice(plan) -> faces``: every die of one action typed in by the GM, in the order
#: rolled (None: cancelled). ``plan.answer(fn)`` answers roll by roll, for tests.
AskDice = Callable[[DicePlan], "list[int] | None"]
#: ``ask_tags(name) -> tags``: comma-separated tags for a roster entry (None: cancelled).
AskTags = Callable[[str], "str | None"]
#: ``ask_file(title, save) -> path``: a roster file to import from or export to.
AskFile = Callable[[str, bool], "Path | None"]
#: ``ask_words(question, suggested) -> words``: free text for an action (None: cancelled).
AskWords = Callable[[str, str], "str | None"]
#: ``ask_image() -> path``: a portrait picture.
AskImage = Callable[[], "Path | None"]


def ask_dialog(question: str) -> bool:
    """A Yes/No question in a dialog of its own (before any window exists)."""
    return bool(_yes_no(None, question))


def _yes_no(parent: QWidget | None, question: str) -> bool:
    box = message_box(QMessageBox.Icon.Question, "tacmap", question,
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, parent)
    return box.exec() == QMessageBox.StandardButton.Yes


def save_first_dialog(question: str) -> bool | None:
    """Save / Discard / Cancel: True to save, False to discard, None to stay."""
    box = message_box(QMessageBox.Icon.Question, "tacmap", question,
                      QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                      | QMessageBox.StandardButton.Cancel)
    answer = box.exec()
    if answer == QMessageBox.StandardButton.Save:
        return True
    if answer == QMessageBox.StandardButton.Discard:
        return False
    return None


def ok_cancel(dialog: QDialog) -> QDialogButtonBox:
    """OK and Cancel buttons wired to ``dialog``."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                               | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


class Dialogs:
    """The real dialogs behind each question, centred on ``parent``."""

    def __init__(self, parent: QWidget, folder: Callable[[], str] = lambda: "") -> None:
        self.parent = parent
        #: Where file dialogs start (the encounter's folder).
        self.folder = folder

    def ask(self, question: str) -> bool:
        """Yes/No."""
        return _yes_no(self.parent, question)

    def tell(self, text: str) -> None:
        """A warning with OK."""
        message_box(QMessageBox.Icon.Warning, "tacmap", text,
                    QMessageBox.StandardButton.Ok, self.parent).exec()

    def dice(self, plan: DicePlan) -> list[int] | None:
        """Every face of one action's physical dice, on one sheet; None when cancelled."""
        return ask_on_sheet(plan, self.parent)

    def metres(self, shown: float) -> float | None:
        """How far apart two points of the map image really are."""
        value, ok = QInputDialog.getDouble(
            self.parent, "Scale the map image",
            f"The two points are {shown:.2f} m apart on the grid now. How far apart are "
            "they really, in metres?", shown, 0.01, 100_000, 2)
        return value if ok else None

    def words(self, question: str, suggested: str) -> str | None:
        """The GM's words for an action that asks for them."""
        text, ok = QInputDialog.getText(self.parent, "tacmap", question, text=suggested)
        return text if ok else None

    def tags(self, name: str) -> str | None:
        """Tags for a combatant going into the roster."""
        text, ok = QInputDialog.getText(self.parent, "Save to roster",
                                        f"Tags for {name} (comma separated, optional):")
        return text if ok else None

    def roster_file(self, title: str, save: bool) -> Path | None:
        """A roster JSON file to write (``save``) or read."""
        pick = QFileDialog.getSaveFileName if save else QFileDialog.getOpenFileName
        name, _ = pick(self.parent, title, self.folder(),
                       "Roster files (*.json);;All files (*)")
        return Path(name) if name else None

    def portrait(self) -> Path | None:
        """A picture for a combatant's token."""
        name, _ = QFileDialog.getOpenFileName(self.parent, "Portrait", self.folder(),
                                              "Images (*.png *.jpg *.jpeg *.webp)")
        return Path(name) if name else None
