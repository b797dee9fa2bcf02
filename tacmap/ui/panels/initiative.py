"""The initiative panel: the ruleset's turn order, combat buttons, the active token's actions."""

from __future__ import annotations

from collections.abc import Callable, Collection

from tacmap.engine.commands import Command, EndTurn, Reorder, StartCombat
from tacmap.engine.options import command_for
from tacmap.engine.state import Encounter
from tacmap.engine.views import ActionOption, TurnOrder
from tacmap.ui.map.look import side_colours
from tacmap.ui.qt import (
    QAbstractItemView,
    QColor,
    QFont,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPixmap,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
)

STATE_MARK = {"waiting": "", "declared": "✎ declared", "acting": "▶ acting", "done": "✓ done",
              "out": "✗ out"}


class OrderList(QListWidget):
    """Rows of the turn order; the GM may drag them into a new order."""

    def __init__(self, on_reorder: Callable[[tuple[str, ...]], object]) -> None:
        super().__init__()
        self.on_reorder = on_reorder
        self.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)

    def ids(self) -> tuple[str, ...]:
        """Row ids top to bottom."""
        return tuple(str(self.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(self.count()))

    def dropEvent(self, event: object) -> None:
        before = self.ids()
        super().dropEvent(event)  # type: ignore[arg-type]
        after = self.ids()
        if after != before:
            self.on_reorder(after)


class InitiativePanel(QWidget):
    """Turn order, start / end turn, and the acting token's actions that need no target."""

    def __init__(self, run: Callable[[Command], bool], player: bool = False) -> None:
        super().__init__()
        self.run = run
        self.player = player
        self.title = QLabel("Before combat")
        font = QFont(self.title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * (1.6 if player else 1.15))
        self.title.setFont(font)
        self.rows = OrderList(lambda order: self.run(Reorder(order)))
        if player:
            self.rows.setDragDropMode(QAbstractItemView.DragDropMode.NoDragDrop)
            big = QFont(self.rows.font())
            big.setPointSizeF(big.pointSizeF() * 1.5)
            self.rows.setFont(big)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.rows, 1)
        self.start_button = QPushButton("Start combat")
        self.start_button.clicked.connect(lambda: self.run(StartCombat()))
        self.end_button = QPushButton("End turn")
        self.end_button.clicked.connect(lambda: self.run(EndTurn()))
        self.actions_box = QGroupBox("Actions")
        self.actions_layout = QVBoxLayout(self.actions_box)
        if not player:
            buttons = QHBoxLayout()
            buttons.addWidget(self.start_button)
            buttons.addWidget(self.end_button)
            layout.addLayout(buttons)
            layout.addWidget(self.actions_box)
        self.active: str | None = None

    def show_order(self, state: Encounter, order: TurnOrder | None,
                   actions: list[ActionOption], hidden: Collection[str] = ()) -> None:
        """Redraw from the ruleset's turn order and the acting token's actions."""
        colours = side_colours(state)
        self.rows.clear()
        self.active = None
        self.title.setText(order.title if order else "Before combat")
        for row in order.rows if order else ():
            if row.id in hidden:
                continue
            mark = STATE_MARK.get(row.state, row.state)
            text = f"{row.name}    {row.key}    {mark}"
            if row.detail and not self.player:
                text += f"\n    {row.detail}"
            item = QListWidgetItem(text)
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
        self.start_button.setEnabled(order is None)
        self.end_button.setEnabled(order is not None)
        self._show_actions(actions)

    def _show_actions(self, actions: list[ActionOption]) -> None:
        while self.actions_layout.count():
            child = self.actions_layout.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.hide()
                widget.setParent(None)
                widget.deleteLater()
        shown = [a for a in actions if a.target == "none" and a.key != "end_turn"]
        self.actions_box.setVisible(bool(shown) and not self.player)
        for option in shown:
            button = QPushButton(option.label)
            button.setEnabled(option.enabled)
            button.setToolTip(option.reason)
            button.setStatusTip(option.reason)  # shown in the status bar, greyed or not
            command = command_for(self.active or "", option)
            button.clicked.connect(lambda _=False, c=command: self.run(c))
            self.actions_layout.addWidget(button)
