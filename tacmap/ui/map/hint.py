"""A short hint laid over the top of the map (the first-run hint), out of the mouse's way."""

from __future__ import annotations

from tacmap.ui.qt import QEvent, QLabel, QObject, Qt, QWidget

#: What to do first, shown on the map and in the status bar until combat starts.
FIRST_RUN = ("Start combat (Combat ▸ Start), drag a token to move, click your token "
             "then an enemy to attack, F1 for help")
#: What to do on a map with nobody on it yet (File ▸ New).
EMPTY_MAP = ("An empty map: add a combatant (Build ▸ Add Combatant) or drag one from the "
             "Roster; draw walls with the Tools bar; F1 for help")


class MapHint(QLabel):
    """Light text on a dark, rounded band, centred at the top of ``view``; clicks pass through."""

    def __init__(self, text: str, view: QWidget) -> None:
        super().__init__(text, view)
        self.setObjectName("map-hint")
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        font = self.font()
        font.setPointSizeF(max(font.pointSizeF() * 1.2, 11.0))
        self.setFont(font)
        self.setStyleSheet("QLabel#map-hint { background: rgba(30, 30, 30, 190); color: #ffffff;"
                           " border-radius: 8px; padding: 8px 14px; }")
        view.installEventFilter(self)
        self._place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parent() and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        """Centred near the top of the view, at most 720 px wide, as tall as its lines."""
        view = self.parentWidget()
        if view is None:
            return
        width = max(120, min(720, view.width() - 40))
        height = self.heightForWidth(width)
        self.setGeometry((view.width() - width) // 2, 14, width, max(height, 24))


class CursorHint(QLabel):
    """A few lines beside the mouse (the tokens inside a template being placed)."""

    def __init__(self, view: QWidget) -> None:
        super().__init__(view)
        self.setObjectName("cursor-hint")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setStyleSheet("QLabel#cursor-hint { background: rgba(30, 30, 30, 200); "
                           "color: #ffffff; border-radius: 6px; padding: 5px 10px; }")
        font = self.font()
        font.setPointSizeF(max(font.pointSizeF() * 1.2, 11.0))
        self.setFont(font)
        self.hide()

    def show_at(self, text: str, x: int, y: int) -> None:
        """Show ``text`` just below and right of the viewport point (x, y), kept inside it."""
        self.setText(text)
        self.adjustSize()
        view = self.parentWidget()
        if view is not None:
            x = min(x + 24, max(0, view.width() - self.width() - 4))
            y = min(y + 24, max(0, view.height() - self.height() - 4))
        self.move(x, y)
        self.show()
        self.raise_()
