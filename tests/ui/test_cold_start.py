"""Issue 29 item 15: what the first paint does not need comes after it (pyqtgraph with the
first chart, icepool with the first odds, the walls' raster just after the paint)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tacmap.bench import Figure
from tacmap.ui.bench import COLD_FLOOR, COLD_START, _cold

#: Modules the first paint of the demo does not need, each imported when its feature is
#: first used: charts, odds, File ▸ Import/Export, numpy's masked arrays (np.unique asks
#: for them), importlib.resources (a user ruleset's finder), QStyle (a selected log line),
#: the forecast and the autopilot with their worker pools (their first run).
LATER = ("pyqtgraph", "icepool", "tacmap.ui.imports", "tacmap.engine.files.report", "numpy.ma",
         "importlib.resources", "tacmap.engine.play.forecast", "tacmap.engine.play.autopilot",
         "concurrent.futures.process")

SCRIPT = textwrap.dedent("""
    import sys
    from tacmap.engine.rules.ruleset import Registry
    from tacmap.engine.model.commands import StartCombat
    from tacmap.ui.app import open_window
    from tacmap.ui.demos import demo_folder
    from tacmap.ui.qt import QApplication, QEvent, QObject
    import PySide6.QtWidgets

    app, window = open_window(Registry(), None)
    walls = window.session.referee.ruleset.space.walls(window.session.referee.state)

    class Painted(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and not hasattr(self, "seen"):
                self.seen = [m for m in sys.argv[1:] if m in sys.modules]
                if "QStyle" in vars(PySide6.QtWidgets):
                    self.seen.append("QStyle")
                self.raster = walls._blocked_steps is not None
            return False

    painted = Painted()
    window.view.viewport().installEventFilter(painted)
    window.show()
    while not hasattr(painted, "seen"):
        QApplication.processEvents()
    print("imported by the first paint:", painted.seen, "walls ready:", painted.raster)
    QApplication.processEvents()
    print("walls ready after it:", walls._blocked_steps is not None)
    assert window.files.open_demo(demo_folder() / "six_phase_demo.tacmap")
    window.run(StartCombat())
    QApplication.processEvents()
    print("with a timeline:", "pyqtgraph" in sys.modules,
          window.timeline_panel.plot is not None and window.timeline_panel.plot.isVisible())
""")


def test_the_first_paint_waits_for_nothing_it_does_not_draw(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TACMAP_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", SCRIPT, *LATER], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "imported by the first paint: [] walls ready: False" in done.stdout
    assert "walls ready after it: True" in done.stdout
    assert "with a timeline: True True" in done.stdout


def test_the_cold_start_and_its_floor_each_paint_a_window(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TACMAP_HOME=str(tmp_path))
    assert _cold(COLD_START, env) > 0  # the `tacmap` command itself, to its map's first paint
    assert _cold(COLD_FLOOR, env) > 0


def test_a_ratio_figure_is_judged_on_its_median() -> None:
    figure = Figure("cold start ÷ floor", 1.05, 1.4, 1.1, "p50", 1.6, "×")
    assert figure.ok and figure.unit == "×"
    assert not Figure("cold start ÷ floor", 1.2, 1.2, 1.1, "p50", 1.2, "×").ok


def test_work_after_the_first_paint_runs_once_and_only_for_a_widget_still_shown(
        qtbot: object) -> None:
    """The walls' raster waits for the map's first paint; a map closed before it runs
    prepares nothing (its ruleset's cache may hold another window's walls by then)."""
    from tacmap.ui.later import AfterFirstPaint
    from tacmap.ui.qt import QApplication, QWidget

    done: list[str] = []
    kept, closed = QWidget(), QWidget()
    AfterFirstPaint(kept, lambda: done.append("kept"))
    AfterFirstPaint(closed, lambda: done.append("closed"))
    kept.show()
    closed.show()
    assert done == []  # nothing before the paint
    kept.repaint()
    closed.repaint()
    closed.hide()
    QApplication.processEvents()
    kept.repaint()
    QApplication.processEvents()
    assert done == ["kept"]
    kept.close()


def test_a_module_imported_after_qt_is_not_read_again_by_pyside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PySide reads the source of each module imported after it, looking for ``from
    __feature__ import``; tacmap spares its start that reading (16 ms of the demo's)."""
    import inspect

    import tacmap.ui.qt  # noqa: F401  (the Qt binding, loaded as the window loads it)

    (tmp_path / "tacmap_probe_after_qt.py").write_text("ANSWER = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    read: list[str] = []
    source_of = inspect.getsource

    def reading(obj: object) -> str:
        read.append(getattr(obj, "__name__", "?"))
        return source_of(obj)  # type: ignore[arg-type]

    monkeypatch.setattr(inspect, "getsource", reading)
    probe = __import__("tacmap_probe_after_qt")  # an import statement's way in, PySide's hook
    assert probe.ANSWER == 42
    assert "tacmap_probe_after_qt" not in read
