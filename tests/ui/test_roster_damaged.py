"""Issue 23 item 11: a damaged roster row is named once and never stops the window."""

from __future__ import annotations

import sqlite3

from tacmap.ui.window import MainWindow


def test_a_damaged_row_is_named_once_in_the_status_bar_and_the_rest_is_listed(
        window: MainWindow) -> None:
    roster = window.roster()
    assert roster is not None
    ruleset = window.session.referee.state.ruleset
    for token_id in ("zog", "grul"):
        roster.add(ruleset, window.session.referee.state.tokens[token_id], ["foe"])
    with sqlite3.connect(roster.path) as db:  # a newer tacmap wrote a field this one lacks
        db.execute("UPDATE combatant SET token = replace(token, '\"hidden\":false', "
                   "'\"hidden\":false,\"aura\":3') WHERE name = 'Zog'")
    panel = window.roster_panel
    told: list[str] = window.told  # type: ignore[attr-defined]
    told.clear()
    shown = [e.name for e in panel.refresh()]
    assert shown == ["Grul"]
    assert len(told) == 1
    assert "(Zog) is damaged and was skipped (token.aura: unknown field" in told[0]
    assert told[0].endswith("it is kept in the roster as it is")
    for text in ("g", "gr", "gru", ""):  # each keypress lists again: no dialog comes back
        panel.search.setText(text)
    assert len(told) == 1
    assert panel.entries.count() == 1
