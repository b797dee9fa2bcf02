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
