"""Pings: the GM points at a spot and an expanding ring shows it on the map for two seconds.

Alt+click, or a press held still for 600 ms, pings where the mouse is; a tap of
Space with the mouse over the map pings there and centres the player view on
it. A ping is drawn, never logged: nothing in the encounter changes.
"""

from __future__ import annotations

from collections.abc import Callable

from tacmap.ui.map.view import MapView
from tacmap.ui.qt import (
    QApplication,
    QColor,
    QEvent,
    QGraphicsItem,
    QGraphicsScene,
    QKeyEvent,
    QMouseEvent,
    QObject,
    QPainter,
    QPen,
    QPoint,
    QPointF,
    QRectF,
    QStyleOptionGraphicsItem,
    Qt,
    QTimer,
    QVariantAnimation,
    QWidget,
)

#: The GM's colour on the map: orange, apart from the sides' colours and the ruler's yellow.
GM_COLOUR = QColor("#ff7f00")
#: How long a ring stays, in milliseconds.
LASTS_MS = 2000
#: How long a press must stay still to ping, in milliseconds.
LONG_PRESS_MS = 600
#: The ring's largest radius on screen, in pixels (the same at any zoom).
RADIUS = 56.0


class PingRing(QGraphicsItem):
    """Two rings growing out of a spot and fading, then gone; the same size at any zoom."""

    def __init__(self, at: QPointF) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setPos(at)
        self.setZValue(60)
        self.progress = 0.0

    def boundingRect(self) -> QRectF:
        r = RADIUS + 4
        return QRectF(-r, -r, 2 * r, 2 * r)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for lag in (0.0, 0.5):  # a second ring half a pulse behind the first
            phase = (self.progress * 2 - lag) % 1.0 if self.progress * 2 >= lag else None
            if phase is None:
                continue
            fade = max(0.0, 1.0 - phase)
            r = 6 + (RADIUS - 6) * phase
            # A dark rim under the orange: seen on a pale floor and on a dark image alike.
            for colour, width in ((QColor(0, 0, 0), 7.0), (QColor(GM_COLOUR), 4.0)):
                colour.setAlphaF(fade * (0.45 if width > 4 else 0.95))
                painter.setPen(QPen(colour, width))
                painter.drawEllipse(QPointF(0, 0), r, r)
        painter.setPen(Qt.PenStyle.NoPen)
        dot = QColor(GM_COLOUR)
        dot.setAlphaF(1.0 - self.progress * 0.7)
        painter.setBrush(dot)
        painter.drawEllipse(QPointF(0, 0), 5, 5)

    def set_progress(self, value: object) -> None:
        """Redraw at ``value`` (0 to 1) of the ping's life."""
        self.progress = float(value)  # type: ignore[arg-type]
        self.update()


def ping(scene: QGraphicsScene, at: QPointF) -> PingRing:
    """Draw a ping at ``at`` on ``scene``; it takes itself away after two seconds."""
    ring = PingRing(at)
    scene.addItem(ring)
    grow = QVariantAnimation(scene)
    grow.setStartValue(0.0)
    grow.setEndValue(1.0)
    grow.setDuration(LASTS_MS)
    grow.valueChanged.connect(ring.set_progress)

    def gone() -> None:
        if ring.scene() is scene:
            scene.removeItem(ring)
        grow.deleteLater()

    grow.finished.connect(gone)
    grow.start()
    return ring


class Pinger(QObject):
    """Watches the GM's map for the ping gestures (an event filter: the map's own
    handling of clicks, drags and Space-panning goes on as before)."""

    def __init__(self, view: MapView, pinged: Callable[[QPointF, bool], None]) -> None:
        super().__init__(view)
        self.view, self.pinged = view, pinged
        self.held = QTimer(self)
        self.held.setSingleShot(True)
        self.held.setInterval(LONG_PRESS_MS)
        self.held.timeout.connect(self._held)
        self.pressed_at: QPoint | None = None
        #: Where the mouse is over the map (None: elsewhere), for Space.
        self.mouse: QPoint | None = None
        #: Space is down and nothing has panned with it yet: its release pings.
        self.space_tap = False
        #: Space is held: a press pans the map, it is not a long press.
        self.space_down = False
        # Kept: while the view is being deleted its viewport still sends events here.
        self.viewport = view.viewport()
        self.viewport.installEventFilter(self)
        view.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self.viewport:
            if kind == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
                return self._press(event)
            if kind == QEvent.Type.MouseMove and isinstance(event, QMouseEvent):
                self._moved(event.position().toPoint())
            elif kind == QEvent.Type.MouseButtonRelease:
                self.held.stop()
            elif kind == QEvent.Type.Leave:
                self.mouse = None
                self.held.stop()
        elif isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Space \
                and not event.isAutoRepeat():
            self.space_down = kind == QEvent.Type.KeyPress
            if kind == QEvent.Type.KeyPress:
                self.space_tap = True
            elif kind == QEvent.Type.KeyRelease and self.space_tap:
                self.space_tap = False
                if self.mouse is not None:
                    self.pinged(self.view.mapToScene(self.mouse), True)
        return False

    def _press(self, event: QMouseEvent) -> bool:
        self.space_tap = False  # Space held while pressing pans: not a tap
        at = event.position().toPoint()
        self.mouse = at
        if event.button() != Qt.MouseButton.LeftButton:
            self.held.stop()
            return False
        if event.modifiers() & Qt.KeyboardModifier.AltModifier:
            self.pinged(self.view.mapToScene(at), False)
            return True  # Alt+click only points: no drag, no selection
        if self.view.tool is None and not self.space_down:
            self.pressed_at = at
            self.held.start()
        return False

    def _moved(self, at: QPoint) -> None:
        self.mouse = at
        if self.held.isActive() and self.pressed_at is not None \
                and (at - self.pressed_at).manhattanLength() > QApplication.startDragDistance():
            self.held.stop()

    def _held(self) -> None:
        if self.pressed_at is not None:
            self.pinged(self.view.mapToScene(self.pressed_at), False)
