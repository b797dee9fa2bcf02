"""A map image whose file name carries its grid, ``Crypt [24x18].png``: scaled without aligning.

>>> named_grid("Crypt [24x18].png")
(24, 18)
>>> fitting_scale(2400, 1800, (24, 18))
0.01
"""

from __future__ import annotations

import re

#: ``[24x18]`` (also ``[24 × 18]``, ``[24X18]``) anywhere in the name: columns by rows.
_GRID = re.compile(r"\[\s*(\d{1,5})\s*[x×]\s*(\d{1,5})\s*\]", re.IGNORECASE)
#: The largest grid a name may claim, per side, in cells.
MAX_CELLS = 10_000


def named_grid(name: str) -> tuple[int, int] | None:
    """Columns and rows a file name claims (the last ``[CxR]`` in it), or None."""
    found = _GRID.findall(name)
    if not found:
        return None
    cols, rows = (int(n) for n in found[-1])
    if not (0 < cols <= MAX_CELLS and 0 < rows <= MAX_CELLS):
        return None
    return cols, rows


def fitting_scale(width: int, height: int, grid: tuple[int, int]) -> float | None:
    """Metres per pixel so ``grid`` 1 m cells cover a ``width``×``height`` px image.

    When the image's shape and the grid's differ a little (a margin, a cropped
    edge), the image fits inside the grid on both axes rather than spilling out.
    """
    if width <= 0 or height <= 0:
        return None
    return min(grid[0] / width, grid[1] / height)
