"""Issue 29 item 15: pyqtgraph and icepool come with the first chart and odds, not sooner."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tacmap.bench import Figure
from tacmap.ui.bench import COLD_FLOOR, _cold

SCRIPT = textwrap.dedent("""
    import sys
    from tacmap.engine.ruleset import Registry
    from tacmap.engine.commands import StartCombat
    from tacmap.ui.app import open_window
    from tacmap.ui.demos import demo_folder
    from tacmap.ui.qt import QApplication

    app, window = open_window(Registry(), None)
    window.show()
    window.view.viewport().repaint()
    QApplication.processEvents()
    print("after the first paint:", "pyqtgraph" in sys.modules or "icepool" in sys.modules)
    assert window.files.open_demo(demo_folder() / "six_phase_demo.tacmap")
    window.run(StartCombat())
    QApplication.processEvents()
    print("with a timeline:", "pyqtgraph" in sys.modules,
          window.timeline_panel.plot is not None and window.timeline_panel.plot.isVisible())
""")


def test_the_first_paint_imports_neither_pyqtgraph_nor_icepool(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TACMAP_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "after the first paint: False" in done.stdout
    assert "with a timeline: True True" in done.stdout


def test_the_floor_of_the_cold_start_paints_a_window(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TACMAP_HOME=str(tmp_path))
    assert _cold(COLD_FLOOR, env) > 0


def test_a_ratio_figure_is_judged_on_its_median() -> None:
    figure = Figure("cold start ÷ floor", 1.05, 1.4, 1.1, "p50", 1.6, "×")
    assert figure.ok and figure.unit == "×"
    assert not Figure("cold start ÷ floor", 1.2, 1.2, 1.1, "p50", 1.2, "×").ok
