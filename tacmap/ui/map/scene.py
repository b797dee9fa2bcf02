"""The map scene: grid background, image, walls, tokens, overlays; kept in step with state."""

from __future__ import annotations

import math
from pathlib import Path

import shapely

from tacmap.engine.model.state import Cell, Encounter, Token
from tacmap.engine.play.players import PlayerFilter
from tacmap.engine.rules.ruleset import Ruleset
from tacmap.engine.space import grid, vision
from tacmap.ui.images import MAP_PIXELS, PORTRAIT_EDGE, PORTRAIT_PIXELS, ImageCache, describe
from tacmap.ui.map.areas import SKETCH, InsideRings, LastingLayer, TemplateItem
from tacmap.ui.map.ghosts import GhostLayer
from tacmap.ui.map.layers import DragOverlay, FogItem, ReachItem, TokenMarks, WallsItem
from tacmap.ui.map.look import TokenLook, looks
from tacmap.ui.map.name_tags import NameTags, TaggedToken
from tacmap.ui.map.token_item import CELL, LABEL_CELLS, TokenItem, label_width
from tacmap.ui.qt import (
    QColor,
    QFont,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QLineF,
    QPainter,
    QPen,
    QPixmap,
    QPointF,
    QRect,
    QRectF,
    QVariantAnimation,
)

#: Below this many screen pixels per metre, tokens are drawn as marks in one pass.
OVERVIEW_BELOW = 7.0
#: How far from a dragged token threatened cells are shown, in metres.
THREAT_RADIUS = 30
#: Edge in cells of the blocks tokens are filed under to find the tags a drag covers.
BIN = 4

BACKGROUND = QColor("#ece6d6")
OUTSIDE = QColor("#5b5b5b")
GRID = QColor("#c3bba9")  # opaque: blending every grid pixel is slow in the raster engine
GRID_MAJOR = QColor("#a59c88")


class FloatingText(QGraphicsSimpleTextItem):
    """Text that rises and fades for a moment, then removes itself."""

    def __init__(self, text: str, colour: str) -> None:
        super().__init__(text)
        font = QFont("DejaVu Sans", 16)
        font.setBold(True)
        self.setFont(font)
        self.setBrush(QColor(colour))
        self.setPen(QPen(QColor("#ffffff"), 1))
        self.setZValue(30)
        self.animation = QVariantAnimation()
        self.animation.setDuration(1100)
        self.animation.setStartValue(0.0)
        self.animation.setEndValue(1.0)

    def rise(self, start: QPointF) -> None:
        """Start the animation at ``start`` (centre bottom of the text)."""
        w = self.boundingRect().width()
        origin = start - QPointF(w / 2, self.boundingRect().height())

        def step(t: object) -> None:
            f = float(t)  # type: ignore[arg-type]
            self.setPos(origin - QPointF(0, 40 * f))
            self.setOpacity(1.0 - max(0.0, f - 0.5) * 2)

        self.animation.valueChanged.connect(step)
        self.animation.finished.connect(self._done)
        step(0.0)
        self.animation.start()

    def _done(self) -> None:
        scene = self.scene()
        if scene is not None:
            scene.removeItem(self)


class MapScene(QGraphicsScene):
    """One encounter's map. ``sync`` brings it in line with the state after any change."""

    def __init__(self, state: Encounter, ruleset: Ruleset, images: Path | None = None,
                 player: bool = False, cache: ImageCache | None = None) -> None:
        super().__init__()
        self.ruleset = ruleset
        self.images = images
        self.player = player
        self.show_grid = True
        self.items_by_id: dict[str, TokenItem] = {}
        #: The map image, where it lies: painted by ``drawBackground`` under the grid
        #: (an item would cover the grid), so the item itself is never shown.
        self.image_item = QGraphicsPixmapItem()
        self.image_item.setZValue(-10)
        self.image_item.setVisible(False)
        self.addItem(self.image_item)
        self.walls_item = WallsItem(state.map.walls)
        self.addItem(self.walls_item)
        self.marks = TokenMarks(state.map.width, state.map.height)
        self.marks.setVisible(False)
        self.addItem(self.marks)
        self.reach_item = ReachItem()
        self.addItem(self.reach_item)
        self.fog_item = FogItem(player)
        self.addItem(self.fog_item)
        #: Tokens the players' side cannot see now (left off the player view).
        self.unseen: frozenset[str] = frozenset()
        self._fog_key: tuple[object, ...] | None = None
        self.overlay = DragOverlay()
        self.addItem(self.overlay)
        #: Declared actions not yet resolved, as dashed arrows (six_phase, reflex).
        self.ghosts = GhostLayer()
        self.addItem(self.ghosts)
        #: The map's walls, indexed for the template layers.
        #: Templates left on the map (a cloud, a spell about to land).
        self.lasting = LastingLayer(self, ruleset.space.walls)
        #: The template being placed, and the rings round the tokens inside it.
        self.sketch_area = TemplateItem(SKETCH, z=4.5)
        self.sketch_area.attach(self)
        self.inside_rings = InsideRings()
        self.addItem(self.inside_rings)
        #: The player view's names, at one screen size whatever the zoom.
        self.tags: NameTags | None = None
        if player:
            self.tags = NameTags(state.map.width, state.map.height)
            self.addItem(self.tags)
        self.overview = False
        #: Images the encounter names that could not be read.
        self.missing: set[str] = set()
        #: Every image decoded, once each (by name and pixel limit); the player view
        #: shares the GM map's, so an image is decoded once for both.
        self.images_cache = cache if cache is not None else ImageCache()
        self._image_key: tuple[object, ...] | None = None
        self._walls_key: object = None
        self._labels_key: object = None
        #: Tokens whose name tags are faded while a drag passes over them.
        self._faded: set[str] = set()
        #: Token items by the BIN×BIN block of cells their corner is in (for fading).
        self._bins: dict[tuple[int, int], list[TokenItem]] = {}
        self._biggest = 1
        self._looks: list[TokenLook] = []
        #: Notes floating over each token now.
        self._floats: dict[str, list[FloatingText]] = {}
        self.state = state
        self.sync(state)

    # --- keeping in step --------------------------------------------------------

    def sync(self, state: Encounter) -> None:
        """Update every layer to ``state``; only changed tokens are touched."""
        self.state = state
        m = state.map
        rect = QRectF(0, 0, m.width * CELL, m.height * CELL)
        if self.sceneRect() != rect:
            # A fixed scene rect keeps Qt from growing it item by item.
            self.setSceneRect(rect)
            self.marks.set_size(m.width, m.height)
            if self.tags is not None:
                self.tags.set_size(m.width, m.height)
        if self._walls_key is not m.walls:
            self.walls_item.set_walls(m.walls)
            self._walls_key = m.walls
        self._sync_image(state)
        self.lasting.sync(state, under_fog=self.player and state.fog.enabled,
                          players=PlayerFilter(state, self.ruleset.secret_conditions(),
                                               self.unseen) if self.player else None)
        self._sync_fog(state)
        self.ghosts.set_declared(state, self.ruleset.declared(state), player=self.player,
                                 unseen=self.unseen)
        current = looks(state, self.ruleset, self.player)
        if self.player:
            current = [look for look in current
                       if not look.hidden and look.id not in self.unseen]
        seen = set()
        for look in current:
            seen.add(look.id)
            item = self.items_by_id.get(look.id)
            if item is None:
                # Top-level items: under a shared parent Qt would visit every token on
                # every repaint instead of asking its index for the few in view.
                item = (TaggedToken if self.player else TokenItem)(look, self._portrait(look))
                item.setVisible(not self.overview)
                self.addItem(item)
                self.items_by_id[look.id] = item
            else:
                if look.image != item.look.image:
                    item.pixmap = self._portrait(look)
                item.set_look(look)
        for gone in set(self.items_by_id) - seen:
            item = self.items_by_id.pop(gone)
            self.removeItem(item)
            self._faded.discard(gone)
        self.marks.set_looks(current)
        if self.tags is not None:
            self.tags.set_looks(current)
        self._looks = current
        if not self.overview:  # (no tags are drawn zoomed far out: placed on the way in)
            self._place_labels()

    def _sync_fog(self, state: Encounter) -> None:
        """Shade what the table does not see; note the tokens it cannot see now."""
        fog = state.fog
        out = self.ruleset.out_of_fight
        tokens = tuple((t.id, t.side, t.x, t.y, t.size, out(t), t.hidden, t.stats.get("sight"))
                       for t in state.tokens.values())
        key = (fog, state.map.walls, state.party, tokens, state.map.width, state.map.height)
        if self._fog_key is not None and len(key) == len(self._fog_key) and all(
                a is b or a == b for a, b in zip(key, self._fog_key, strict=True)):
            return
        self._fog_key = key
        if not fog.enabled:
            self.fog_item.set_fog(vision.EMPTY, vision.EMPTY)
            self.unseen = frozenset()
            return
        walls = self.ruleset.space.walls(state)
        shown = vision.shown_now(state, walls, out)
        explored = vision.area_shape(fog.explored)
        m = state.map
        dark = shapely.box(0, 0, m.width, m.height).difference(explored.union(shown))
        self.fog_item.set_fog(dark, explored.difference(shown))
        self.unseen = vision.unseen_tokens(state, shown)

    def _place_labels(self) -> None:
        """Place the name tags anew if any token moved, grew, was renamed or began to act."""
        current = self._looks
        key = [(look.id, look.name, look.x, look.y, look.size, look.active) for look in current]
        if key == self._labels_key:
            return
        self._labels_key = key
        for tid, (above, full) in place_labels(current).items():
            self.items_by_id[tid].set_label(above, full)
        bins: dict[tuple[int, int], list[TokenItem]] = {}
        for look in current:
            bins.setdefault((look.x // BIN, look.y // BIN), []).append(self.items_by_id[look.id])
        self._bins = bins
        self._biggest = max((look.size for look in current), default=1)

    def fade_labels(self, areas: list[QRectF]) -> None:
        """Fade the name tags that ``areas`` (scene rects: a drag's path, ghost, notes) cover."""
        hit: set[str] = set()
        box = QRectF()
        for area in areas:
            box = box.united(area)
        if areas:
            # The tokens whose tags can reach the box: a tag hangs one row under or over
            # its token and is at most LABEL_CELLS wide around its middle.
            reach = LABEL_CELLS / 2 + self._biggest
            x0 = math.floor(box.left() / CELL - reach) // BIN
            x1 = math.floor(box.right() / CELL + reach) // BIN
            y0 = math.floor(box.top() / CELL - 1 - self._biggest) // BIN
            y1 = math.floor(box.bottom() / CELL + 1) // BIN
            for bx in range(x0, x1 + 1):
                for by in range(y0, y1 + 1):
                    for item in self._bins.get((bx, by), ()):
                        tag = item.label_rect().translated(item.pos())
                        if tag.intersects(box) and any(tag.intersects(a) for a in areas):
                            hit.add(item.token_id)
        for tid in self._faded - hit:
            token = self.items_by_id.get(tid)
            if token is not None:
                token.set_label_faded(False)
        for tid in hit - self._faded:
            self.items_by_id[tid].set_label_faded(True)
        self._faded = hit

    def picture(self, name: str | None, max_pixels: int = MAP_PIXELS,
                what: str | None = None, edge: int | None = None) -> QPixmap:
        """An image the encounter names: a file in its image folder or a ``data:`` URI.

        Each distinct image is decoded once, and only within ``max_pixels``. One
        that cannot be read or is too large is noted in ``missing`` (its name) and
        ``problems`` (a sentence the window shows) and comes back empty; nothing
        else is drawn in its place.
        """
        pix = self.images_cache.get(name, self.images, max_pixels, what, edge)
        if name and pix.isNull() and (self.images is not None or name.startswith("data:")):
            self.missing.add(describe(name))
        return pix

    @property
    def problems(self) -> list[str]:
        """One sentence per image not drawn (unreadable or over its pixel limit)."""
        return self.images_cache.messages()

    def _portrait(self, look: TokenLook) -> QPixmap | None:
        pix = self.picture(look.image, PORTRAIT_PIXELS, f"the portrait of {look.name}",
                           PORTRAIT_EDGE)
        return None if pix.isNull() else pix

    def _sync_image(self, state: Encounter) -> None:
        m = state.map
        key = (m.image, m.image_offset, m.image_scale, self.images)
        if key == self._image_key:
            return
        self._image_key = key
        self.image_item.setPixmap(self.picture(m.image, MAP_PIXELS, map_label(m.image)))
        self.image_item.setPos(m.image_offset[0] * CELL, m.image_offset[1] * CELL)
        self.image_item.setScale(m.image_scale * CELL)
        # Each view caches its background, image and grid together: paint it afresh.
        for view in self.views():
            view.resetCachedContent()
        self.update()

    def set_overview(self, on: bool) -> None:
        """Marks instead of token items (zoomed far out), or back."""
        if on != self.overview:
            self.overview = on
            if not on:
                self._place_labels()
            for item in self.items_by_id.values():
                item.setVisible(not on)
            self.marks.setVisible(on)
            if self.tags is not None:
                self.tags.setVisible(not on)

    def float_text(self, token_id: str, text: str, colour: str = "#c8312f") -> None:
        """A short result ("−7", "miss") rising from a token and fading out."""
        item = self.items_by_id.get(token_id)
        if item is None:
            return
        label = FloatingText(text, colour)
        edge = item.look.size * CELL
        # Notes that rise from one token together ("−7", "Riposte!") stack, not overlap.
        live = [f for f in self._floats.get(token_id, []) if f.scene() is self]
        lift = sum(f.boundingRect().height() for f in live)
        self._floats[token_id] = [*live, label]
        start = item.pos() + QPointF(edge / 2, -4 - lift)
        self.addItem(label)
        label.rise(start)

    def token_at(self, cell: Cell) -> Token | None:
        """The token whose footprint covers ``cell``, topmost first."""
        for t in reversed(list(self.state.tokens.values())):
            if self.player and (t.hidden or t.id in self.unseen):
                continue  # the table must not find by hovering what it cannot see
            if t.x <= cell[0] < t.x + t.size and t.y <= cell[1] < t.y + t.size:
                return t
        return None

    # --- reach ------------------------------------------------------------------

    def reach_cells(self, token: Token) -> list[Cell]:
        """Cells a token of size 1 could stand in and be within ``token``'s reach."""
        reach = self.ruleset.reach(self.state, token)
        r = math.ceil(reach)
        rule = self.ruleset.reach_rule(self.state)
        out = []
        for x in range(token.x - r, token.x + token.size + r):
            for y in range(token.y - r, token.y + token.size + r):
                if not (0 <= x < self.state.map.width and 0 <= y < self.state.map.height):
                    continue
                inside = token.x <= x < token.x + token.size and token.y <= y < token.y + token.size
                if not inside and grid.edge_distance(rule, (x, y), 1, token.cell,
                                                     token.size) <= reach:
                    out.append((x, y))
        return out

    def show_reach(self, tokens: list[Token], threatened_for: Token | None = None,
                   radius: int = THREAT_RADIUS) -> None:
        """Tint the reach of ``tokens``; hatch the cells enemies of ``threatened_for`` reach.

        Threats are shown within ``radius`` metres of that token: as far as a
        drag can go, without painting every enemy on a crowded map.
        """
        zone: set[Cell] = set()
        for t in tokens:
            zone.update(self.reach_cells(t))
        threat: set[Cell] = set()
        if threatened_for is not None:
            me = threatened_for
            out = self.ruleset.out_of_fight
            for t in self.state.tokens.values():
                if t.side != me.side and not out(t) and abs(t.x - me.x) <= radius \
                        and abs(t.y - me.y) <= radius:
                    threat.update(self.reach_cells(t))
        self.reach_item.show_cells(sorted(zone - threat), sorted(threat))

    # --- drawing ------------------------------------------------------------------

    def _draw_image(self, painter: QPainter, rect: QRectF) -> None:
        """Paint the part of the map image inside ``rect`` (scene units), under the grid."""
        pix, item = self.image_item.pixmap(), self.image_item
        if pix.isNull():
            return
        scale, origin = item.scale(), item.pos()
        shown = QRectF(origin.x(), origin.y(), pix.width() * scale, pix.height() * scale)
        target = shown.intersected(rect)
        if target.isEmpty():
            return
        # Only the pixels under ``rect`` are drawn: a large image costs what is exposed.
        source = QRectF((target.left() - origin.x()) / scale, (target.top() - origin.y()) / scale,
                        target.width() / scale, target.height() / scale)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        painter.drawPixmap(target, pix, source)
        painter.restore()

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        rect = QRectF(rect)
        painter.fillRect(rect, OUTSIDE)
        area = rect.intersected(self.sceneRect())
        if area.isEmpty():
            return
        painter.fillRect(area, BACKGROUND)
        self._draw_image(painter, rect)
        if not self.show_grid:
            return
        scale = painter.worldTransform().m11()
        px = CELL * scale
        # Thin the lines out as the map zooms out: every 5th, then every 25th metre.
        step = 1 if px >= 6 else 5 if px * 5 >= 6 else 25
        x0 = int(area.left() // CELL) // step * step
        y0 = int(area.top() // CELL) // step * step
        # Never past the map's edge: a line there would stand out on the dark surround.
        x1 = min(int(area.right() // CELL) + 1, self.state.map.width)
        y1 = min(int(area.bottom() // CELL) + 1, self.state.map.height)
        minor: list[QLineF] = []
        major: list[QLineF] = []
        for x in range(x0, x1 + 1, step):
            (major if x % (step * 5) == 0 else minor).append(
                QLineF(x * CELL, area.top(), x * CELL, area.bottom()))
        for y in range(y0, y1 + 1, step):
            (major if y % (step * 5) == 0 else minor).append(
                QLineF(area.left(), y * CELL, area.right(), y * CELL))
        # Axis-aligned one-pixel lines need no antialiasing, which costs most of a repaint.
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        pen = QPen(GRID, 0)  # zero width: cosmetic, one pixel at any zoom
        painter.setPen(pen)
        painter.drawLines(minor)
        pen = QPen(GRID_MAJOR, 0)
        painter.setPen(pen)
        painter.drawLines(major)


def place_labels(current: list[TokenLook]) -> dict[str, tuple[bool, bool]]:
    """Where each name tag goes: ``{id: (above, full)}``.

    A tag is the full name (up to ``LABEL_CELLS`` wide), centred under its
    token. Where that would cover another tag or the top of a token in the row
    below, it goes above the token instead (where it must not cover another
    tag or the bottom, hit points, of a token in the row above); where that is
    taken too, it is cut to the token's own width, under it or else over it.
    A tag may run under or over the tokens of its own row: it covers only their
    edge. The acting tokens choose first and always keep their full name, so
    their neighbours make way.
    """
    # (grid line, column) → what is on that line there, in cells: the tops ("top") and
    # bottoms ("bottom") of tokens touching it, and the tags placed so far ("tag").
    taken: dict[tuple[int, int], list[tuple[float, float, str, str]]] = {}

    def take(line: int, a: float, b: float, owner: str, kind: str) -> None:
        for col in range(math.floor(a), math.ceil(b)):
            taken.setdefault((line, col), []).append((a, b, owner, kind))

    def free(line: int, a: float, b: float, owner: str, above: bool) -> bool:
        # A tag under a token hangs over the next row's tops; one over it, the last row's
        # bottoms; any tag covers the tags on its line.
        clash = ("tag", "bottom") if above else ("tag", "top")
        for col in range(math.floor(a), math.ceil(b)):
            for x0, x1, who, kind in taken.get((line, col), ()):
                # A disc is round and inset: a tag may graze a footprint's corner.
                slack = 0.02 if kind == "tag" else 0.12
                if kind in clash and who != owner and x0 < b - slack and a < x1 - slack:
                    return False
        return True

    for look in current:
        take(look.y, look.x, look.x + look.size, look.id, "top")
        take(look.y + look.size, look.x, look.x + look.size, look.id, "bottom")
    out = {}
    for look in sorted(current, key=lambda look: not look.active):
        half = label_width(look.name) / CELL / 2
        middle = look.x + look.size / 2
        wide = (middle - half, middle + half)
        narrow = (look.x, look.x + look.size)
        choices = ((True, False), (True, True)) if look.active else \
            ((True, False), (True, True), (False, False), (False, True))
        for full, above in choices:
            a, b = wide if full else narrow
            line = look.y if above else look.y + look.size
            if free(line, a, b, look.id, above):
                break
        else:
            # No room anywhere: under the token, cut short (the acting token's in full).
            full, above = look.active, False
            a, b = wide if full else narrow
        take(look.y if above else look.y + look.size, a, b, look.id, "tag")
        out[look.id] = (above, full)
    return out


def map_label(name: str | None) -> str:
    """The map image, as the GM is told of it."""
    return "the map image" if not name or name.startswith("data:") else f"the map image {name}"
