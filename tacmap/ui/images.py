"""Images an encounter names, decoded within bounds and once each.

A small file can name a picture that costs gigabytes or minutes to decode (a
10 kB PNG of 8000×8000 pixels is 256 MB in memory; an 8 kB SVG of nested
``<use>`` elements renders for minutes). So:

- A map or a portrait is PNG, JPEG or WebP, told by its first bytes; anything
  else (SVG, GIF, PDF, TIFF, BMP...) is refused before any decoder sees it, and
  the one decoder of the format it claims is the only one tried.
- A file is read only when it is a regular file whose real path (links
  followed) is inside the encounter's image folder; a named pipe or a link that
  leads out is refused in a sentence, never opened or waited on.
- Every image is measured from its header before it is decoded, refused past a
  pixel limit (64 megapixels for the map image, 1 megapixel for a portrait),
  and Qt's own image-reader allocation limit stops anything the header lies about.
- A portrait is decoded at the size it is drawn (at most ``PORTRAIT_EDGE``
  pixels a side). The portraits of one encounter share two budgets: what is
  kept decoded (``PORTRAIT_BUDGET`` pixels, memory) and what is decoded from
  (``PORTRAIT_WORK`` source pixels, time); past either, a token is drawn plain,
  said once.
- Each distinct image (file or ``data:`` URI) is decoded once per cache, and
  only the latest map image is kept.
"""

from __future__ import annotations

import base64
import os
import stat
import urllib.parse
from pathlib import Path

from tacmap.engine.files.storage import file_kind, real_inside
from tacmap.ui.qt import (
    QBuffer,
    QByteArray,
    QFile,
    QFileDevice,
    QImage,
    QImageReader,
    QIODevice,
    QPixmap,
    QSize,
    Qt,
)

#: Largest map image, in pixels (64 megapixels).
MAP_PIXELS = 64_000_000
#: Largest portrait, in pixels (1 megapixel).
PORTRAIT_PIXELS = 1_000_000
#: Qt's image-reader allocation limit, in MB: a 64-megapixel image at 4 bytes a pixel fits.
ALLOCATION_MB = 256
#: A portrait is decoded to fit in this many pixels a side: a one-cell token is
#: 48 px at 100 % zoom, so 128 stays sharp to about 270 % (or 130 % on a 2× screen).
PORTRAIT_EDGE = 128
#: Decoded portraits of one encounter, in pixels: 1,024 full-size portraits, 64 MB.
PORTRAIT_BUDGET = 1024 * PORTRAIT_EDGE * PORTRAIT_EDGE
#: Source pixels decoded for the portraits of one encounter (256 megapixels): the
#: decoding time, a few seconds, e.g. 1,024 portraits of 500×500 or 256 of 1000×1000.
PORTRAIT_WORK = 256_000_000
#: The formats a map or a portrait may be: Qt's reader name, and the GM's name for it.
FORMATS = {b"png": "PNG", b"jpeg": "JPEG", b"webp": "WebP"}
#: The budget's refusal is kept under this key, so it is said once.
_BUDGET_KEY = ("", "portrait budget", 0)
#: Enough of a file's start to tell its format.
_HEAD = 64


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


def image_format(head: bytes) -> bytes | None:
    """The accepted format (a key of ``FORMATS``) that ``head`` starts as, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return b"png"
    if head.startswith(b"\xff\xd8\xff"):
        return b"jpeg"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return b"webp"
    return None


def format_name(head: bytes) -> str:
    """What a refused image is, as the GM is told ("an SVG drawing", "a GIF image")."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"<?xml", b"<svg", b"<!doctype svg", b"<!--")) or b"<svg" in text:
        return "an SVG drawing"
    if head.startswith(b"\x1f\x8b"):
        return "a compressed file (SVGZ or gzip)"
    for magic, name in ((b"GIF8", "a GIF image"), (b"%PDF", "a PDF document"),
                        (b"II*\x00", "a TIFF image"), (b"MM\x00*", "a TIFF image"),
                        (b"BM", "a BMP image"), (b"\x00\x00\x01\x00", "an icon file"),
                        (b"icns", "an icon file")):
        if head.startswith(magic):
            return name
    return "not an image tacmap knows" if head else "empty"


def refused_format(label: str, head: bytes) -> str:
    """The sentence for an image that is not PNG, JPEG or WebP."""
    return (f"{label} is {format_name(head)}; a map or a portrait must be PNG, JPEG or "
            f"WebP: drawn without it")


class ImageCache:
    """Decoded images by name, each decoded once; refusals kept as sentences."""

    def __init__(self) -> None:
        self._pixmaps: dict[tuple[str, str, int], QPixmap] = {}
        #: Why each image that could not be drawn was not, by cache key.
        self.problems: dict[tuple[str, str, int], str] = {}
        #: Pixels of the portraits kept decoded (bounded by ``PORTRAIT_BUDGET``).
        self.portrait_pixels = 0
        #: Source pixels of the portraits decoded so far (bounded by ``PORTRAIT_WORK``).
        self.portrait_work = 0
        self._maps: list[tuple[str, str, int]] = []

    def get(self, name: str | None, folder: Path | None, max_pixels: int,
            what: str | None = None, edge: int | None = None) -> QPixmap:
        """The image ``name`` (a file in ``folder`` or a ``data:`` URI), empty if refused.

        ``what`` names it for the GM ("the portrait of Barry"); a refusal or an
        unreadable image is kept in ``problems`` as one sentence. With ``edge``
        it is a portrait: decoded to fit ``edge``×``edge`` and counted against
        the portrait budget; without, it is the map image, and the one before it
        is let go.
        """
        if not name or (folder is None and not name.startswith("data:")):
            return QPixmap()
        key = (name, "" if name.startswith("data:") else str(folder), max_pixels)
        cached = self._pixmaps.get(key)
        if cached is not None:
            return cached
        label = what or describe(name)
        if edge is not None and (self.portrait_pixels + edge * edge > PORTRAIT_BUDGET
                                 or self.portrait_work >= PORTRAIT_WORK):
            # Past a budget nothing more is decoded: memory and time both stop growing.
            self.problems[_BUDGET_KEY] = (
                f"there are more portraits than tacmap decodes for one encounter (at most "
                f"{PORTRAIT_BUDGET // (edge * edge):,} kept, from at most "
                f"{megapixels(PORTRAIT_WORK)}s of images): the tokens past them are drawn "
                f"without their portrait")
            self._pixmaps[key] = QPixmap()
            return self._pixmaps[key]
        image, problem, source = decode(name, folder, max_pixels, label, edge)
        pix = QPixmap() if image.isNull() else QPixmap.fromImage(image)
        if edge is None:
            self._forget_maps()
            self._maps.append(key)
        else:
            self.portrait_pixels += pix.width() * pix.height()
            self.portrait_work += source
        self._pixmaps[key] = pix
        if problem:
            self.problems[key] = problem
        return pix

    def _forget_maps(self) -> None:
        # A map image may be 256 MB decoded: one changed for another must not stay.
        for key in self._maps:
            self._pixmaps.pop(key, None)
            self.problems.pop(key, None)
        self._maps.clear()

    def messages(self) -> list[str]:
        """The sentences for images not drawn, in a stable order."""
        return sorted(set(self.problems.values()))


#: A decoded image, or an empty one and why; and the source pixels the decoder went through.
Decoded = tuple[QImage, str | None, int]


def decode(name: str, folder: Path | None, max_pixels: int, label: str,
           edge: int | None = None) -> Decoded:
    """Decode one image within ``max_pixels`` (to fit ``edge`` a side if given);
    an empty image and a sentence if not."""
    limit_allocation()
    if name.startswith("data:"):
        data = image_bytes(name)
        buffer = QBuffer()
        buffer.setData(QByteArray(data))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        try:
            return read(buffer, data[:_HEAD], max_pixels, label, edge)
        finally:
            buffer.close()
    assert folder is not None
    fd, problem = open_image(folder, name, label)
    if fd is None:
        return QImage(), problem, 0
    file = QFile()
    try:
        head = os.read(fd, _HEAD)
        os.lseek(fd, 0, os.SEEK_SET)
        if not file.open(fd, QIODevice.OpenModeFlag.ReadOnly,
                         QFileDevice.FileHandleFlag.DontCloseHandle):
            return QImage(), f"could not read {label}: drawn without it", 0
        return read(file, head, max_pixels, label, edge)
    except OSError:
        return QImage(), f"could not read {label}: drawn without it", 0
    finally:
        file.close()
        os.close(fd)


def open_image(folder: Path, name: str, label: str) -> tuple[int | None, str | None]:
    """A read-only descriptor on the image file, or None and a sentence.

    Only a regular file whose real path is inside the real image folder is
    opened, and without blocking: a named pipe would wait forever for a writer.
    """
    try:
        real = real_inside(folder, name)
    except (OSError, RuntimeError):  # missing, or a loop of links
        return None, f"could not read {label}: drawn without it"
    if real is None:
        return None, (f"{label} leads outside the encounter's image folder (through a "
                      f"link): drawn without it")
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        # Stat first: opening some devices has effects, even without blocking.
        mode = os.stat(real).st_mode
        if not stat.S_ISREG(mode):
            return None, f"{label} is {file_kind(mode)}, not a file: drawn without it"
        fd = os.open(real, flags)
    except OSError:
        return None, f"could not read {label}: drawn without it"
    mode = os.fstat(fd).st_mode  # what was opened, should the name have been swapped since
    if not stat.S_ISREG(mode):
        os.close(fd)
        return None, f"{label} is {file_kind(mode)}, not a file: drawn without it"
    return fd, None


def read(device: QIODevice, head: bytes, max_pixels: int, label: str,
         edge: int | None = None) -> Decoded:
    """Decode an image of an accepted format from ``device`` (``head`` is its start)."""
    fmt = image_format(head)
    if fmt is None:
        return QImage(), refused_format(label, head), 0
    reader = QImageReader(device, QByteArray(fmt))
    # Only the decoder of the format the bytes claim: never one chosen by probing.
    reader.setAutoDetectImageFormat(False)
    reader.setDecideFormatFromContent(False)
    size = reader.size()
    if size.isValid() and size.width() * size.height() > max_pixels:
        return QImage(), too_large(label, size.width(), size.height(), max_pixels), 0
    if edge is not None and size.isValid() and (size.width() > edge or size.height() > edge):
        small = size.scaled(edge, edge, Qt.AspectRatioMode.KeepAspectRatio)
        reader.setScaledSize(QSize(max(1, small.width()), max(1, small.height())))
    image = reader.read()
    # Without a size in the header, the decoder may have worked up to the limit.
    work = size.width() * size.height() if size.isValid() else max_pixels
    if image.isNull():
        return image, f"could not read {label}: drawn without it", work
    if edge is not None and (image.width() > edge or image.height() > edge):
        # The header told no size: scale the decoded image, and keep only the small one.
        if image.width() * image.height() > max_pixels:
            return QImage(), too_large(label, image.width(), image.height(), max_pixels), work
        image = image.scaled(edge, edge, Qt.AspectRatioMode.KeepAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
    elif image.width() * image.height() > max_pixels:  # a header that lied about its size
        return QImage(), too_large(label, image.width(), image.height(), max_pixels), work
    return image, None, work


def too_large(label: str, width: int, height: int, max_pixels: int) -> str:
    """The sentence for an image over its pixel limit."""
    return (f"{label} is {width}×{height} pixels, over the {megapixels(max_pixels)} limit: "
            f"drawn without it")
