"""``tacmap render``: the map drawn offscreen through the same scene code as the window."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.model.state import Encounter
from tacmap.engine.rules.ruleset import Ruleset
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import (
    QApplication,
    QBuffer,
    QByteArray,
    QColor,
    QImage,
    QIODevice,
    QPainter,
    QRectF,
    Qt,
)

MAX_EDGE = 4096


def offscreen_without_screen() -> None:
    """Pick Qt's offscreen platform when there is no display and the user chose none.

    Without it, Qt on Linux with no DISPLAY or WAYLAND_DISPLAY aborts the process
    (exit 134) while looking for a screen that ``render`` and ``bench`` never use.
    """
    if (sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM")
            and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"


def app() -> QApplication:
    """The running QApplication, made if needed (offscreen when there is no screen)."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    offscreen_without_screen()
    return QApplication([])


def render(state: Encounter, ruleset: Ruleset, out: str | Path, images: Path | None = None,
           player: bool = False, px_per_cell: float = 40.0,
           image_format: str = "PNG") -> tuple[int, int]:
    """Draw the whole map to an image (PNG, JPEG or WEBP); returns its size in pixels."""
    image, problems = draw(state, ruleset, images, player, px_per_cell)
    if image_format == "JPEG":  # JPEG has no alpha: flatten on the same paper colour
        image = image.convertToFormat(QImage.Format.Format_RGB32)
    quality = -1 if image_format == "PNG" else 92  # Qt's PNG default; near-lossless others
    # Encoded in memory, then written whole: a full disk or a killed process leaves the
    # old OUT as it was, never a truncated image (nor libpng's own error line).
    storage.write_atomic(out, encoded(image, image_format, quality))
    for problem in problems:  # an image not drawn is named, as the window names it
        print(f"tacmap: {problem}", file=sys.stderr)
    return image.width(), image.height()


def encoded(image: QImage, image_format: str = "PNG", quality: int = -1) -> bytes:
    """``image`` as the bytes of a PNG, JPEG or WEBP file."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The stubs ask for bytes, the binding accepts only str: trust the binding.
    saved = image.save(buffer, image_format, quality)  # type: ignore[call-overload]
    buffer.close()
    if not saved:
        raise OSError(errno.EINVAL, f"Qt could not encode the {image_format} image")
    return bytes(data.data())


def draw(state: Encounter, ruleset: Ruleset, images: Path | None = None, player: bool = False,
         px_per_cell: float = 40.0, max_edge: int = MAX_EDGE) -> tuple[QImage, list[str]]:
    """The whole map drawn to an image, and the images it could not draw (as sentences)."""
    app()
    scene = MapScene(state, ruleset, images, player)
    scene.set_overview(px_per_cell < 7)
    rect = scene.sceneRect()
    scale = min(px_per_cell / CELL, max_edge / max(rect.width(), rect.height()))
    scene.set_overview(scale * CELL < 7)
    w, h = max(1, round(rect.width() * scale)), max(1, round(rect.height() * scale))
    image = QImage(w, h, QImage.Format.Format_ARGB32)
    image.fill(QColor("#ece6d6"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
    scene.render(painter, QRectF(0, 0, w, h), rect, Qt.AspectRatioMode.KeepAspectRatio)
    painter.end()
    return image, list(scene.problems)
