"""The window asks before a user's ruleset folder runs its code, once per folder and content.

A ruleset folder named by ``--rulesets-dir`` or ``TACMAP_RULESETS`` is Python
that runs with the GM's permissions. The command line prints a warning on
stderr; a window started from a menu has no terminal, so it asks, and the
answer is kept in the settings (``trusted_rulesets``, tacmap.ui.settings) under the
folder's path and the hash of its files: a changed folder is asked about again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tacmap.engine.rules.ruleset import TRUST_WARNING, Manifest, content_hash
from tacmap.ui import settings

if TYPE_CHECKING:
    from tacmap.ui.qt import QDialog, QWidget

KEY = "trusted_rulesets"


def window_trust(ask: Callable[[str], bool]) -> Callable[[Manifest], bool]:
    """A ``Registry.trust`` that asks ``ask`` once per folder and content hash, and remembers."""
    asked: dict[str, bool] = {}

    def trust(manifest: Manifest) -> bool:
        folder = manifest.folder.resolve()
        key = f"{folder}\n{content_hash(folder)}"
        if key in asked:
            return asked[key]
        answers = settings.get(KEY, settings.flag_map)
        if key not in answers:
            answers[key] = bool(ask(
                f"The ruleset {manifest.name!r} ({manifest.id}) in {folder} is not part of "
                f"tacmap: {TRUST_WARNING}. Run it?"))
            settings.put(KEY, answers)  # when it cannot be kept, it holds for this run
        asked[key] = answers[key]
        return answers[key]

    return trust


def answers() -> list[tuple[Path, bool]]:
    """Each folder the GM was asked about, with the last answer kept for it."""
    found: dict[Path, bool] = {}
    for key, yes in settings.get(KEY, settings.flag_map).items():
        found[Path(key.split("\n", 1)[0])] = yes
    return sorted(found.items())


def forget(folder: Path) -> None:
    """Forget every answer about ``folder``: the window asks again the next time it loads."""
    kept = {key: yes for key, yes in settings.get(KEY, settings.flag_map).items()
            if Path(key.split("\n", 1)[0]) != folder}
    settings.put(KEY, kept)


def trust_dialog(parent: QWidget | None) -> QDialog:
    """Help ▸ Rulesets You Added: the folders trusted or refused, and Forget (built, not shown)."""
    # Qt is imported here: `tacmap ruleset check` asks with window_trust on a terminal,
    # on machines that may lack Qt's system libraries.
    from tacmap.ui.plain import label
    from tacmap.ui.qt import (
        QDialog,
        QDialogButtonBox,
        QListWidget,
        QListWidgetItem,
        QPushButton,
        Qt,
        QVBoxLayout,
    )

    dialog = QDialog(parent)
    dialog.setObjectName("trust-dialog")
    dialog.setWindowTitle("Rulesets you added")
    layout = QVBoxLayout(dialog)
    words = label("The ruleset folders tacmap asked you about, and your answer. Forget one, "
                  "and the window asks again the next time it loads that folder.")
    words.setWordWrap(True)
    layout.addWidget(words)
    rows = QListWidget()
    layout.addWidget(rows)

    def fill() -> None:
        rows.clear()
        for folder, yes in answers():
            item = QListWidgetItem(f"{'✓ run' if yes else '✗ refused'} — {folder}")
            item.setData(Qt.ItemDataRole.UserRole, str(folder))
            rows.addItem(item)
        if not rows.count():
            rows.addItem("No ruleset folder has been asked about.")

    def forget_selected() -> None:
        item = rows.currentItem()
        where = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if where:
            forget(Path(where))
            fill()

    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    forget_button = QPushButton("Forget")
    forget_button.setObjectName("forget")
    forget_button.clicked.connect(forget_selected)
    buttons.addButton(forget_button, QDialogButtonBox.ButtonRole.ActionRole)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    fill()
    dialog.resize(640, 320)
    return dialog
