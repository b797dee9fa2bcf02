"""The manual's pictures are made by docs/screenshots.py from the shipped demos (issue 40
item 2): the script runs offscreen and draws every picture the README and manual show."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tacmap.ui.qt import QImage

ROOT = Path(__file__).resolve().parents[2]


def test_the_script_draws_every_picture_the_readme_and_the_manual_show(tmp_path: Path) -> None:
    shown = set()
    for page in (ROOT / "README.md", *(ROOT / "docs" / "manual").glob("*.md")):
        shown |= set(re.findall(r"images/([\w-]+\.png)\)", page.read_text("utf-8")))
    assert {"window.png", "odds-card.png", "player-view.png", "forecast-dock.png",
            "report.png"} <= shown
    env = {k: v for k, v in os.environ.items() if k != "TACMAP_HOME"}
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "screenshots.py"),
                           str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    made = {p.name for p in tmp_path.glob("*.png")}
    window_shots = {"window.png", "odds-card.png", "player-view.png", "forecast-dock.png"}
    assert window_shots <= made
    assert shown - made <= {"report.png"}  # that one needs Chromium, and says so
    for name in window_shots:
        image = QImage(str(tmp_path / name))
        assert (image.width(), image.height()) == (1920, 1080), name
    # The odds card is drawn into its picture: it differs from the window without it.
    assert QImage(str(tmp_path / "window.png")) != QImage(str(tmp_path / "odds-card.png"))
