"""Issue 17 item 8: user text is drawn as plain text; a hostile roster file is one sentence."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtGui import QTextDocument

from tacmap.engine.rules.views import Odds, Preview
from tacmap.ui.map.token_item import TokenItem
from tacmap.ui.odds_card import OddsCard
from tacmap.ui.qt import QLabel, QMessageBox, Qt
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
