"""Files dragged from the desktop onto tacmap: which are taken, and a named grid's scale."""

from __future__ import annotations

from pathlib import Path

from tacmap.engine.files.map_image import fitting_scale, named_grid
from tacmap.ui.qt import QImageReader, QMimeData

#: An encounter file: dropped anywhere on the window, it is opened.
ENCOUNTER = ".tacmap"
#: Pictures: on the map they become its image, on a token its portrait.
PICTURES = (".png", ".jpg", ".jpeg", ".webp")


def dropped_files(data: QMimeData) -> list[Path]:
    """The local encounter files and pictures a drag carries (others are not taken)."""
    if not data.hasUrls():
        return []
    paths = [Path(url.toLocalFile()) for url in data.urls() if url.isLocalFile()]
    return [p for p in paths if p.suffix.lower() in (ENCOUNTER, *PICTURES)]


def named_scale(path: Path) -> float | None:
    """Metres per pixel for a picture whose name carries its grid (``Crypt [24x18].png``).

    None when the name claims no grid or the picture's size cannot be read.
    """
    grid = named_grid(path.name)
    if grid is None:
        return None
    size = QImageReader(str(path)).size()  # the header only: nothing is decoded
    return fitting_scale(size.width(), size.height(), grid)
