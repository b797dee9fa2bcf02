"""The GM section of the token menu: damage, heal, HP, conditions, hiding, each one logged entry."""

from __future__ import annotations

from tacmap.engine.play.narrate import sentence
from tacmap.ui.qt import QAction, QApplication, QMenu, QPoint, Qt, submenu
from tacmap.ui.window import MainWindow


def entry(window: MainWindow, text: str) -> QAction:
    menu = window.token_menu("grul", window.mapToGlobal(QPoint(300, 300)))
    return item(menu, text)


def submenu_of(window: MainWindow, text: str) -> QMenu:
    """The submenu ``text`` of Grul's menu (found as a child: QAction.menu() owns it
    differently from one PySide6 to the next)."""
    menu = window.token_menu("grul", window.mapToGlobal(QPoint(300, 300)))
    found = submenu(item(menu, text), menu)
    assert found is not None
    return found


def item(menu: QMenu, text: str) -> QAction:
    found = [a for a in menu.actions() if a.text().split("\t")[0] == text]
    assert found, f"{text!r} not in {[a.text() for a in menu.actions()]}"
    return found[0]


def last_sentence(window: MainWindow) -> str:
    ref = window.session.referee
    return sentence(ref.state, ref.log[-1].command, ref.log[-1].events)


def test_the_gm_section_comes_after_select_and_the_rules_actions(window: MainWindow) -> None:
    window.select("ana")
    menu = window.token_menu("grul", window.mapToGlobal(QPoint(300, 300)))
    texts = [a.text().split("\t")[0] for a in menu.actions()]
    assert texts[0] == "Select Grul" and texts.index("GM") < texts.index("Damage…")
    assert {"Heal…", "Set HP…", "Conditions", "Hide from Players", "Edit Stat Block…",
            "Duplicate", "Remove"} <= set(texts)


def test_damage_from_the_menu_is_one_logged_sentence_and_undoes(window: MainWindow) -> None:
    ref = window.session.referee
    asked: list[str] = []
    window.token_gm.ask_amount = lambda title, label, *rest: asked.append(label) or 4
    logged = len(ref.log)
    entry(window, "Damage…").trigger()
    assert asked == ["Damage to Grul (6 HP):"]
    assert len(ref.log) == logged + 1
    assert last_sentence(window) == "GM deals 4 damage to Grul: 6 → 2 HP"
    assert window.log_panel.visible_text().splitlines()[-2].endswith(
        "GM deals 4 damage to Grul: 6 → 2 HP")
    window.undo_action.trigger()
    assert ref.state.tokens["grul"].hp == 6 and len(ref.log) == logged


def test_a_condition_from_the_menu_and_free_text_and_taking_it_off(window: MainWindow) -> None:
    ref = window.session.referee
    window.ask_words = lambda question, suggested: "  frightened "
    logged = len(ref.log)
    conditions = submenu_of(window, "Conditions")
    item(conditions, "Other…").trigger()
    assert ref.state.tokens["grul"].conditions == ("frightened",)
    assert last_sentence(window) == "GM makes Grul frightened" and len(ref.log) == logged + 1
    # Now offered by name, ticked on Grul; the tick takes it off, undo puts it back.
    offered = item(submenu_of(window, "Conditions"), "frightened")
    assert offered.isChecked()
    offered.trigger()
    assert ref.state.tokens["grul"].conditions == ()
    window.undo_action.trigger()
    assert ref.state.tokens["grul"].conditions == ("frightened",)


def test_hide_and_reveal_say_so_and_keep_the_token_off_the_player_view(
        window: MainWindow) -> None:
    window.show_player_view()
    entry(window, "Hide from Players").trigger()
    assert last_sentence(window) == "GM hides Grul from the players"
    assert window.player is not None and "grul" in window.player.hidden(window.session)
    entry(window, "Reveal to Players").trigger()
    assert last_sentence(window) == "GM reveals Grul to the players"
    assert "grul" not in window.player.hidden(window.session)


def test_set_hp_and_the_heal_key_on_the_selected_token(window: MainWindow, qtbot: object) -> None:
    ref = window.session.referee
    window.token_gm.ask_amount = lambda *asked: 1
    entry(window, "Set HP…").trigger()
    assert last_sentence(window) == "GM sets Grul's hit points to 1"
    assert window.combat.menu is not None
    window.combat.menu.close()
    window.select("grul")
    window.activateWindow()
    qtbot.waitActive(window)  # type: ignore[attr-defined]
    window.view.setFocus()
    window.token_gm.ask_amount = lambda title, label, start, low, high: start  # all back
    qtbot.keyClick(window.view, Qt.Key.Key_Plus)  # type: ignore[attr-defined]
    QApplication.processEvents()
    assert last_sentence(window) == "GM heals Grul by 5: 1 → 6 HP"
    window.token_gm.ask_amount = lambda *asked: 2
    qtbot.keyClick(window.view, Qt.Key.Key_Minus)  # type: ignore[attr-defined]
    assert ref.state.tokens["grul"].hp == 4
    # A minus typed into the Dice dock's roll is a minus, not damage.
    window.dice_dock.raise_()
    qtbot.keyClicks(window.dice_panel.field, "3d8-1")  # type: ignore[attr-defined]
    assert window.dice_panel.field.text() == "3d8-1" and ref.state.tokens["grul"].hp == 4


def test_duplicate_and_remove_from_the_menu(window: MainWindow) -> None:
    ref = window.session.referee
    entry(window, "Duplicate").trigger()
    copies = [t for t in ref.state.tokens.values() if t.name.startswith("Grul ")]
    assert len(copies) == 1
    entry(window, "Remove").trigger()
    assert "grul" not in ref.state.tokens
    window.undo_action.trigger()
    assert "grul" in ref.state.tokens
