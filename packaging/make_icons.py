"""Render resources/icons/tacmap.svg to every icon file the packages use.

    python packaging/make_icons.py

writes resources/icons/tacmap-<N>.png (16 … 256 px: the wheel, the window, the
.deb's hicolor theme), packaging/windows/tacmap.ico and packaging/macos/tacmap.icns
(for the PyInstaller spec on those systems). Uses Qt's own SVG renderer (QtSvg ships
in PySide6-Essentials), so it needs nothing beyond tacmap's dependencies, and runs
without a screen. The outputs are committed; run this after changing the SVG.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parents[1]
ICONS = ROOT / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256)
#: ICNS entry types holding PNG data, by pixel size (the @2x ones share sizes).
ICNS_TYPES = ((b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256),
              (b"ic09", 512), (b"ic11", 32), (b"ic12", 64), (b"ic13", 256), (b"ic14", 512))


def render(svg: Path, size: int) -> QImage:
    """The SVG drawn into a transparent ``size`` × ``size`` image."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
    renderer.render(painter)
    painter.end()
    return image


def png(image: QImage) -> bytes:
    """The image as PNG bytes."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise SystemExit("cannot encode a PNG")
    buffer.close()
    return bytes(data.data())


def ico(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico whose entries are PNGs (read by Windows Vista and later)."""
    head = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(head) + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, data in sorted(pngs.items()):
        edge = 0 if size >= 256 else size  # 0 means 256
        entries += struct.pack("<BBBBHHII", edge, edge, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    return head + entries + blobs


def icns(pngs: dict[int, bytes]) -> bytes:
    """A macOS .icns whose entries are PNGs (read by macOS 10.7 and later)."""
    body = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
                    for kind, size in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    app = QGuiApplication(sys.argv[:1])  # noqa: F841 (QPainter needs an application)
    svg = ICONS / "tacmap.svg"
    pngs = {size: png(render(svg, size)) for size in (*SIZES, 512)}
    outputs = {ICONS / f"tacmap-{size}.png": pngs[size] for size in SIZES}
    outputs[ROOT / "packaging" / "windows" / "tacmap.ico"] = ico(
        {size: pngs[size] for size in SIZES})
    outputs[ROOT / "packaging" / "macos" / "tacmap.icns"] = icns(pngs)
    for path, data in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
