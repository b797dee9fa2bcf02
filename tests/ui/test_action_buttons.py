"""The Actions box: a long action's label ends in "…" in a narrow dock, whole in a wide one."""

from __future__ import annotations

from tacmap.ui.panels.initiative import ActionButton
from tacmap.ui.qt import QApplication

LONG = "Withdraw (full round: two moves, no attacks of opportunity)"


def test_a_long_label_keeps_its_start_and_ends_in_an_ellipsis(qtbot: object) -> None:
    button = ActionButton(LONG)
    qtbot.addWidget(button)  # type: ignore[attr-defined]
    button.resize(180, 26)
    button.show()
    QApplication.processEvents()
    assert button.text().startswith("Withdraw") and button.text().endswith("…")
    assert button.full_text == LONG
    button.resize(900, 26)
    QApplication.processEvents()
    assert button.text() == LONG


def test_long_turn_order_rows_wrap_in_the_gms_dock(qtbot: object) -> None:
    """speed_rank's rows name the speed, the weapon and its phase: they wrap, no sideways bar."""
    from tacmap.engine.model.commands import StartCombat
    from tacmap.ui.panels.initiative import InitiativePanel
    from tacmap.ui.qt import Qt

    panel = InitiativePanel(lambda command: isinstance(command, StartCombat))
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    rows = panel.rows
    assert rows.wordWrap()
    assert rows.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert not InitiativePanel(lambda command: True, player=True).rows.wordWrap()


def test_each_turn_starts_at_the_top_of_the_actions_and_arming_keeps_the_place(
        qtbot: object) -> None:
    """Issue 36 item 6: the box kept the last token's scroll, so the next token's Attack
    was out of view; and it jumped to the bottom when an action was armed."""
    from tacmap.engine.model.state import Encounter, Token
    from tacmap.engine.rules.views import ActionOption, OrderRow, TurnOrder
    from tacmap.ui.panels.initiative import InitiativePanel

    state = Encounter(ruleset="test", name="t")
    for tid in ("ana", "bo"):
        state.tokens[tid] = Token(tid, tid.title(), "party", 1, 1)
    order = TurnOrder("Round 1", (OrderRow("ana", "Ana", "party", "#1", "acting", ""),
                                  OrderRow("bo", "Bo", "party", "#2", "waiting", "")))
    actions = [ActionOption(f"a{i}", f"Action {i}", "none") for i in range(14)]
    panel = InitiativePanel(lambda command: True)
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    panel.resize(320, 500)
    panel.show()
    panel.show_order(state, order, actions, actor="ana")
    QApplication.processEvents()
    bar = panel.actions_scroller.verticalScrollBar()
    assert bar.maximum() > 0, "more buttons than the box shows"
    bar.setValue(bar.maximum())
    top = bar.maximum()
    panel.show_order(state, order, actions, actor="ana")  # the same token: an action armed
    qtbot.waitUntil(lambda: bar.maximum() == top)  # type: ignore[attr-defined]
    assert bar.value() == top
    panel.show_order(state, order, actions, actor="bo")  # the next token's turn
    QApplication.processEvents()
    assert bar.value() == 0
