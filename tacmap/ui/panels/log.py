"""The combat log: one wrapped paragraph per command, newest last; filter by token; copy.

Each entry of the referee's log is one row: a bold heading that says what was
asked as a sentence (``tacmap.engine.narrate``), then one indented line per
event. Lines wrap to the dock's width.

A log can be tens of thousands of entries long, so this is a model and a view
that only ever look at the rows on screen:

* the text of an entry is made when it is first drawn, not when the log is
  opened (a new entry's text is made at once, with the names of that moment);
* the view holds the newest ``WINDOW`` entries (of those the filter keeps);
  scrolling to the top fetches ``WINDOW`` older ones, and a new entry trims
  the view back once it is scrolled to the bottom again. Every entry stays in
  the model: the filter, Copy and the text all see the whole log;
* Qt's views ask the model for its row count once per row on every layout,
  so the row count lives in C++ (a ``QStringListModel`` of empty strings) and
  only the text comes from Python.
"""

from __future__ import annotations

from tacmap.engine.events import Event
from tacmap.engine.narrate import sentence
from tacmap.engine.referee import Entry
from tacmap.engine.state import Encounter
from tacmap.ui.qt import (
    QAbstractItemView,
    QComboBox,
    QFont,
    QGuiApplication,
    QHBoxLayout,
    QModelIndex,
    QObject,
    QPainter,
    QPersistentModelIndex,
    QPushButton,
    QResizeEvent,
    QSize,
    QStaticText,
    QStringListModel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    Qt,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

#: Event and command fields that name a token.
TOKEN_FIELDS = ("token", "who", "mover", "enemy", "actor", "target")

#: Entries the view holds at once; scrolling to the top fetches this many more.
WINDOW = 1000

#: Pixels an event line is indented under its heading.
INDENT = 14


def tokens_named(record: object) -> set[str]:
    """Token ids a command or event is about."""
    out = set()
    for name in TOKEN_FIELDS:
        value = getattr(record, name, None)
        if isinstance(value, str) and value:
            out.add(value)
    return out


def _about(entry: Entry) -> tuple[set[str], list[set[str]]]:
    """Tokens the heading is about (command and every event) and each event line is about."""
    command = tokens_named(entry.command)
    lines = [tokens_named(ev) | command for ev in entry.events]
    heading = set(command)
    for about in lines:
        heading |= about
    return heading, lines


Index = QModelIndex | QPersistentModelIndex


class LogModel(QStringListModel):
    """Every entry of the log; a row for each entry in the view's window.

    Row ``r`` shows entry ``self.shown[self.first + r]``; ``shown`` is every
    entry index, or those about the filtered token.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state: Encounter | None = None
        self.entries: list[Entry] = []
        #: Entry indexes the filter keeps, oldest first.
        self.shown: list[int] = []
        #: Index into ``shown`` of the view's first row.
        self.first = 0
        #: Token id the log is filtered to ("": everyone).
        self.who = ""
        self._text: dict[int, list[str]] = {}

    # --- what an entry says -------------------------------------------------------------

    def text(self, i: int) -> list[str]:
        """Entry ``i``'s lines: the heading, then one line per event (made once)."""
        lines = self._text.get(i)
        if lines is None:
            lines = self._make(i)
            self._text[i] = lines
        return lines

    def _make(self, i: int) -> list[str]:
        entry, state = self.entries[i], self.state
        assert state is not None
        return [f"{i + 1}. {sentence(state, entry.command, entry.events)}",
                *(_event_text(state, ev) for ev in entry.events)]

    def lines(self, row: int) -> list[tuple[bool, str]]:
        """Row ``row``'s lines as (is heading, text), only those the filter keeps."""
        i = self.shown[self.first + row]
        text = self.text(i)
        if not self.who:
            return [(n == 0, line) for n, line in enumerate(text)]
        _, about = _about(self.entries[i])
        return [(True, text[0]), *((False, line) for line, a in zip(text[1:], about, strict=True)
                                   if self.who in a)]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role == Qt.ItemDataRole.DisplayRole and index.isValid():
            return "\n".join(text for _, text in self.lines(index.row()))
        return None

    # --- keeping in step with the referee -----------------------------------------------

    def reset(self, state: Encounter, log: list[Entry]) -> None:
        """Every entry of ``log`` (an encounter was opened); the view shows the newest."""
        self.state = state
        self.entries = list(log)
        self._text.clear()
        self._refilter()

    def set_filter(self, who: str) -> None:
        """Keep only the entries about token ``who`` ("" for everyone)."""
        self.who = who
        self._refilter()

    def _refilter(self) -> None:
        if self.who:
            self.shown = [i for i, e in enumerate(self.entries) if self.who in _about(e)[0]]
        else:
            self.shown = list(range(len(self.entries)))
        self.first = max(0, len(self.shown) - WINDOW)
        self.setStringList([""] * (len(self.shown) - self.first))

    def append(self, state: Encounter, entry: Entry) -> bool:
        """Add ``entry`` (just executed); True when the filter shows it."""
        self.state = state
        i = len(self.entries)
        self.entries.append(entry)
        self._text[i] = self._make(i)  # with the names it was made under
        if self.who and self.who not in _about(entry)[0]:
            return False
        self.shown.append(i)
        self.insertRows(self.rowCount(), 1)
        return True

    def pop(self) -> None:
        """Take the last entry away (it was undone)."""
        if not self.entries:
            return
        i = len(self.entries) - 1
        self.entries.pop()
        self._text.pop(i, None)
        if self.shown and self.shown[-1] == i:
            self.shown.pop()
            self.removeRows(self.rowCount() - 1, 1)
            if self.rowCount() == 0:
                self.fetch_older()

    def fetch_older(self) -> int:
        """Add up to ``WINDOW`` older entries at the top of the view; how many were added."""
        n = min(WINDOW, self.first)
        if n:
            self.first -= n
            self.insertRows(0, n)
        return n

    def trim(self) -> None:
        """Drop all but the newest ``WINDOW`` rows (the view is at the bottom again)."""
        extra = self.rowCount() - WINDOW
        if extra > 0:
            self.first += extra
            self.removeRows(0, extra)

    def all_text(self) -> str:
        """Every entry the filter keeps (not only the view's window), one line a line."""
        out = []
        for row in range(-self.first, len(self.shown) - self.first):
            out += [("" if heading else "    ") + text for heading, text in self.lines(row)]
        return "\n".join(out)


def _event_text(state: Encounter, ev: Event) -> str:
    try:
        return ev.text(state)
    except (KeyError, ValueError, IndexError, TypeError, AttributeError):
        return type(ev).__name__  # a log that does not fit the map still shows


class LogDelegate(QStyledItemDelegate):
    """Draws an entry: bold heading, indented event lines, each wrapped to the view."""

    def __init__(self, view: LogView) -> None:
        super().__init__(view)
        self.view = view
        self.model: LogModel | None = None
        self.bold = QFont(view.font())
        self.bold.setBold(True)
        #: entry index → (width, lines drawn, laid-out lines, height)
        self._cache: dict[int, tuple[int, list[tuple[bool, str]],
                                     list[tuple[int, float, QStaticText]], int]] = {}

    def width(self) -> int:
        """Pixels a line may take before it wraps."""
        return max(40, self.view.viewport().width() - 6)

    def layout(self, row: int) -> tuple[list[tuple[int, float, QStaticText]], int]:
        """Row ``row`` laid out: (indent, top, text) per line, and its height."""
        model = self.model
        assert model is not None
        i = model.shown[model.first + row]
        lines = model.lines(row)
        width = self.width()
        hit = self._cache.get(i)
        if hit is not None and hit[0] == width and hit[1] == lines:
            return hit[2], hit[3]
        out = []
        y = 2.0
        for heading, text in lines:
            indent = 0 if heading else INDENT
            static = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)
            static.setTextWidth(width - indent)
            static.prepare(font=self.bold if heading else self.view.font())
            out.append((indent, y, static))
            y += static.size().height()
        height = int(y) + 4
        if len(self._cache) > 4 * WINDOW:
            self._cache.clear()
        self._cache[i] = (width, lines, out, height)
        return out, height

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        return QSize(self.width(), self.layout(index.row())[1])

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        rect = option.rect
        state = option.state
        palette = option.palette
        selected = bool(state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(rect, palette.highlight())
        painter.setPen(palette.highlightedText().color() if selected else palette.text().color())
        lines, _ = self.layout(index.row())
        for n, (indent, y, static) in enumerate(lines):
            painter.setFont(self.bold if n == 0 else self.view.font())
            painter.drawStaticText(rect.x() + 3 + indent, rect.y() + int(y), static)


class LogView(QTreeView):
    """A list of wrapped entries that lays out only the rows on screen."""

    def __init__(self) -> None:
        super().__init__()
        self.setHeaderHidden(True)
        self.setRootIsDecorated(False)
        self.setItemsExpandable(False)
        # Rows differ in height (wrapped lines); scrolling by row keeps Qt from
        # measuring every row to size the scroll bar.
        self.setUniformRowHeights(False)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerItem)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(True)
        self.delegate = LogDelegate(self)
        self.setItemDelegate(self.delegate)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.scheduleDelayedItemsLayout()  # every row wraps anew

    def at_bottom(self) -> bool:
        """Scrolled to the newest entry."""
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum()


class LogPanel(QWidget):
    """Every entry of the referee's log, as sentences; filter by token; copy."""

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
        self.model = LogModel(self)
        self.lines = LogView()
        self.lines.setModel(self.model)
        self.lines.delegate.model = self.model
        self.lines.verticalScrollBar().valueChanged.connect(self._scrolled)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(self.lines, 1)
        self._names: dict[str, str] = {}
        #: True while the model changes under the view (its scrolling is not the GM's).
        self._busy = False

    def show_log(self, state: Encounter, log: list[Entry]) -> None:
        """Rebuild from the whole log (when an encounter is opened)."""
        self._sync_filter(state)
        self._busy = True
        self.model.reset(state, log)
        self.lines.scrollToBottom()
        self._busy = False

    def append(self, state: Encounter, entry: Entry, scroll: bool = True,
               sync: bool = True) -> None:
        """Add one entry: its heading and its events."""
        if sync:
            self._sync_filter(state)
        bottom = self.lines.at_bottom()
        self._busy = True
        if self.model.append(state, entry) and scroll:
            if bottom:
                self.model.trim()
            self.lines.scrollToBottom()
        self._busy = False

    def pop(self) -> None:
        """Take the last entry away (it was undone)."""
        self._busy = True
        self.model.pop()
        self._busy = False

    def _scrolled(self, value: int) -> None:
        if value == 0 and self.model.first > 0 and not self._busy:
            added = self.model.fetch_older()
            # Keep the entry that was at the top where it was.
            self.lines.scrollTo(self.model.index(added, 0),
                                QAbstractItemView.ScrollHint.PositionAtTop)

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
        if index < 0 and keep:
            self._apply_filter()

    def _apply_filter(self) -> None:
        self._busy = True
        self.model.set_filter(str(self.filter.currentData() or ""))
        self.lines.scrollToBottom()
        self._busy = False

    def visible_text(self) -> str:
        """The shown lines (every entry the filter keeps), one per line."""
        return self.model.all_text()

    def copy(self) -> None:
        """Copy the shown lines to the clipboard."""
        QGuiApplication.clipboard().setText(self.visible_text())
