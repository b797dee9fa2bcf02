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

        In drawing order: the acting tokens' tags last, on top. On a table-sized
        map a tag that would cover another tag or token moves above, right or
        left of its token, wherever it covers least.
        """
        if self._cache is not None and self._cache[0] == scale:
            return self._cache[1]
        discs = {look.id: QRectF(look.x * CELL * scale, look.y * CELL * scale,
                                 look.size * CELL * scale, look.size * CELL * scale)
                 for look in self.looks}
        dodge = len(self.looks) <= DODGE_UP_TO
        placed: list[QRectF] = []
        out: list[tuple[TokenLook, QRectF]] = []
        # The acting tokens choose their place first; the others fit round them.
        for look in sorted(self.looks, key=lambda lk: not lk.active):
            w, h = self.tag_size(look.name)
            disc = discs[look.id]
            middle = disc.center().y() - h / 2
            places = [QRectF(disc.center().x() - w / 2, disc.bottom() + 1, w, h),  # below
                      QRectF(disc.center().x() - w / 2, disc.top() - h - 1, w, h),  # above
                      QRectF(disc.right() + 2, middle, w, h),  # right
                      QRectF(disc.left() - w - 2, middle, w, h)]  # left
            rect = places[0]
            if dodge:
                others = placed + [d for i, d in discs.items() if i != look.id]
                rect = min(places, key=lambda r: sum(_overlap(r, o) for o in others))
                placed.append(rect)
            out.append((look, rect))
        out.reverse()
        # Which tags lie in each square of the screen, so a repaint of a small
        # area looks at the few tags there, not at every token on the map.
        buckets: dict[tuple[int, int], list[int]] = {}
        for i, (_, rect) in enumerate(out):
            for bx in range(int(rect.left() // _BUCKET), int(rect.right() // _BUCKET) + 1):
                for by in range(int(rect.top() // _BUCKET), int(rect.bottom() // _BUCKET) + 1):
                    buckets.setdefault((bx, by), []).append(i)
        self._cache = (scale, out)
        self._buckets = buckets
        return out

    def _in(self, shown: QRectF) -> list[tuple[TokenLook, QRectF]]:
        """The tags (from the last ``tags`` call) that meet ``shown``, in drawing order."""
        assert self._cache is not None
        out = self._cache[1]
        found: set[int] = set()
        for bx in range(int(shown.left() // _BUCKET), int(shown.right() // _BUCKET) + 1):
            for by in range(int(shown.top() // _BUCKET), int(shown.bottom() // _BUCKET) + 1):
                found.update(self._buckets.get((bx, by), ()))
        return [out[i] for i in sorted(found) if out[i][1].intersects(shown)]

    def _picture(self, look: TokenLook, ratio: float) -> QPixmap:
        """One tag drawn once into a pixmap (a repaint then only blits it)."""
        key = (look.name, look.active, look.down, ratio)
        pix = self._pictures.get(key)
        if pix is not None:
            return pix
        w, h = self.tag_size(look.name)
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
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, look.name)
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
