"""Regression: PySide6 6.12.0 on CPython 3.11 kills the process after a few thousand paints.

The binding drops a reference to None on every Python-overridden virtual call
that receives None (``QGraphicsItem.paint(painter, option, widget=None)``),
until CPython aborts with ``Fatal Python error: none_dealloc``. pyproject.toml
keeps 3.11 on PySide6 < 6.12; this test paints 100,000 times in a child
process (so a crash fails the test instead of killing the run) and checks that
``sys.getrefcount(None)`` does not fall.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

PAINTS = 100_000

CHILD = textwrap.dedent("""
    import sys
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsScene
    import pyqtgraph as pg

    app = QApplication([])
    painted = 0

    class Token(QGraphicsItem):
        def boundingRect(self):
            return QRectF(0, 0, 10, 10)

        def paint(self, painter, option, widget=None):
            global painted
            painted += 1

    scene = QGraphicsScene(0, 0, 500, 500)
    for i in range(2000):
        item = Token()
        item.setPos((i % 50) * 10, (i // 50) * 10)
        scene.addItem(item)
    # pyqtgraph's own items take the same path (paint with widget=None).
    scene.addItem(pg.ScatterPlotItem(x=[1, 2, 3], y=[1, 2, 3]))
    image = QImage(500, 500, QImage.Format.Format_ARGB32)
    before = sys.getrefcount(None)
    while painted < {paints}:
        painter = QPainter(image)
        scene.render(painter)
        painter.end()
    after = sys.getrefcount(None)
    print(painted, before, after)
""").replace("{paints}", str(PAINTS))


def test_100k_python_paints_survive_and_keep_none_alive() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          env=env, timeout=600, check=False)
    assert done.returncode == 0, f"the painting process died: {done.stderr[-2000:]}"
    painted, before, after = (int(v) for v in done.stdout.split())
    assert painted >= PAINTS
    # Each leaked reference would lower the count by one per paint; allow a little noise.
    assert after >= before - 100, f"None lost {before - after} references over {painted} paints"


def test_the_installed_pyside6_is_a_safe_combination() -> None:
    import PySide6

    version = tuple(int(p) for p in PySide6.__version__.split(".")[:2])
    if sys.version_info < (3, 12):
        assert version < (6, 12), (
            f"PySide6 {PySide6.__version__} on Python {sys.version.split()[0]} crashes "
            "(none_dealloc); pyproject.toml pins <6.12 for Python 3.11")
