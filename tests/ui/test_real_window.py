"""Smoke test: the real window opens under Xvfb (the xcb platform) and draws the map.

Screenshots land in $TACMAP_SHOTS (default: the test's temporary folder) so a
person can look at them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tacmap.engine.files import storage
from tests.conftest import TEST_RULESETS
from tests.engine.helpers import skirmish_state

CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from tacmap.engine.rules.ruleset import Registry
    from tacmap.ui.app import open_window
    from tacmap.ui.qt import QApplication, QTimer

    file, shot = Path(sys.argv[1]), sys.argv[2]
    registry = Registry([sys.argv[3]], warn=lambda m: None)
    app, window = open_window(registry, file)
    window.resize(1200, 800)
    window.show()

    def snap():
        try:
            window.view.fit()
            QApplication.processEvents()
            image = QApplication.primaryScreen().grabWindow(0)
            image.save(shot)
            print(QApplication.platformName(), image.width(), image.height(),
                  len(window.scene.items_by_id))
            print("redo:", "|".join(k.toString() for k in window.redo_action.shortcuts()))
        finally:
            app.quit()

    QTimer.singleShot(800, snap)
    sys.exit(app.exec())
""")


def test_the_real_window_opens_and_draws(xvfb: str, tmp_path: Path,
                                         tacmap_home: Path) -> None:
    path = tmp_path / "fight.tacmap"
    storage.save(path, skirmish_state(), [])
    shots = Path(os.environ.get("TACMAP_SHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / "real-window.png"
    env = dict(os.environ, DISPLAY=xvfb, QT_QPA_PLATFORM="xcb", TACMAP_HOME=str(tacmap_home))
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(shot), str(TEST_RULESETS)],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    drawn, keys = done.stdout.splitlines()[-2:]
    platform, width, height, tokens = drawn.split()
    assert platform == "xcb" and int(width) == 1280 and int(height) == 900
    assert int(tokens) == 4
    # xcb gives Redo Ctrl+Shift+Z only (offscreen adds Ctrl+Y): the window adds Ctrl+Y.
    assert {"Ctrl+Shift+Z", "Ctrl+Y"} <= set(keys.removeprefix("redo: ").split("|"))
    assert shot.stat().st_size > 10_000  # a real picture, not a blank screen
