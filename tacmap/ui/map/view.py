"""The map view: zoom round the cursor, pan, select, and drag tokens through the referee."""

from __future__ import annotations

from collections.abc import Callable

from tacmap.engine.play.referee import Referee
from tacmap.ui.map.area_tools import TemplatePreview
from tacmap.ui.map.drag import DragController
from tacmap.ui.map.drops import dropped_files
from tacmap.ui.map.group_drag import GroupDrag, toggle
from tacmap.ui.map.scene import OVERVIEW_BELOW, MapScene
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.tools import Tool, nearest_wall
from tacmap.ui.qt import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QEvent,
    QGraphicsView,
    QKeyEvent,
    QMouseEvent,
    QMoveEvent,
    QPainter,
    QPixmapCache,
    QPoint,
    QPointF,
    QRectF,
    QResizeEvent,
    QSize,
    QSizeF,
    Qt,
    QTransform,
    QWheelEvent,
    QWidget,
    Signal,
)

MIN_SCALE, MAX_SCALE = 0.01, 6.0
#: How far past the map's edge the view may scroll, in cells, besides the fit's padding
#: (as far as Fit shows: room for labels at the edge).
SCROLL_MARGIN = 0.5
#: Mime type of a roster entry dragged onto the map (its id, as text).
ROSTER_MIME = "application/x-tacmap-roster"
STEP = 1.25
#: Screen pixels under which a token is a speck: a map that Fit would draw at
#: that scale is framed round its tokens and walls instead (a dungeon level).
SMALLEST_FIT_TOKEN = 12.0


#: Kilobytes Qt may keep of cached pixmaps (tokens in both views, the grid, labels).
PIXMAP_CACHE_KB = 64 * 1024


class MapView(QGraphicsView):
    """Shows a MapScene; the GM's gestures become commands to the referee."""

    message = Signal(str)
    """A line for the status bar (a move's cost, why a move was refused)."""
    token_clicked = Signal(str)
    """A token was clicked without being dragged (select it, or aim at it)."""
    token_menu = Signal(str, QPoint)
    """A token was right-clicked: offer its actions at this screen point."""
    door_menu = Signal(int, QPoint)
    """A door was right-clicked (its index among the walls): offer to open or close it."""
    moved = Signal(str)
    """A token was dragged (whether or not the move was allowed)."""
    roster_dropped = Signal(int, int, int)
    """A roster entry (id) was dropped on the cell (x, y)."""
    area_menu = Signal(int, int, QPoint)
    """A template left on the map was right-clicked at cell (x, y), at this screen point."""
    tool_left = Signal()
    """The GM put the map tool down (Esc or right-click): the window unticks it."""
    files_dropped = Signal(list, QPointF)
    """Encounter files or pictures (paths) were dropped at this scene point."""

    def __init__(self, scene: MapScene, referee: Referee | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.map_scene = scene
        self.controller = DragController(scene, referee) if referee is not None else None
        #: Drags the selected tokens together (several selected: Shift+click, rubber band).
        self.group = GroupDrag(scene, referee) if referee is not None else None
        #: Where the mouse last was over the map (scene point): Ctrl+V pastes there.
        self.pointer: QPointF | None = None
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing
                            | QPainter.RenderHint.SmoothPixmapTransform)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        # The grid changes only on zoom and pan: drawn once into a pixmap, then blitted.
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        # Tokens keep a cached pixmap per view (DeviceCoordinateCache). Qt's default
        # 10 MB pixmap cache cannot hold both views' pixmaps at 2,000 tokens, so a drag
        # with the player view open repainted every token in Python each step (15 ms
        # a step, against 6 ms with room).
        QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), PIXMAP_CACHE_KB))
        self.setMouseTracking(True)
        # Pan with the middle button, space-drag or the arrow keys; a scroll bar shows
        # only while part of the map is out of view (zoomed in, or a dock took room).
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self._pan_from: QPoint | None = None
        self._tool: Tool | None = None
        self.setAcceptDrops(True)
        self._space = False
        self.show_all_reach = False
        #: True: the view refits the encounter whenever it is resized. Zooming or
        #: panning by hand turns it off; ``fit`` (Ctrl+0) turns it back on.
        self.auto_fit = True
        #: Screen pixels kept free round the encounter by ``fit``: left, top, right,
        #: bottom (the player view makes room for its name tags).
        self.fit_padding: tuple[float, float, float, float] = (8, 8, 8, 8)
        #: Smallest token a fit of the whole map may draw, in screen pixels: below it
        #: ``fit`` frames the tokens alone (the player view's readable size; 0: none).
        self.min_token = 0.0
        #: Whether a fit may not go under ``min_token`` (the player view in the window it
        #: sized for the players: the map then follows whoever acts instead).
        self.hold_min_token: Callable[[], bool] = lambda: False
        #: Told at each mouse move with a button held (the window holds its workers).
        self.in_hand: Callable[[], None] = lambda: None
        #: True: refit on every resize while fitted (the player view); False: only when
        #: the window is resized, never because a dock took or gave back room.
        self.refit_on_any_resize = False
        self._fitted_window: QSize | None = None
        #: The viewport's corner in the window and the scene point under it (``_hold``).
        self._held: tuple[QPoint, QPointF] | None = None
        self._resizing = False
        self._placing = False
        #: The view's size less its viewport's (frame and scroll bars) at the last resize.
        self._frame = QSize(0, 0)
        scene.sceneRectChanged.connect(lambda _rect: self._scroll_area())
        self._scroll_area()
        self._area_preview: TemplatePreview | None = None

    def viewportEvent(self, event: QEvent) -> bool:
        # While a template is placed, the list of tokens inside sits by the mouse:
        # a token's tooltip would cover it.
        if event.type() == QEvent.Type.ToolTip and self.tool is not None \
                and self.tool.name in ("template", "aim"):
            return True
        return super().viewportEvent(event)

    @property
    def tool(self) -> Tool | None:
        """A map tool (wall, template, an armed area …) takes the clicks while set."""
        return self._tool

    @tool.setter
    def tool(self, tool: Tool | None) -> None:
        self._tool = tool
        self._rest_cursor()

    def _rest_cursor(self) -> None:
        """The tool's cursor while one is on (the map says a tool is active), else the arrow."""
        if self._tool is not None:
            self.viewport().setCursor(self._tool.pointer)
        else:
            self.viewport().unsetCursor()

    @property
    def area_preview(self) -> TemplatePreview:
        """Draws a template being placed on this view (made on first use)."""
        if self._area_preview is None:
            self._area_preview = TemplatePreview(self.map_scene, self)
        return self._area_preview

    # --- zoom and pan ---------------------------------------------------------------

    @property
    def zoom(self) -> float:
        """Screen pixels per scene unit."""
        return float(self.transform().m11())

    def set_zoom(self, scale: float) -> None:
        """Zoom to ``scale`` (clamped), keeping the point under the mouse still.

        Someone chose this zoom: the view stops refitting itself on resize.
        """
        self.auto_fit = False
        self._zoom(scale)

    def _zoom(self, scale: float) -> None:
        scale = max(MIN_SCALE, min(MAX_SCALE, scale))
        factor = scale / self.zoom
        if abs(factor - 1) > 1e-9:
            self.scale(factor, factor)
        self.map_scene.set_overview(self.zoom * CELL < OVERVIEW_BELOW)
        self._remember()

    def zoom_by(self, factor: float) -> None:
        """Zoom in (factor > 1) or out."""
        self.set_zoom(self.zoom * factor)

    def map_rect(self) -> QRectF:
        """The whole map: its grid and its image (which may hang past the grid)."""
        rect = self.map_scene.sceneRect()
        image = self.map_scene.image_item
        if not image.pixmap().isNull():
            rect = rect.united(image.sceneBoundingRect())
        return rect

    def action_rect(self, walls: bool = True) -> QRectF:
        """Every token and (``walls``) wall, and a cell round them (the whole map when none)."""
        # Tokens and walls only: the marks layer and overlays span the whole map.
        rect = self.map_scene.walls_item.sceneBoundingRect() \
            if walls and not self.map_scene.walls_item.path().isEmpty() else QRectF()
        for item in self.map_scene.items_by_id.values():
            edge = item.look.size * CELL
            rect = rect.united(QRectF(item.pos().x(), item.pos().y(), edge, edge))
        rect = rect.intersected(self.map_scene.sceneRect())
        if rect.isEmpty():
            rect = self.map_scene.sceneRect()
        return rect.adjusted(-CELL, -CELL, CELL, CELL)

    def encounter_rect(self) -> QRectF:
        """What ``fit`` shows: the whole map, image included, with half a cell of room.

        On a map so big that a token would be drawn smaller than ``SMALLEST_FIT_TOKEN``,
        it shows the tokens and walls instead; below ``min_token`` (the player
        view's readable size), the tokens alone, two cells round them.
        """
        # Half a cell of room: the map's edge shows, and the padding holds the tags.
        whole = self.map_rect().adjusted(-CELL / 2, -CELL / 2, CELL / 2, CELL / 2)
        whole = whole.united(self.action_rect().adjusted(CELL / 2, CELL / 2, -CELL / 2, -CELL / 2))
        scale = self._scale_for(whole)
        if self.min_token and scale * CELL < self.min_token:
            return self.action_rect(walls=False).adjusted(-CELL, -CELL, CELL, CELL) \
                .intersected(whole)
        if scale * CELL < SMALLEST_FIT_TOKEN:
            return self.action_rect().intersected(whole)
        return whole

    def _scale_for(self, rect: QRectF) -> float:
        """The zoom at which ``rect`` just fills the padded viewport (0: not laid out)."""
        left, top, right, bottom = self.fit_padding
        room = self.viewport().rect()
        width, height = room.width() - left - right, room.height() - top - bottom
        if width < 16 or height < 16 or rect.isEmpty():
            return 0.0
        return max(MIN_SCALE, min(MAX_SCALE, width / rect.width(), height / rect.height()))

    def fit(self) -> None:
        """Show the whole map, and keep it fitted as the window is resized (Ctrl+0)."""
        self.auto_fit = True
        self._fit()

    def _fit(self) -> None:
        rect = self.encounter_rect()
        scale = self._scale_for(rect)
        if not scale:
            return  # not laid out yet: the first resize fits it
        if self.min_token and scale * CELL < self.min_token and self.hold_min_token():
            # Tokens too far apart to frame at the players' readable size in a window
            # made for it: the size holds, and the view follows whoever acts.
            scale = self.min_token / CELL
        left, top, right, bottom = self.fit_padding
        self.setTransform(QTransform.fromScale(scale, scale))
        self._scroll_area()
        # The encounter's centre sits in the middle of the padded area.
        self.centerOn(rect.center() - QPointF((left - right) / 2 / scale,
                                              (top - bottom) / 2 / scale))
        self.map_scene.set_overview(self.zoom * CELL < OVERVIEW_BELOW)
        self._fitted_window = self.window().size()
        self._remember()

    def _scroll_area(self, shown: QRectF | None = None) -> None:
        """Scroll as far as the whole map and half a cell past it (tags and padding stay in view).

        No further: a fitted map then needs no scroll bar, and one appears as soon
        as a dock takes room from the map, so nothing is ever out of reach. ``shown``
        (what the map must keep showing where it is, ``_hold``) is added to it.
        """
        # The fit's half cell and padding, less two pixels: a fitted map never shows a
        # scroll bar for a rounding error.
        pixels = max(max(self.fit_padding) - 2, 0)
        margin = SCROLL_MARGIN * CELL + pixels / max(self.zoom, MIN_SCALE)
        rect = self.map_rect().adjusted(-margin, -margin, margin, margin)
        if shown is not None:
            rect = rect.united(shown)
        if rect != self.sceneRect():
            self.setSceneRect(rect)

    def _viewport_at(self) -> QPoint:
        """Where the viewport's corner is in the window (a dock on the left moves it)."""
        return self.viewport().mapTo(self.window(), QPoint(0, 0))

    def _remember(self) -> None:
        """Note where the map is in the window, for ``_hold``."""
        self._held = (self._viewport_at(), self.mapToScene(QPoint(0, 0)))

    def _hold(self) -> None:
        """Keep each point of the map where it was in the window after a dock took or gave
        back room: the viewport's corner moved, the scene point under it moves as much."""
        if self._held is None:
            self._scroll_area()
            self._remember()
            return
        was_at, corner = self._held
        scale = max(self.zoom, MIN_SCALE)
        moved = self._viewport_at() - was_at
        corner = corner + QPointF(moved.x() / scale, moved.y() / scale)
        # The room without scroll bars, less half a pixel: a map that fits then needs none
        # (not even for a rounding error), and the half pixel is never drawn.
        room = self.maximumViewportSize()
        shown = QRectF(corner, QSizeF((room.width() - 0.5) / scale,
                                      (room.height() - 0.5) / scale))
        self._placing = True
        try:
            self._scroll_area(shown)
            # Scroll bars coming or going as the area changes move the viewport's corner:
            # put the corner back over ``corner`` until it stays (twice is the most seen).
            for _ in range(3):
                off = (self.mapToScene(QPoint(0, 0)) - corner) * scale
                if abs(off.x()) < 0.5 and abs(off.y()) < 0.5:
                    break
                bars = self.horizontalScrollBar(), self.verticalScrollBar()
                bars[0].setValue(bars[0].value() - round(off.x()))
                bars[1].setValue(bars[1].value() - round(off.y()))
        finally:
            self._placing = False
        # The corner meant, not the one reached: a scroll bar's whole pixels would
        # otherwise add up, a pixel a dock, into a drift.
        self._held = (self._viewport_at(), corner)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        if not self._resizing and not self._placing:
            self._remember()  # a pan or a scroll; not Qt's own as the size changes, not _hold's

    def moveEvent(self, event: QMoveEvent) -> None:
        super().moveEvent(event)
        # A dock that takes room on the left moves the view and resizes it; the resize
        # comes next, and until then the viewport has its old size: hold then.
        if not self.refit_on_any_resize and self.size() == self.viewport().size() \
                + self._frame:
            self._hold()

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._resizing = True
        try:
            super().resizeEvent(event)
        finally:
            self._resizing = False
        self._frame = self.size() - self.viewport().size()
        # The GM's window refits only when the window itself changed size: a dock
        # appearing or changing width leaves the scale alone, and the map where it was
        # on the screen (scroll bars reach what it covers). The player view refits on
        # any change.
        if self.auto_fit and (self.refit_on_any_resize
                              or self.window().size() != self._fitted_window):
            self._fit()
        elif self.refit_on_any_resize:
            self._scroll_area()
        else:
            self._hold()

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_by(STEP ** steps)
        event.accept()

    def _pan(self, delta: QPoint) -> None:
        """Pan by hand: the view stops refitting itself on resize."""
        self.auto_fit = False
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())

    # --- mouse ------------------------------------------------------------------------

    def _cell_at(self, event: QMouseEvent) -> tuple[float, float]:
        p = self.mapToScene(event.position().toPoint())
        return (p.x() / CELL, p.y() / CELL)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        button = event.button()
        dragging = self.controller is not None and self.controller.drag is not None
        if self.group is not None and self.group.active:
            event.accept()  # a group's free move has no waypoints; the release ends it
            return
        if button == Qt.MouseButton.MiddleButton or (button == Qt.MouseButton.LeftButton
                                                     and self._space):
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        if button == Qt.MouseButton.RightButton and self.controller is not None \
                and (self.tool is None or self.tool.name == "template"):
            fx, fy = self._cell_at(event)
            cell = (int(fx // 1), int(fy // 1))
            state = self.map_scene.state
            if self.map_scene.token_at(cell) is None \
                    and self.map_scene.lasting.at(state, cell) is not None:
                self.area_menu.emit(cell[0], cell[1], event.globalPosition().toPoint())
                event.accept()
                return
        if self.tool is not None and button == Qt.MouseButton.RightButton \
                and self.tool.waypoint():
            event.accept()  # mid-drag (the ruler's): a waypoint, the tool stays in hand
            return
        if self.tool is not None and button == Qt.MouseButton.RightButton:
            # Right-click puts the tool down, keeping what is drawn so far.
            tool = self.tool
            tool.leave()
            if self.tool is tool:
                self.tool_left.emit()
            event.accept()
            return
        if self.tool is not None and button == Qt.MouseButton.LeftButton:
            self.tool.press(self.mapToScene(event.position().toPoint()), button)
            event.accept()
            return
        if button == Qt.MouseButton.RightButton and dragging:
            assert self.controller is not None
            self.controller.add_waypoint()
            event.accept()
            return
        if button in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton):
            fx, fy = self._cell_at(event)
            token = self.map_scene.token_at((int(fx // 1), int(fy // 1)))
            if token is not None and button == Qt.MouseButton.RightButton:
                self.token_menu.emit(token.id, event.globalPosition().toPoint())
                event.accept()
                return
            if token is None and button == Qt.MouseButton.RightButton \
                    and self.controller is not None:
                door = self.door_at(fx, fy)
                if door is not None:
                    self.door_menu.emit(door, event.globalPosition().toPoint())
                    event.accept()
                    return
            left = button == Qt.MouseButton.LeftButton
            if token is not None and self.group is not None and left \
                    and self.group.begin(token.id, (fx, fy)):
                event.accept()
                return
            if token is not None and self.controller is not None:
                # Selection waits for the release: a click may aim at a target.
                self.controller.begin(token.id, (fx - token.x, fy - token.y))
                event.accept()
                return
            if token is not None:
                self.token_clicked.emit(token.id)
                event.accept()
                return
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            # Shift+drag on the empty map adds to the selection (Qt's rubber band does with Ctrl).
            event = QMouseEvent(event.type(), event.position(), event.globalPosition(),
                                event.button(), event.buttons(),
                                event.modifiers() | Qt.KeyboardModifier.ControlModifier)
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if self.tool is not None:
            self.tool.finish()
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self.pointer = self.mapToScene(event.position().toPoint())
        if event.buttons() != Qt.MouseButton.NoButton:
            self.in_hand()  # a drag, a pan or a tool under way: work beside the window waits
        if self.tool is not None and self._pan_from is None:
            self.tool.move(self.mapToScene(event.position().toPoint()))
            event.accept()
            return
        if self._pan_from is not None:
            now = event.position().toPoint()
            self._pan(now - self._pan_from)
            self._pan_from = now
            event.accept()
            return
        if self.group is not None and self.group.active:
            text = self.group.move_to(self._cell_at(event))
            if text is not None:
                self.message.emit(text)
            event.accept()
            return
        if self.controller is not None and self.controller.drag is not None:
            preview = self.controller.move_to(self._cell_at(event))
            if preview is not None:
                self.message.emit(self.controller.status_of(preview))
            event.accept()
            return
        if not self.show_all_reach and event.buttons() == Qt.MouseButton.NoButton:
            fx, fy = self._cell_at(event)
            token = self.map_scene.token_at((int(fx // 1), int(fy // 1)))
            self.map_scene.show_reach([token] if token is not None else [])
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self.tool is not None and self._pan_from is None \
                and event.button() == Qt.MouseButton.LeftButton:
            self.tool.release(self.mapToScene(event.position().toPoint()))
            event.accept()
            return
        if self._pan_from is not None and event.button() in (Qt.MouseButton.MiddleButton,
                                                             Qt.MouseButton.LeftButton):
            self._pan_from = None
            self._rest_cursor()
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton and self.group is not None \
                and self.group.token is not None:
            token_id = self.group.token
            self.group.move_to(self._cell_at(event))
            if self.group.moved:
                self.message.emit(self.group.finish())
            else:
                self.group.cancel()
                self._clicked(token_id, event)
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton and self.controller is not None \
                and self.controller.drag is not None:
            self.controller.move_to(self._cell_at(event))
            drag = self.controller.drag
            assert drag is not None
            override = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            text = self.controller.finish(override)
            if drag.cell in (None, drag.start) and not drag.waypoints:
                self._clicked(drag.token, event)
            else:
                self.moved.emit(drag.token)
            if text:
                self.message.emit(text)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _clicked(self, token_id: str, event: QMouseEvent) -> None:
        """A click on a token: Shift adds it to the selection or takes it out; else as ever."""
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            toggle(self.map_scene, token_id)
        else:
            self.token_clicked.emit(token_id)

    def door_at(self, x: float, y: float) -> int | None:
        """Index of the door within half a metre of (x, y) m, if any."""
        walls = self.map_scene.state.map.walls
        doors = [i for i, w in enumerate(walls) if w.kind == "door"]
        found = nearest_wall([walls[i] for i in doors], (x, y))
        return None if found is None else doors[found]

    # --- keys ---------------------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = Qt.Key(event.key())
        dragging = self.controller is not None and self.controller.drag is not None
        if key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
        elif self.tool is not None and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.tool.finish()
        elif self.tool is not None and key == Qt.Key.Key_Escape:
            tool = self.tool
            tool.cancel()
            if self.tool is tool:  # a building tool: Esc puts it down too
                self.tool_left.emit()
        elif key == Qt.Key.Key_Escape and self.group is not None and self.group.active:
            self.group.cancel()
            self.message.emit("Move cancelled")
        elif self.tool is not None and key == Qt.Key.Key_W and self.tool.waypoint():
            pass  # a waypoint on the ruler being dragged
        elif key == Qt.Key.Key_Escape and dragging:
            assert self.controller is not None
            self.controller.cancel()
            self.message.emit("Move cancelled")
        elif key == Qt.Key.Key_W and dragging:
            assert self.controller is not None
            self.controller.add_waypoint()
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down):
            d = 60
            delta = {Qt.Key.Key_Left: QPoint(d, 0), Qt.Key.Key_Right: QPoint(-d, 0),
                     Qt.Key.Key_Up: QPoint(0, d), Qt.Key.Key_Down: QPoint(0, -d)}[key]
            self._pan(delta)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self._rest_cursor()
        super().keyReleaseEvent(event)

    # --- roster drops ---------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(ROSTER_MIME) or self._takes_files(event):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(ROSTER_MIME) or self._takes_files(event):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def _takes_files(self, event: QDropEvent) -> bool:
        """Files from the desktop are the GM's map's (the player view takes none)."""
        return self.controller is not None and bool(dropped_files(event.mimeData()))

    def dropEvent(self, event: QDropEvent) -> None:
        data = event.mimeData()
        if self._takes_files(event):
            self.files_dropped.emit(dropped_files(data),
                                    self.mapToScene(event.position().toPoint()))
            event.acceptProposedAction()
            return
        if not data.hasFormat(ROSTER_MIME):
            super().dropEvent(event)
            return
        try:
            entry = int(bytes(data.data(ROSTER_MIME).data()).decode())
        except ValueError:
            return
        p = self.mapToScene(event.position().toPoint())
        self.roster_dropped.emit(entry, int(p.x() // CELL), int(p.y() // CELL))
        event.acceptProposedAction()

    def select(self, token_id: str | None) -> None:
        """Mark one token selected (None: none)."""
        self.map_scene.clearSelection()
        item = self.map_scene.items_by_id.get(token_id or "")
        if item is not None:
            item.setSelected(True)

    def follow(self, token_id: str) -> None:
        """Bring a token into view if it is not (the player view follows whoever acts).

        A fitted view fits again (the token walked out of the fitted area); a view
        zoomed by hand keeps its zoom and pans.
        """
        item = self.map_scene.items_by_id.get(token_id)
        if item is None:
            return
        edge = item.look.size * CELL
        box = QRectF(item.pos().x(), item.pos().y(), edge, edge)
        seen = self.mapToScene(self.viewport().rect()).boundingRect()
        if seen.contains(box):
            return
        if self.auto_fit:
            self._fit()
            seen = self.mapToScene(self.viewport().rect()).boundingRect()
            if not seen.contains(box):  # the fit holds the readable size: pan to the token
                self.ensureVisible(box, 120, 120)
        else:
            self.ensureVisible(box, 120, 120)

    def toggle_all_reach(self, on: bool) -> None:
        """Show the reach of every token still in the fight (or go back to hover only)."""
        self.show_all_reach = on
        out = self.map_scene.ruleset.out_of_fight
        tokens = [t for t in self.map_scene.state.tokens.values() if not out(t)] if on else []
        self.map_scene.show_reach(tokens)
