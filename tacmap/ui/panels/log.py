"""The combat log: every command as a sentence and its events, newest last; filter; copy.

Each entry of the referee's log is a bold heading that says what was asked as
a sentence (``tacmap.engine.play.narrate``), then one indented line per event.
Lines wrap to the dock's width.

A log can be tens of thousands of entries long, so this is a model and a view
that only ever look at the rows on screen:

* the text of an entry is made when it is first drawn, not when the log is
  opened (a new entry's text is made at once, with the names of that moment);
* the view holds the lines of the newest ``WINDOW`` entries (of those the
  filter keeps); scrolling to the top fetches ``WINDOW`` older ones, and a new
  entry trims the view back once it is scrolled to the bottom again. Every entry stays in
  the model: the filter, Copy and the text all see the whole log;
* Qt's views ask the model for its row count once per row on every layout,
  so the row count lives in C++ (a ``QStringListModel`` of empty strings) and
  only the text comes from Python.
"""

from __future__ import annotations

from tacmap.engine.model.events import Event
from tacmap.engine.model.state import Encounter
from tacmap.engine.play.narrate import line, sentence
from tacmap.engine.play.referee import Entry
from tacmap.ui import qt
from tacmap.ui.panels.result import ResultStrip
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
WINDOW = 300

#: Pixels an event line is indented under its heading.
INDENT = 14
#: Pixels of air above a heading.
GAP = 4


def tokens_named(record: object) -> set[str]:
    """Token ids a command or event is about."""
    out = set()
    for name in getattr(record, "__struct_fields__", ()):
        if name in TOKEN_FIELDS:
            value = getattr(record, name)
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
    """Every entry of the log; a row for each line of the entries in the view's window.

    ``shown`` lists the entries the filter keeps (all of them, or those about
    one token), oldest first; the view holds ``shown[first:]``, one row per
    line: ``rows[r]`` is (entry index, line index), line 0 being the heading.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state: Encounter | None = None
        self.entries: list[Entry] = []
        #: Entry indexes the filter keeps, oldest first.
        self.shown: list[int] = []
        #: Index into ``shown`` of the view's first entry.
        self.first = 0
        #: (entry index, line index) of each row in the view.
        self.rows: list[tuple[int, int]] = []
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

    def _make(self, i: int, said: str | None = None) -> list[str]:
        entry, state = self.entries[i], self.state
        assert state is not None
        if said is None:
            said = sentence(state, entry.command, entry.events)
        return [f"{i + 1}. {said}", *(_event_text(state, ev) for ev in entry.events)]

    def line(self, row: int) -> tuple[bool, str]:
        """Row ``row`` as (is a heading, text)."""
        i, k = self.rows[row]
        return k == 0, self.text(i)[k]

    def _lines_of(self, i: int) -> list[tuple[int, int]]:
        """The rows of entry ``i`` the filter keeps: its heading and its events' lines."""
        if not self.who:
            return [(i, k) for k in range(1 + len(self.entries[i].events))]
        _, about = _about(self.entries[i])
        return [(i, 0), *((i, k + 1) for k, a in enumerate(about) if self.who in a)]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role == Qt.ItemDataRole.DisplayRole and index.isValid():
            return self.line(index.row())[1]
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
        self.rows = [r for i in self.shown[self.first:] for r in self._lines_of(i)]
        self.setStringList([""] * len(self.rows))

    def append(self, state: Encounter, entry: Entry, said: str | None = None) -> bool:
        """Add ``entry`` (just executed); True when the filter shows it. ``said``: its
        sentence, when the caller has made it already."""
        self.state = state
        i = len(self.entries)
        self.entries.append(entry)
        self._text[i] = self._make(i, said)  # with the names it was made under
        if self.who and self.who not in _about(entry)[0]:
            return False
        self.shown.append(i)
        new = self._lines_of(i)
        at = len(self.rows)
        self.rows += new
        self.insertRows(at, len(new))
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
            n = 0
            while self.rows and self.rows[-1][0] == i:
                self.rows.pop()
                n += 1
            self.removeRows(len(self.rows), n)
            if not self.rows:
                self.fetch_older()

    def fetch_older(self) -> int:
        """Add up to ``WINDOW`` older entries at the top of the view; how many rows were added."""
        n = min(WINDOW, self.first)
        if not n:
            return 0
        self.first -= n
        new = [r for i in self.shown[self.first:self.first + n] for r in self._lines_of(i)]
        self.rows[:0] = new
        self.insertRows(0, len(new))
        return len(new)

    def trim(self) -> None:
        """Drop all but the newest ``WINDOW`` entries from the view (it is at the bottom).

        Only once the view holds a quarter more than that: not at every entry.
        """
        extra = len(self.shown) - self.first - WINDOW
        if extra <= WINDOW // 4:
            return
        self.first += extra
        keep = self.shown[self.first]
        n = next(r for r, (i, _) in enumerate(self.rows) if i == keep)
        del self.rows[:n]
        self.removeRows(0, n)

    def all_text(self) -> str:
        """Every entry the filter keeps (not only the view's window), one line a line."""
        out = []
        for i in self.shown:
            text = self.text(i)
            out += [("    " if k else "") + text[k] for _, k in self._lines_of(i)]
        return "\n".join(out)


def _event_text(state: Encounter, ev: Event) -> str:
    try:
        return line(state, ev)  # a sentence, never a raw "key: old → new"
    except (KeyError, ValueError, IndexError, TypeError, AttributeError):
        return type(ev).__name__  # a log that does not fit the map still shows


class LogDelegate(QStyledItemDelegate):
    """Draws a line: a bold heading, or an event indented under it; wrapped to the view."""

    def __init__(self, view: LogView) -> None:
        super().__init__(view)
        self.view = view
        self.model: LogModel | None = None
        self.bold = QFont(view.font())
        self.bold.setBold(True)
        self._width = 0
        #: Pixels a line may take before it wraps (follows the view's width).
        self.wrap_at = 40
        #: (entry, line) → (the entry's lines, this one laid out at ``_width``, its indent,
        #: the row's height).
        self._cache: dict[tuple[int, int], tuple[list[str], QStaticText, int, int]] = {}

    def layout(self, row: int) -> tuple[QStaticText, int, int]:
        """Row ``row`` laid out: its text, how far it is indented, the row's height."""
        model = self.model
        assert model is not None
        key = model.rows[row]
        lines = model.text(key[0])
        if self.wrap_at != self._width or len(self._cache) > 20 * WINDOW:
            self._width = self.wrap_at
            self._cache.clear()
        hit = self._cache.get(key)
        if hit is not None and hit[0] is lines:  # (an undone entry's number is reused)
            return hit[1], hit[2], hit[3]
        heading = key[1] == 0
        indent = 0 if heading else INDENT
        static = QStaticText(lines[key[1]])
        static.setTextFormat(Qt.TextFormat.PlainText)
        static.setTextWidth(self._width - indent)
        static.prepare(font=self.bold if heading else self.view.font())
        # A little air above each heading.
        height = int(static.size().height()) + 2 + (0 if indent else GAP)
        self._cache[key] = (lines, static, indent, height)
        return static, indent, height

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        return QSize(self.wrap_at, self.layout(index.row())[2])

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        rect = option.rect
        palette = option.palette
        # (qt.QStyle, not imported by name: Qt makes it when a log line is first drawn,
        # not at start.)
        selected = bool(option.state & qt.QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(rect, palette.highlight())
        painter.setPen(palette.highlightedText().color() if selected else palette.text().color())
        static, indent, _ = self.layout(index.row())
        painter.setFont(self.view.font() if indent else self.bold)
        painter.drawStaticText(rect.x() + 3 + indent, rect.y() + 1 + (0 if indent else GAP),
                               static)


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

    def sizeHint(self) -> QSize:
        """As tall as its minimum: the last result above is served first, the log (which
        stretches) takes the rest of the dock."""
        return QSize(super().sizeHint().width(), self.minimumHeight())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        wrap_at = max(40, self.viewport().width() - 6)
        if wrap_at != self.delegate.wrap_at:
            self.delegate.wrap_at = wrap_at
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
        #: The last result, above the log, until the next one.
        self.result = ResultStrip()
        # A dock squeezed by the timeline still shows six lines of the log.
        self.lines.setMinimumHeight(self.fontMetrics().lineSpacing() * 6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.result)
        layout.addLayout(top)
        layout.addWidget(self.lines, 1)
        self._names: dict[str, str] = {}
        #: True while the model changes under the view (its scrolling is not the GM's).
        self._busy = False

    def show_log(self, state: Encounter, log: list[Entry]) -> None:
        """Rebuild from the whole log (when an encounter is opened)."""
        self._sync_filter(state)
        self.result.show_last(state, log)
        self._busy = True
        self.model.reset(state, log)
        self.lines.scrollToBottom()
        self._busy = False

    def append(self, state: Encounter, entry: Entry, scroll: bool = True,
               sync: bool = True) -> None:
        """Add one entry: its heading and its events."""
        if sync:
            self._sync_filter(state)
        # Said once, for the log's heading and the Last result's.
        said = sentence(state, entry.command, entry.events)
        self.result.show_entry(state, entry, said)
        bottom = self.lines.at_bottom()
        self._busy = True
        if self.model.append(state, entry, said) and scroll:
            if bottom:
                self.model.trim()
            self.lines.scrollToBottom()
        self._busy = False

    def pop(self) -> None:
        """Take the last entry away (it was undone)."""
        self._busy = True
        self.model.pop()
        self._busy = False
        if self.model.state is not None:
            self.result.show_last(self.model.state, self.model.entries)

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
