"""The roster panel: combatants kept across encounters; search, save, import, export, drag."""

from __future__ import annotations

from collections.abc import Callable

from tacmap.engine.files.roster import Roster, RosterEntry
from tacmap.ui.map.view import ROSTER_MIME
from tacmap.ui.qt import (
    QAbstractItemView,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMimeData,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
)


class RosterList(QListWidget):
    """Entries that drag onto the map as a roster mime payload (their id)."""

    def __init__(self) -> None:
        super().__init__()
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)

    def mimeData(self, items: list[QListWidgetItem]) -> QMimeData:  # type: ignore[override]
        data = QMimeData()
        if items:
            data.setData(ROSTER_MIME, str(items[0].data(Qt.ItemDataRole.UserRole)).encode())
        return data

    def mimeTypes(self) -> list[str]:
        return [ROSTER_MIME]


class RosterPanel(QWidget):
    """Search box, the entries of the encounter's ruleset, and the roster's buttons."""

    def __init__(self, roster: Callable[[], Roster | None], ruleset: Callable[[], str],
                 skipped: Callable[[list[str]], None] = lambda messages: None) -> None:
        super().__init__()
        self.roster = roster
        self.ruleset = ruleset
        #: Told, once each, of the damaged rows a listing left out.
        self.skipped = skipped
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search by name or tag")
        self.search.textChanged.connect(lambda _: self.refresh())
        self.entries = RosterList()
        self.save_button = QPushButton("Save selected")
        self.import_button = QPushButton("Import…")
        self.export_button = QPushButton("Export…")
        self.remove_button = QPushButton("Remove")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.search)
        layout.addWidget(self.entries, 1)
        row = QHBoxLayout()
        for b in (self.save_button, self.import_button, self.export_button, self.remove_button):
            row.addWidget(b)
        layout.addLayout(row)

    def refresh(self) -> list[RosterEntry]:
        """Show the entries matching the search, for the current ruleset."""
        self.entries.clear()
        roster = self.roster()
        found = roster.search(self.ruleset(), self.search.text()) if roster else []
        damaged = roster.skipped() if roster else []
        if damaged:
            self.skipped(damaged)
        for entry in found:
            tags = f"  [{', '.join(entry.tags)}]" if entry.tags else ""
            item = QListWidgetItem(f"{entry.name}  ({entry.token.side}){tags}")
            item.setData(Qt.ItemDataRole.UserRole, entry.id)
            item.setToolTip("Drag onto the map to add a copy")
            self.entries.addItem(item)
        return found

    def selected_entry(self) -> int | None:
        """Id of the highlighted entry."""
        item = self.entries.currentItem()
        return int(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None
