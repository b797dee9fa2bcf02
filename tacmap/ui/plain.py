"""User text (token names, ruleset reasons, file names) is drawn as plain text everywhere.

Qt takes any string that looks like HTML as rich text: a token named
``<img src="/home/gm/secret.png">`` would load a local image in a label or a
tooltip. Labels and message boxes are set to plain text; where rich text is
needed around user text (bold odds, tooltips) the user text is escaped here.
"""

from __future__ import annotations

import html

from tacmap.ui.qt import QLabel, QMessageBox, Qt, QWidget


def esc(text: object) -> str:
    """``text`` escaped for a rich-text string (``<`` shows as ``<``)."""
    return html.escape(str(text), quote=False)


def tip(text: str) -> str:
    """A tooltip that shows ``text`` literally (Qt would take HTML-looking text as HTML).

    Text with no ``<`` or ``&`` cannot be taken as HTML and is returned as it is.
    """
    if "<" not in text and "&" not in text:
        return text
    return f"<p style='white-space:pre-wrap'>{esc(text)}</p>"


def label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A QLabel that draws ``text`` as plain text."""
    widget = QLabel(parent)
    widget.setTextFormat(Qt.TextFormat.PlainText)
    widget.setText(text)
    return widget


def message_box(icon: QMessageBox.Icon, title: str, text: str,
                buttons: QMessageBox.StandardButton,
                parent: QWidget | None = None) -> QMessageBox:
    """A QMessageBox that shows ``text`` as plain text."""
    box = QMessageBox(icon, title, "", buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    return box
