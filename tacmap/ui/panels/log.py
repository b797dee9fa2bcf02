"""The combat log: every event as a readable line, newest last; filter by token; copy."""

from __future__ import annotations

from tacmap.engine.commands import describe
from tacmap.engine.events import Event
from tacmap.engine.referee import Entry
from tacmap.engine.state import Encounter
from tacmap.ui.qt import (
    QComboBox,
    QFont,
    QGuiApplication,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
)

#: Event and command fields that name a token.
TOKEN_FIELDS = ("token", "who", "mover", "enemy", "actor", "target")


def tokens_named(record: object) -> set[str]:
    """Token ids a command or event is about."""
    out = set()
    for name in getattr(record, "__struct_fields__", ()):
        if name in TOKEN_FIELDS:
            value = getattr(record, name)
            if isinstance(value, str) and value:
                out.add(value)
    return out


class LogPanel(QWidget):
    """Lines for every entry of the referee's log."""

    def __init__(self) -> None:
        super().__init__()
        self.filter = QComboBox()
        self.filter.addItem("Everyone", "")
        self.filter.currentIndexChanged.connect(lambda _: self._apply_filter())
        copy = QPushButton("Copy")
        copy.setToolTip("Copy the shown lines as text")
        copy.clicked.connect(self.copy)
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(copy)
        self.lines = QListWidget()
        # One line an event, all the same height: scrolling a long log stays instant.
        self.lines.setUniformItemSizes(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(self.lines, 1)
        self._names: dict[str, str] = {}
        self._sizes: list[int] = []

    def show_log(self, state: Encounter, log: list[Entry]) -> None:
        """Rebuild from the whole log (when an encounter is opened)."""
        self.lines.clear()
        self._sizes = []
        self._sync_filter(state)
        for entry in log:
            self.append(state, entry, scroll=False, sync=False)
        self.lines.scrollToBottom()

    def append(self, state: Encounter, entry: Entry, scroll: bool = True,
               sync: bool = True) -> None:
        """Add one entry's lines: the command, then each event."""
        if sync:
            self._sync_filter(state)
        header = QFont(self.lines.font())
        header.setBold(True)
        about = tokens_named(entry.command)
        for ev in entry.events:
            about |= tokens_named(ev)
        item = QListWidgetItem(f"{len(self._sizes) + 1}. {describe(entry.command)}")
        item.setFont(header)
        item.setData(Qt.ItemDataRole.UserRole, about)
        self._add(item)
        for ev in entry.events:
            self._event_line(state, ev, tokens_named(ev) | tokens_named(entry.command))
        self._sizes.append(1 + len(entry.events))
        if scroll:
            self.lines.scrollToBottom()

    def pop(self) -> None:
        """Take the last entry's lines away (it was undone)."""
        if self._sizes:
            for _ in range(self._sizes.pop()):
                self.lines.takeItem(self.lines.count() - 1)

    def _add(self, item: QListWidgetItem) -> None:
        who = self.filter.currentData()
        self.lines.addItem(item)
        item.setHidden(bool(who) and who not in (item.data(Qt.ItemDataRole.UserRole) or set()))

    def _event_line(self, state: Encounter, ev: Event, about: set[str]) -> None:
        item = QListWidgetItem("    " + ev.text(state))
        item.setData(Qt.ItemDataRole.UserRole, about)
        self._add(item)

    def _sync_filter(self, state: Encounter) -> None:
        names = {t.id: t.name for t in state.tokens.values()}
        if names == self._names:
            return
        self._names = names
        keep = self.filter.currentData()
        self.filter.blockSignals(True)
        self.filter.clear()
        self.filter.addItem("Everyone", "")
        for tid, name in names.items():
            self.filter.addItem(name, tid)
        index = self.filter.findData(keep)
        self.filter.setCurrentIndex(max(0, index))
        self.filter.blockSignals(False)

    def _apply_filter(self) -> None:
        who = self.filter.currentData()
        for i in range(self.lines.count()):
            item = self.lines.item(i)
            about = item.data(Qt.ItemDataRole.UserRole) or set()
            item.setHidden(bool(who) and who not in about)

    def visible_text(self) -> str:
        """The shown lines, one per line."""
        return "\n".join(self.lines.item(i).text() for i in range(self.lines.count())
                         if not self.lines.item(i).isHidden())

    def copy(self) -> None:
        """Copy the shown lines to the clipboard."""
        QGuiApplication.clipboard().setText(self.visible_text())
