"""Images an encounter names, decoded within bounds and once each.

A small file can name a picture that decodes to gigabytes (a 10 kB PNG of
8000×8000 pixels is 256 MB in memory). Every image is therefore measured from
its header before it is decoded, refused past a pixel limit (64 megapixels for
the map image, 1 megapixel for a portrait), and Qt's own image-reader
allocation limit stops anything the header lies about. Each distinct image
(file or ``data:`` URI) is decoded once per cache.
"""

from __future__ import annotations

import base64
import urllib.parse
from pathlib import Path

from tacmap.ui.qt import QBuffer, QByteArray, QImage, QImageReader, QIODevice, QPixmap

#: Largest map image, in pixels (64 megapixels).
MAP_PIXELS = 64_000_000
#: Largest portrait, in pixels (1 megapixel).
PORTRAIT_PIXELS = 1_000_000
#: Qt's image-reader allocation limit, in MB: a 64-megapixel image at 4 bytes a pixel fits.
ALLOCATION_MB = 256


def limit_allocation() -> None:
    """Set Qt's image-reader allocation limit (process-wide; cheap to repeat)."""
    QImageReader.setAllocationLimit(ALLOCATION_MB)


def image_bytes(uri: str) -> bytes:
    """The bytes of a ``data:`` URI (empty when it does not decode)."""
    head, _, body = uri.partition(",")
    try:
        return (base64.b64decode(body, validate=True) if head.endswith(";base64")
                else urllib.parse.unquote_to_bytes(body))
    except ValueError:
        return b""


def describe(name: str) -> str:
    """How the GM is told which image: its file name, or "an embedded image"."""
    return "an embedded image" if name.startswith("data:") else name


def megapixels(pixels: int) -> str:
    """``64 megapixel`` (as in "the 64 megapixel limit")."""
    return f"{pixels / 1_000_000:g} megapixel"


class ImageCache:
    """Decoded images by name, each decoded once; refusals kept as sentences."""

    def __init__(self) -> None:
        self._pixmaps: dict[tuple[str, str, int], QPixmap] = {}
        #: Why each image that could not be drawn was not, by cache key.
        self.problems: dict[tuple[str, str, int], str] = {}

    def get(self, name: str | None, folder: Path | None, max_pixels: int,
            what: str | None = None) -> QPixmap:
        """The image ``name`` (a file in ``folder`` or a ``data:`` URI), empty if refused.

        ``what`` names it for the GM ("the portrait of Barry"); a refusal or an
        unreadable image is kept in ``problems`` as one sentence.
        """
        if not name or (folder is None and not name.startswith("data:")):
            return QPixmap()
        key = (name, "" if name.startswith("data:") else str(folder), max_pixels)
        cached = self._pixmaps.get(key)
        if cached is not None:
            return cached
        label = what or describe(name)
        image, problem = decode(name, folder, max_pixels, label)
        pix = QPixmap() if image.isNull() else QPixmap.fromImage(image)
        self._pixmaps[key] = pix
        if problem:
            self.problems[key] = problem
        return pix

    def messages(self) -> list[str]:
        """The sentences for images not drawn, in a stable order."""
        return sorted(set(self.problems.values()))


def decode(name: str, folder: Path | None, max_pixels: int,
           label: str) -> tuple[QImage, str | None]:
    """Decode one image within ``max_pixels``; an empty image and a sentence if not."""
    limit_allocation()
    buffer: QBuffer | None = None
    if name.startswith("data:"):
        buffer = QBuffer()
        buffer.setData(QByteArray(image_bytes(name)))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        reader = QImageReader(buffer)
    else:
        assert folder is not None
        reader = QImageReader(str(folder / name))
    size = reader.size()
    if size.isValid() and size.width() * size.height() > max_pixels:
        return QImage(), (f"{label} is {size.width()}×{size.height()} pixels, over the "
                          f"{megapixels(max_pixels)} limit: drawn without it")
    image = reader.read()
    if buffer is not None:
        buffer.close()
    if image.isNull():
        return image, f"could not read {label}: drawn without it"
    if image.width() * image.height() > max_pixels:  # a header that lied about its size
        return QImage(), (f"{label} is {image.width()}×{image.height()} pixels, over the "
                          f"{megapixels(max_pixels)} limit: drawn without it")
    return image, None
