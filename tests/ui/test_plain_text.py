"""Issue 17 item 8: user text is drawn as plain text; a hostile roster file is one sentence."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6 import QtGui
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QTreeWidget

from tacmap.engine.rules.views import Odds, Preview, Reaction
from tacmap.ui.map.token_item import TokenItem
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.qt import (
    QApplication,
    QLabel,
    QListWidget,
    QMessageBox,
    Qt,
    QTableWidget,
)
from tacmap.ui.window import MainWindow

HOSTILE = '<img src="/etc/secret.png">Barry'


def shown_text(rich: str) -> str:
    """What a rich-text string shows on screen."""
    doc = QTextDocument()
    doc.setHtml(rich)
    return doc.toPlainText()


def test_a_token_name_in_the_odds_card_is_shown_literally(qapp: object) -> None:
    odds = Odds(success=0.5, drop=0.25, chances=((HOSTILE, 0.1),), lines=(HOSTILE,))
    card = OddsCard(f"Attack {HOSTILE}", HOSTILE, Preview(legal=True, odds=odds))
    labels = card.findChildren(QLabel)
    shown = [shown_text(lab.text()) if lab.textFormat() == Qt.TextFormat.RichText
             else lab.text() for lab in labels]
    assert f"Attack {HOSTILE}" in shown
    assert any(f"Chance {HOSTILE} drops" in text for text in shown)
    assert all("<img" not in lab.text() for lab in labels
               if lab.textFormat() != Qt.TextFormat.PlainText)
    for lab in labels:
        assert lab.textFormat() in (Qt.TextFormat.PlainText, Qt.TextFormat.RichText)
    card.deleteLater()


def test_a_refused_preview_reason_is_shown_literally(qapp: object) -> None:
    card = OddsCard("Attack", "Bo", Preview(legal=False, reason=f"{HOSTILE} is out of reach"))
    assert shown_text(card.summary.text()) == f"Not allowed: {HOSTILE} is out of reach"
    card.deleteLater()


def test_a_token_tooltip_shows_its_name_literally(window: MainWindow) -> None:
    window.select("ana")
    item = window.scene.items_by_id["ana"]
    assert isinstance(item, TokenItem)
    from tacmap.ui.plain import tip

    assert shown_text(tip(HOSTILE)) == HOSTILE
    assert "<img" not in item.toolTip()


def test_message_boxes_are_plain_text(qapp: object) -> None:
    from tacmap.ui.app import refusal_box

    box = refusal_box(HOSTILE)
    assert box.textFormat() == Qt.TextFormat.PlainText and box.text() == HOSTILE
    assert isinstance(box, QMessageBox)


def test_a_roster_file_with_a_lone_surrogate_is_one_sentence(
        window: MainWindow, tmp_path: Path) -> None:
    told: list[str] = []
    window.tell = told.append
    window.select("zog")
    window.ask_tags = lambda name: ""
    window.save_to_roster()
    exported = tmp_path / "roster.json"
    window.ask_file = lambda title, save: exported
    window.rosters.export_roster()
    text = exported.read_text()
    assert '"Zog"' in text
    # Escaped in JSON, and as the raw UTF-8 bytes of a lone surrogate (ED B2 80).
    for hostile in (text.replace('"Zog"', json.dumps("\udc80Zog")).encode(),
                    text.replace('"Zog"', '"\udc80Zog"').encode("utf-8", "surrogatepass")):
        exported.write_bytes(hostile)
        _import_refused(window, exported, told)


def _import_refused(window: MainWindow, exported: Path, told: list[str]) -> None:
    told.clear()
    before = window.roster_panel.refresh()
    window.ask_file = lambda title, save: exported
    window.rosters.import_roster()
    assert len(told) == 1 and "\n" not in told[0], told
    assert str(exported) in told[0]
    assert [e.id for e in window.roster_panel.refresh()] == [e.id for e in before]


#: Characters that open a tag or an entity in rich text, in a name and in a value.
MARKUP = "Kara <i>&amp; Co"


def test_a_tiny_chance_keeps_its_value_and_bolds_nothing_after_it(qapp: object) -> None:
    """Issue 36 item 1: "<0.1%" was read as a tag, emptying "Chance Kara drops:" and
    bolding every line after it."""
    odds = Odds(success=0.0004, drop=0.0002, chances=(("Kara & <b> falls", 0.0001),),
                lines=("armour soaks <3",),
                reactions=(Reaction("Kara <i> strikes back", success=0.0003, drop=0.0001),))
    card = OddsCard("Grell attacks Kara", MARKUP, Preview(legal=True, odds=odds))
    summary = shown_text(card.summary.text()).splitlines()
    assert summary[:2] == ["Chance to succeed: <0.1%", f"Chance {MARKUP} drops: <0.1%"]
    assert "Kara & <b> falls: <0.1%" in summary and "armour soaks <3" in summary
    reactions = shown_text(card.reactions.text())
    assert "⚠ Kara <i> strikes back" in reactions
    assert f"without it: <0.1% to succeed, <0.1% that {MARKUP} drops" in reactions
    card.deleteLater()


def test_every_panel_shows_names_with_markup_literally(window: MainWindow) -> None:
    """Every label, table and list of the window, with "<", "&" and a tag planted in
    names: each rich-text label escapes them, and the names show as typed."""
    from tacmap.engine.model.commands import Attack, SetHp

    state = window.session.referee.state
    for token in state.tokens.values():
        token.name = f"{token.name} <b>&amp;"
    window.run(SetHp("grul", 3))
    window.run(Attack("ana", "grul"))
    window.show_player_view()
    QApplication.processEvents()
    QApplication.processEvents()
    shown: list[str] = []
    widgets = [window, *([window.player] if window.player is not None else [])]
    for top in widgets:
        for lab in top.findChildren(QLabel):
            raw = lab.text()
            kind = lab.textFormat()
            if kind == Qt.TextFormat.PlainText or (kind == Qt.TextFormat.AutoText
                                                   and not QtGui.Qt.mightBeRichText(raw)):
                shown.append(raw)
                continue
            assert "<b>&amp;" not in raw, f"unescaped name in a rich label: {raw[:200]}"
            shown.append(shown_text(raw))
        for table in top.findChildren(QTableWidget):
            shown += [table.item(r, c).text() for r in range(table.rowCount())
                      for c in range(table.columnCount()) if table.item(r, c) is not None]
        for lst in top.findChildren(QListWidget):
            shown += [lst.item(r).text() for r in range(lst.count())]
        for tree in top.findChildren(QTreeWidget):
            shown += [tree.topLevelItem(r).text(c) for r in range(tree.topLevelItemCount())
                      for c in range(tree.columnCount())]
    everything = "\n".join(shown)
    assert "Ana <b>&amp;" in everything and "Grul <b>&amp;" in everything
