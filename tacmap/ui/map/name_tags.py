"""Name tags drawn at one screen size whatever the zoom: the player view's names.

The GM's map labels tokens in map units, so their names shrink as the map
zooms out; across a table, on a fitted map, that leaves unreadable slivers or
none at all. The player view leaves those labels out and draws every full name
here instead, in one pass, in type of a fixed point size.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from tacmap.ui.map.look import TokenLook
from tacmap.ui.map.token_item import CELL, TokenItem
from tacmap.ui.qt import (
    QColor,
    QFont,
    QFontMetricsF,
    QGraphicsItem,
    QPainter,
    QPen,
    QPixmap,
    QPointF,
    QRectF,
    QStyleOptionGraphicsItem,
    Qt,
    QTransform,
    QWidget,
)

#: Type size of a name tag, in points: read across a table from a 1080p screen.
TAG_POINT_SIZE = 15.0
#: Tags dodge each other and the tokens on maps up to this many tokens (a table's
#: worth); on bigger maps every tag sits under its token.
DODGE_UP_TO = 60
#: Room round the map for tags that hang past its edge, in metres (the tags are
#: hidden, with the tokens, before a tag could reach further: see OVERVIEW_BELOW).
TAG_ROOM = 40

_PAD_X, _PAD_Y = 7.0, 2.0
#: Edge of the squares tags are filed under, in screen pixels.
_BUCKET = 256.0


class TaggedToken(TokenItem):
    """A token whose name the ``NameTags`` layer draws: its own map-sized label is left out."""

    def _label(self, painter: QPainter, edge: float) -> None:
        return


class NameTags(QGraphicsItem):
    """Every token's full name, centred under it, at ``point_size`` on screen at any zoom."""

    def __init__(self, width: int, height: int, point_size: float = TAG_POINT_SIZE) -> None:
        super().__init__()
        self.font = QFont("DejaVu Sans")
        self.font.setPointSizeF(point_size)
        self.font.setBold(True)
        self.metrics = QFontMetricsF(self.font)
        self.looks: list[TokenLook] = []
        self.area = QRectF(0, 0, width * CELL, height * CELL)
        self._cache: tuple[float, list[tuple[TokenLook, QRectF]]] | None = None
        self._buckets: dict[tuple[int, int], list[int]] = {}
        self._pictures: dict[tuple[str, bool, bool, float], QPixmap] = {}
        #: The words each tag shows (from the last ``tags`` call): its name, or shortened.
        self.text: dict[str, str] = {}
        self.setZValue(20)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    def set_looks(self, looks: Iterable[TokenLook]) -> None:
        """Tag these tokens."""
        looks = list(looks)
        if looks == self.looks:
            return
        self.looks = looks
        self._cache = None
        self.update()

    def set_size(self, width: int, height: int) -> None:
        """Follow a new map size."""
        self.prepareGeometryChange()
        self.area = QRectF(0, 0, width * CELL, height * CELL)

    def tag_size(self, name: str) -> tuple[float, float]:
        """Width and height of the tag of ``name``, in screen pixels."""
        return (self.metrics.horizontalAdvance(name) + 2 * _PAD_X,
                self.metrics.height() + 2 * _PAD_Y)

    def padding(self) -> tuple[float, float, float, float]:
        """Screen pixels a fitted view keeps round the tokens so no tag is cut off."""
        widest = max((self.tag_size(look.name)[0] for look in self.looks), default=0.0)
        tall = self.metrics.height() + 2 * _PAD_Y + 6
        side = max(8.0, widest / 2)
        return (side, tall, side, tall)

    def tags(self, scale: float) -> list[tuple[TokenLook, QRectF]]:
        """Each tag's rectangle at ``scale``, in screen pixels from the scene's origin.

        In drawing order: the acting tokens' tags last, on top. A tag never covers
        another token: it moves above, right or left of its token, then is
        shortened ("Gruk the o…"), and is left out when no place is free. On a
        table-sized map it also moves where it covers the fewest other tags.
        ``text`` gives the words each tag shows.
        """
        if self._cache is not None and self._cache[0] == scale:
            return self._cache[1]
        discs = {look.id: QRectF(look.x * CELL * scale, look.y * CELL * scale,
                                 look.size * CELL * scale, look.size * CELL * scale)
                 for look in self.looks}
        near = _Buckets()
        for tid, disc in discs.items():
            near.add(disc, tid)
        dodge = len(self.looks) <= DODGE_UP_TO
        placed = _Buckets()
        out: list[tuple[TokenLook, QRectF]] = []
        self.text = {}
        # The acting tokens choose their place first; the others fit round them.
        for look in sorted(self.looks, key=lambda lk: not lk.active):
            disc = discs[look.id]
            found = self._place(look, disc, discs, near, placed if dodge else None)
            if found is None:
                continue  # no room beside it that leaves every other token clear
            text, rect = found
            self.text[look.id] = text
            placed.add(rect, look.id)
            out.append((look, rect))
        out.reverse()
        # Which tags lie in each square of the screen, so a repaint of a small
        # area looks at the few tags there, not at every token on the map.
        buckets: dict[tuple[int, int], list[int]] = {}
        for i, (_, rect) in enumerate(out):
            for square in _squares(rect):
                buckets.setdefault(square, []).append(i)
        self._cache = (scale, out)
        self._buckets = buckets
        return out

    def _place(self, look: TokenLook, disc: QRectF, discs: dict[str, QRectF],
               near: _Buckets, placed: _Buckets | None) -> tuple[str, QRectF] | None:
        """The words and rectangle of one tag: never over another token.

        The full name where it covers no other tag either, else the name shortened
        where that is free, else wherever it covers the fewest other tags.
        """
        best: tuple[float, str, QRectF] | None = None
        for text in self._texts(look.name, disc.width()):
            w, h = self.tag_size(text)
            middle = disc.center().y() - h / 2
            places = [QRectF(disc.center().x() - w / 2, disc.bottom() + 1, w, h),  # below
                      QRectF(disc.center().x() - w / 2, disc.top() - h - 1, w, h),  # above
                      QRectF(disc.right() + 2, middle, w, h),  # right
                      QRectF(disc.left() - w - 2, middle, w, h)]  # left
            if placed is None:
                places = places[:1]
            for rect in places:
                if any(discs[o].intersects(rect) for o in near.at(rect) if o != look.id):
                    continue
                if placed is None:
                    return text, rect
                covered = sum(_overlap(rect, other) for other in placed.rects(rect))
                if covered == 0:
                    return text, rect
                if best is None or covered < best[0]:
                    best = (covered, text, rect)
        return None if best is None else (best[1], best[2])

    def _texts(self, name: str, edge: float) -> list[str]:
        """The name in full, then shorter and shorter ("Sergeant H…"), down to the token's width."""
        out = [name]
        width = self.metrics.horizontalAdvance(name)
        while width > edge:
            width = max(edge, width * 0.8)
            short = self.metrics.elidedText(name, Qt.TextElideMode.ElideRight, width)
            if len(short) > 1 and short not in out:
                out.append(short)
        return out

    def _in(self, shown: QRectF) -> list[tuple[TokenLook, QRectF]]:
        """The tags (from the last ``tags`` call) that meet ``shown``, in drawing order."""
        assert self._cache is not None
        out = self._cache[1]
        found: set[int] = set()
        for square in _squares(shown):
            found.update(self._buckets.get(square, ()))
        return [out[i] for i in sorted(found) if out[i][1].intersects(shown)]

    def _picture(self, look: TokenLook, ratio: float) -> QPixmap:
        """One tag drawn once into a pixmap (a repaint then only blits it)."""
        text = self.text.get(look.id, look.name)
        key = (text, look.active, look.down, ratio)
        pix = self._pictures.get(key)
        if pix is not None:
            return pix
        w, h = self.tag_size(text)
        pix = QPixmap(math.ceil(w * ratio), math.ceil(h * ratio))
        pix.setDevicePixelRatio(ratio)
        pix.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pix)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setFont(self.font)
        box = QRectF(1, 1, w - 2, h - 2)
        painter.setPen(QPen(QColor("#ffcc00"), 2) if look.active else Qt.PenStyle.NoPen)
        painter.setBrush(QColor(25, 25, 25, 215))
        painter.drawRoundedRect(box, 7, 7)
        painter.setPen(QColor("#b5b5b5") if look.down else QColor("#ffffff"))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        painter.end()
        if len(self._pictures) > 512:
            self._pictures.clear()
        self._pictures[key] = pix
        return pix

    def boundingRect(self) -> QRectF:
        room = TAG_ROOM * CELL
        return self.area.adjusted(-room, -room, room, room)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        if not self.looks:
            return
        world = painter.worldTransform()
        scale = world.m11()
        exposed = option.exposedRect
        shown = QRectF(exposed.x() * scale, exposed.y() * scale,
                       exposed.width() * scale, exposed.height() * scale)
        self.tags(scale)
        device = painter.device()
        ratio = device.devicePixelRatioF() if device is not None else 1.0
        painter.save()
        # Screen pixels: keep the view's translation (whole pixels: crisp type), undo its scale.
        painter.setTransform(QTransform.fromTranslate(round(world.dx()), round(world.dy())))
        for look, rect in self._in(shown):
            painter.drawPixmap(QPointF(round(rect.x()), round(rect.y())),
                               self._picture(look, ratio))
        painter.restore()


def _overlap(a: QRectF, b: QRectF) -> float:
    """Area ``a`` and ``b`` share."""
    both = a.intersected(b)
    return both.width() * both.height() if not both.isEmpty() else 0.0


def _squares(rect: QRectF) -> list[tuple[int, int]]:
    """The ``_BUCKET`` squares ``rect`` lies in."""
    return [(bx, by)
            for bx in range(int(rect.left() // _BUCKET), int(rect.right() // _BUCKET) + 1)
            for by in range(int(rect.top() // _BUCKET), int(rect.bottom() // _BUCKET) + 1)]


class _Buckets:
    """Rectangles filed by screen square: what lies near a tag is found without a full scan."""

    def __init__(self) -> None:
        self._by_square: dict[tuple[int, int], list[tuple[QRectF, str]]] = {}

    def add(self, rect: QRectF, owner: str) -> None:
        """File ``rect`` (of ``owner``)."""
        for square in _squares(rect):
            self._by_square.setdefault(square, []).append((rect, owner))

    def at(self, rect: QRectF) -> set[str]:
        """Owners of the rectangles filed in the squares ``rect`` lies in."""
        return {owner for square in _squares(rect)
                for _, owner in self._by_square.get(square, ())}

    def rects(self, rect: QRectF) -> list[QRectF]:
        """The rectangles filed in the squares ``rect`` lies in (each once)."""
        seen: dict[int, QRectF] = {}
        for square in _squares(rect):
            for r, _ in self._by_square.get(square, ()):
                seen[id(r)] = r
        return list(seen.values())
