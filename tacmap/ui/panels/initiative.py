"""The initiative panel: the ruleset's turn order, combat buttons, the active token's actions."""

from __future__ import annotations

from collections.abc import Callable, Collection

from tacmap.engine.model.commands import Command, EndTurn, Reorder, StartCombat
from tacmap.engine.model.state import Encounter
from tacmap.engine.rules.options import command_for, stable_order
from tacmap.engine.rules.views import ActionOption, OrderRow, TurnOrder
from tacmap.ui.map.look import side_colours
from tacmap.ui.plain import tip
from tacmap.ui.qt import (
    QAbstractItemView,
    QApplication,
    QColor,
    QDockWidget,
    QEvent,
    QFont,
    QFontMetricsF,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QPixmap,
    QPoint,
    QPushButton,
    QResizeEvent,
    QScrollArea,
    QSize,
    QSizePolicy,
    QStatusTipEvent,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
)

#: The one key that ends the turn in the main window (Ctrl+E too). A single key
#: never fires while a text field has the focus: the field takes it as text.
END_TURN_KEY = "E"
#: The player view's type sizes, in points: read across a table from a 1080p screen.
PLAYER_TITLE_PT, PLAYER_ROW_PT = 20.0, 16.0

STATE_MARK = {"waiting": "", "declared": "✎ declared", "acting": "▶ acting", "done": "✓ done",
              "out": "✗ out"}


#: Item data of a turn-order row: its first line and its detail.
HEAD, DETAIL = Qt.ItemDataRole.UserRole + 1, Qt.ItemDataRole.UserRole + 2


class OrderList(QListWidget):
    """Rows of the turn order; the GM may drag them into a new order."""

    def __init__(self, on_reorder: Callable[[tuple[str, ...]], object]) -> None:
        super().__init__()
        self.on_reorder = on_reorder
        #: The list's width when its rows' details were last cut to it.
        self._fitted_width = -1
        self.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)

    def wrap_rows(self) -> None:
        """A long row (a speed, a weapon, a phase) wraps onto another line rather than
        hiding its end behind a sideways scroll bar (the GM's narrow dock)."""
        self.setWordWrap(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.width() != self._fitted_width:
            self._fitted_width = self.width()
            self.fit_details()

    def fit_details(self) -> None:
        """Each row's detail on one line, ended with "…" where it is longer (the whole of
        it in the row's tooltip): twelve rows then show at once at 1920×1080 (issue 36)."""
        changed = False
        for i in range(self.count()):
            item = self.item(i)
            detail = item.data(DETAIL)
            if not detail:
                continue
            text = self.row_text(item.data(HEAD), detail)
            if item.text() != text:
                item.setText(text)
                changed = True
        if changed:  # the rows' heights change with their text: lay them out anew now
            self.doItemsLayout()

    def row_text(self, head: str, detail: str) -> str:
        """A row's two lines: its detail cut to the list's width (whole in the tooltip)."""
        # The list's own width less a scroll bar's, whether or not one shows: a bar coming
        # or going then changes no row (and lays nothing out again).
        bar = self.verticalScrollBar().sizeHint().width()
        room: float = self.width() - 2 * self.frameWidth() - bar - self.iconSize().width() - 40
        if room <= 0:
            return f"{head}\n    {detail}"
        # Measured in bold, as the acting row is drawn: cut to fit there, it fits anywhere.
        bold = QFont(self.font())
        bold.setBold(True)
        metrics = QFontMetricsF(bold)
        room -= metrics.horizontalAdvance("    ")  # the detail's indent
        cut = metrics.elidedText(detail, Qt.TextElideMode.ElideRight, room)
        return f"{head}\n    {cut}"

    def needed(self) -> int:
        """Pixels the first rows (up to ``WANTED_ROWS``) take as laid out now, wrapped."""
        rows = min(self.count(), WANTED_ROWS)
        return sum(self.visualItemRect(self.item(i)).height() for i in range(rows)) + 2

    def sizeHint(self) -> QSize:
        # Ask the window for room for every row (up to a screenful): the dock
        # then grows with the order instead of keeping five rows and a scroll bar.
        hint = super().sizeHint()
        rows = min(self.count(), WANTED_ROWS)
        if rows:
            tall = sum(self.sizeHintForRow(i) for i in range(rows)) + 2 * self.frameWidth()
            hint.setHeight(max(hint.height(), tall))
        return hint

    def ids(self) -> tuple[str, ...]:
        """Row ids top to bottom."""
        return tuple(str(self.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(self.count()))

    def dropEvent(self, event: object) -> None:
        before = self.ids()
        super().dropEvent(event)  # type: ignore[arg-type]
        after = self.ids()
        if after != before:
            self.on_reorder(after)


#: Pixels the turn order keeps in the main window (about three two-line rows: it
#: scrolls to the acting row, and grows with its dock).
ORDER_MIN_HEIGHT = 110
#: The main window's turn order is this wide at least, in pixels: the actions'
#: labels fit, and it keeps its width from turn to turn.
ACTIONS_WIDTH = 280
#: Pixels the action buttons keep at least (one button; the rest scroll).
ACTIONS_MIN_HEIGHT = 36
#: Buttons the actions box shows whole before the rest scroll: the acting token's
#: actions are what the GM clicks most, so they take room before the panels below.
ACTIONS_SHOWN = 6
#: The turn order asks for at most this width for its rows: longer ones wrap.
ROWS_MAX_WIDTH = 330
#: Rows the turn order asks room for before it scrolls (it takes any more its dock gives).
WANTED_ROWS = 12
#: Milliseconds after which the turn order asks its dock for room a second time.
ASK_AGAIN_MS = 150
#: Pixels the turn order asks for beyond its rows (about one two-line row).
SPARE_ROW = 34


class ActionButton(QPushButton):
    """A button whose label, when the dock is too narrow, ends in "…" rather than being
    cut at both ends (the start of an action's name is what tells actions apart)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.full_text = text
        # Its reason goes to the status bar once the pointer moves over it, not when it is
        # laid out under a resting pointer as a turn begins (the turn's own line stays).
        self.pointed = False
        self.setMouseTracking(True)

    def event(self, e: QEvent) -> bool:
        """A status tip only once pointed at (see ``pointed``); a greyed button too, which
        gets no ``mouseMoveEvent``."""
        if e.type() == QEvent.Type.StatusTip and not self.pointed:
            return True
        if e.type() == QEvent.Type.MouseMove and not self.pointed:
            self.pointed = True
            QApplication.sendEvent(self, QStatusTipEvent(self.statusTip()))
        return super().event(e)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        room = self.width() - 16
        metrics = self.fontMetrics()
        shown = metrics.elidedText(self.full_text, Qt.TextElideMode.ElideRight, room) \
            if metrics.horizontalAdvance(self.full_text) > room else self.full_text
        if shown != self.text():
            self.setText(shown)


class InitiativePanel(QWidget):
    """Turn order, start / end turn, and every action the acting token is offered.

    An action that needs no target runs from its button; one aimed at a token arms
    the map (the next token clicked is its target); a move says to drag.
    """

    def __init__(self, run: Callable[[Command], bool], player: bool = False,
                 aim: Callable[[str, ActionOption], object] | None = None,
                 act: Callable[[str, ActionOption], object] | None = None) -> None:
        super().__init__()
        self.run = run
        self.aim = aim
        self.act = act
        self.player = player
        self.title = QLabel("Before combat")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.title.font())
        font.setBold(True)
        font.setPointSizeF(PLAYER_TITLE_PT if player else font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.rows = OrderList(lambda order: self.run(Reorder(order)))
        # Wrapped, not widening the dock: the heading changes every turn.
        self.title.setWordWrap(True)
        if player:
            self.rows.setDragDropMode(QAbstractItemView.DragDropMode.NoDragDrop)
            big = QFont(self.rows.font())
            big.setPointSizeF(PLAYER_ROW_PT)
            self.rows.setFont(big)
            self.rows.setTextElideMode(Qt.TextElideMode.ElideNone)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        self.start_button = QPushButton("Start combat")
        self.start_button.clicked.connect(lambda: self.run(StartCombat()))
        self.end_button = QPushButton(f"End turn ({END_TURN_KEY})")
        self.end_button.setToolTip(f"End this turn ({END_TURN_KEY} or Ctrl+E)")
        self.end_button.clicked.connect(lambda: self.run(EndTurn()))
        self.actions_box = QGroupBox("Actions")
        # The buttons scroll inside the box: a token with many actions never makes
        # the window taller than a 1280×800 screen, nor squeezes the turn order.
        actions = QWidget()
        self.actions_layout = QVBoxLayout(actions)
        self.actions_layout.setContentsMargins(0, 0, 0, 0)
        self.actions_layout.setAlignment(Qt.AlignmentFlag.AlignTop)
        scroller = QScrollArea()
        scroller.setWidget(actions)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroller.setMinimumHeight(ACTIONS_MIN_HEIGHT)
        QVBoxLayout(self.actions_box).addWidget(scroller)
        self.actions_scroller = scroller
        #: Where the actions' scroll bar goes back to once the new buttons are laid out.
        self._keep_scroll = 0
        scroller.verticalScrollBar().rangeChanged.connect(self._scroll_back)
        if not player:
            # Above the list, whose length and the actions under it change every
            # turn: the buttons never move.
            buttons = QHBoxLayout()
            buttons.addWidget(self.start_button)
            buttons.addWidget(self.end_button)
            layout.addLayout(buttons)
        # The order is what the table reads most: it keeps room for several rows
        # however many action buttons the acting token has.
        self.rows.setMinimumHeight(ORDER_MIN_HEIGHT)
        layout.addWidget(self.rows, 1)
        if not player:
            self.rows.wrap_rows()
            layout.addWidget(self.actions_box)
            # Wide enough for "Attack Gruk the orc chief (bow) …" and the dock's title.
            self.setMinimumWidth(ACTIONS_WIDTH)
        self.active: str | None = None
        #: The autopilot's hooks: a row's right-click menu, the mark after a row that plays
        #: itself, and Suggest (None: not offered, the player view).
        self.row_menu: Callable[[OrderRow], QMenu | None] | None = None
        self.row_mark: Callable[[OrderRow], str] | None = None
        self.on_suggest: Callable[[], object] | None = None
        self._shown_rows: dict[str, OrderRow] = {}
        if not player:
            self.rows.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            self.rows.customContextMenuRequested.connect(self._row_menu)
        #: How many rows there were when the panel last asked its dock for room.
        self._rows_asked_for = 0
        #: Docks under this one that keep their height when it grows (the last result: the
        #: room comes from the tabs below it), each with the height it keeps.
        self.keep_below: Callable[[], list[tuple[QDockWidget, int]]] = list
        #: Whose actions the buttons show (a new token's start scrolled to the top).
        self._actions_of: str | None = None

    def show_order(self, state: Encounter, order: TurnOrder | None,
                   actions: list[ActionOption], hidden: Collection[str] = (),
                   actor: str | None = None) -> None:
        """Redraw from the ruleset's turn order and the actions of ``actor``, who acts now."""
        colours = side_colours(state)
        self.rows.clear()
        self._shown_rows.clear()
        self.active = None
        self.title.setText(order.title if order else "Before combat")
        for row in order.rows if order else ():
            if row.id in hidden:
                continue
            mark = STATE_MARK.get(row.state, row.state)
            text = f"{row.name}    {row.key}    {mark}"
            more = self.row_mark(row) if self.row_mark is not None else ""
            text = f"{text}    {more}" if more else text
            self._shown_rows[row.id] = row
            item = QListWidgetItem(text)
            if row.detail and not self.player:
                item.setData(HEAD, text)
                item.setData(DETAIL, row.detail)
                item.setText(self.rows.row_text(text, row.detail))
                item.setToolTip(tip(row.detail))
            item.setData(Qt.ItemDataRole.UserRole, row.id)
            swatch = QPixmap(14, 14)
            swatch.fill(QColor(colours.get(row.side, "#888888")))
            item.setIcon(swatch)
            if row.state == "acting":
                self.active = row.id
                item.setBackground(QColor("#fff1b8"))
                f = QFont(self.rows.font())
                f.setBold(True)
                item.setFont(f)
            elif row.state == "out":
                item.setForeground(QColor("#8d8d8d"))
            self.rows.addItem(item)
        if not self.player and self.rows.count() != self._rows_asked_for:
            self._rows_asked_for = self.rows.count()
            # Once the window has laid out what this change shows (a timeline dock
            # appearing takes its height from this column too).
            QTimer.singleShot(0, self.ask_for_room)
            # Once more when the last result and the timeline, drawn a moment later,
            # have taken their share of the column.
            QTimer.singleShot(ASK_AGAIN_MS, self.ask_for_room)
        self.keep_acting_in_view()
        self.start_button.setEnabled(order is None)
        # A ruleset may refuse to end the turn yet (a locked declaration still owed): the
        # button says so, greyed, instead of being refused when clicked.
        end = next((a for a in actions if a.key == "end_turn"), None) if actor else None
        refused = end.reason if end is not None and not end.enabled else ""
        self.end_button.setEnabled(order is not None and not refused)
        self.end_button.setToolTip(tip(refused) if refused else
                                   f"End this turn ({END_TURN_KEY} or Ctrl+E)")
        self.end_button.setStatusTip(refused)
        if self.player:
            self._fit_rows()
        if actor is not None:
            self.active = actor
        name = state.tokens[actor].name if actor in state.tokens else ""
        self.actions_box.setTitle(f"Actions — {name}" if name else "Actions")
        bar = self.actions_scroller.verticalScrollBar()
        # Each token's turn starts at the top of its actions (its Attack first); the same
        # token's buttons redrawn (an action armed, one taken) keep where the GM was.
        kept = bar.value() if actor == self._actions_of else 0
        self._actions_of = actor
        self._keep_scroll = kept  # the new buttons give the bar its range once laid out
        self._show_actions(actions)
        bar.setValue(kept)

    def _scroll_back(self, low: int, high: int) -> None:
        if self._keep_scroll and high >= self._keep_scroll:
            self.actions_scroller.verticalScrollBar().setValue(self._keep_scroll)
            self._keep_scroll = 0  # back where it was: the GM's own scrolling is the GM's

    def ask_for_room(self) -> None:
        """Make the dock tall enough for every row (up to two thirds of the window: the
        acting token's actions share the dock).

        Asked when the number of rows changes (combat starts, someone joins), not
        every turn: a dock the GM sized by hand keeps its size in between.
        """
        dock = self.parentWidget()
        main = dock.parentWidget() if dock is not None else None
        if not isinstance(dock, QDockWidget) or not isinstance(main, QMainWindow) \
                or dock.isFloating() or not dock.isVisible():
            return
        # A few times: the window shares out what it takes from the docks below
        # only roughly, and each answer can fall a little short.
        layout = main.layout()
        for _ in range(4):
            # The panel's own layout first: the acting token's buttons, just put in,
            # take their room from the rows only once it is laid out.
            for inner in (self.actions_box.layout(), self.layout(), layout):
                if inner is not None:
                    inner.activate()
            short = self.rows.needed() - self.rows.viewport().height()
            # A row to spare: the last result, drawn a moment later, takes a little back.
            wanted = min(dock.height() + short + 8 + SPARE_ROW, main.height() * 2 // 3)
            if short <= 0 or wanted <= dock.height():
                break
            below = self.keep_below()
            main.resizeDocks([dock, *(d for d, _ in below)], [wanted, *(h for _, h in below)],
                             Qt.Orientation.Vertical)
        # Grown, the list may still be scrolled as it was when it was short.
        if self.rows.needed() <= self.rows.viewport().height():
            self.rows.scrollToTop()
        else:
            self.keep_acting_in_view()

    def keep_acting_in_view(self) -> None:
        """Scroll the list so the acting row shows (the sixth turn is not below the fold)."""
        for i in range(self.rows.count()):
            item = self.rows.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == self.active:
                self.rows.scrollToItem(item, QAbstractItemView.ScrollHint.EnsureVisible)
                return

    def _fit_rows(self) -> None:
        """Wide enough for every row in full: the table reads "▶ acting", not "▶ acti…"."""
        rows = self.rows
        wanted = rows.sizeHintForColumn(0) if rows.count() else 0
        scroll = rows.verticalScrollBar().sizeHint().width()
        wanted = max(160, wanted + 2 * rows.frameWidth() + scroll + 8)
        rows.setMinimumWidth(wanted if self.player else min(ROWS_MAX_WIDTH, wanted))

    def _row_menu(self, at: QPoint) -> None:
        """Right-click on a row: the autopilot's toggle for its token or side."""
        item = self.rows.itemAt(at)
        row = self._shown_rows.get(item.data(Qt.ItemDataRole.UserRole)) if item else None
        menu = self.row_menu(row) if row is not None and self.row_menu is not None else None
        if menu is not None:
            self._menu = menu  # kept referenced while it is open
            menu.popup(self.rows.viewport().mapToGlobal(at))

    def _show_actions(self, actions: list[ActionOption]) -> None:
        while self.actions_layout.count():
            child = self.actions_layout.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.hide()
                widget.setParent(None)
                widget.deleteLater()
        shown = [a for a in stable_order(actions) if a.key != "end_turn"]
        self.actions_box.setVisible(bool(shown) and not self.player)
        for option in shown:
            text = option.label + {"token": " …", "cell": " (drag on the map)",
                                   "area": " (place on the map)"}.get(option.target, "")
            button = ActionButton(text)
            # The dock keeps its width whatever the acting token's actions are called:
            # a long label must not widen it (and shrink the map) every turn.
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            button.setEnabled(option.enabled)
            button.setToolTip(tip(option.reason) if not option.enabled else
                              "then click its target on the map" if option.target == "token"
                              else "then click where its area goes" if option.target == "area"
                              else "")
            button.setStatusTip(option.reason)  # shown in the status bar, greyed or not
            button.clicked.connect(lambda _=False, o=option: self.take(o))
            self.actions_layout.addWidget(button)
        if self.on_suggest is not None and shown:
            # Suggest (issue 35), under the actions, in their scroll: it takes no row
            # from the turn order.
            suggest = QPushButton("Suggest (S)")
            suggest.setObjectName("suggest")
            suggest.setToolTip("The autopilot's three best plans for this token, drawn on "
                               "the map; click one to arm it")
            suggest.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            suggest.clicked.connect(lambda _=False, ask=self.on_suggest: ask())
            self.actions_layout.addWidget(suggest)
        first = self.actions_layout.itemAt(0)
        widget = first.widget() if first is not None else None
        if widget is not None:  # the button's own hint: a layout item is empty until shown
            row = widget.sizeHint().height() + self.actions_layout.spacing()
            self.actions_scroller.setMinimumHeight(
                max(ACTIONS_MIN_HEIGHT, row * min(len(shown), ACTIONS_SHOWN)))

    def take(self, option: ActionOption) -> None:
        """The button of ``option``: run it, or arm the map to aim it."""
        actor = self.active or ""
        if option.target == "none" and self.act is not None:
            self.act(actor, option)  # the window's way: it may ask the GM for words first
        elif option.target == "none":
            self.run(command_for(actor, option))
        elif self.aim is not None:
            self.aim(actor, option)
