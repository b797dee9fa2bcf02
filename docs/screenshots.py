"""Make the pictures of the README and the manual from the shipped demos, offscreen.

    python docs/screenshots.py [OUT_DIR]        # default: docs/manual/images

Run it after a change to the window: the pictures are of the real window, drawn by Qt's
offscreen platform at 1920×1080 (no screen needed), on the action_pool demo. The fight
report's picture needs Chromium (``apt-get install chromium``); without it that one
picture is left as it was, and the script says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

#: The offscreen platform's one screen, as big as the window, so the odds card and the player
#: view are placed as on a real one (its default screen is 800×800).
SCREEN = ('{"screens": [{"name": "shot", "x": 0, "y": 0, "width": 1920, "height": 1080, '
          '"logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}')
#: The window's size in every picture: a common monitor's, the one the layout is judged at.
SIZE = (1920, 1080)
#: Seconds the forecast may take to play its fights before the picture is taken anyway.
FORECAST_WAIT = 120


def main(argv: list[str]) -> int:
    """Write window.png, odds-card.png, player-view.png, forecast-dock.png, report.png."""
    out = Path(argv[0]) if argv else Path(__file__).resolve().parent / "manual" / "images"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        os.environ["TACMAP_HOME"] = str(Path(work) / "home")  # no settings of yours used
        screen = Path(work) / "screen.json"
        screen.write_text(SCREEN, encoding="utf-8")
        os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen}"
        _window_pictures(Path(work), out)
        _report_picture(Path(work), out)
    return 0


def _window_pictures(work: Path, out: Path) -> None:
    from tacmap.engine.model.commands import EndTurn, Move, StartCombat
    from tacmap.engine.rules.ruleset import Registry
    from tacmap.ui.demos import demo_path
    from tacmap.ui.qt import QApplication, QPainter, QPoint, QWidget
    from tacmap.ui.session import Session
    from tacmap.ui.window import MainWindow

    app = QApplication.instance() or QApplication(["tacmap"])
    registry = Registry(())
    path = work / "demo.tacmap"
    shutil.copy(demo_path(), path)
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=lambda text: None)
    win.resize(*SIZE)
    win.show()
    settle(app)

    def save(widget: QWidget, name: str, over: QWidget | None = None) -> None:
        picture = widget.grab()
        if over is not None:  # a window of its own (the odds card) drawn where it stands
            painter = QPainter(picture)
            painter.drawPixmap(widget.mapFromGlobal(over.mapToGlobal(QPoint(0, 0))),
                               over.grab())
            painter.end()
        picture.save(str(out / name))
        print(f"{out / name}: {picture.width()}×{picture.height()}")

    # Ser Aldric walks to the gate; then it is Barry's turn, and he is selected.
    for command in (StartCombat(), Move("aldric", ((13, 9),)), EndTurn()):
        if not win.run(command):
            raise SystemExit(f"the demo refused {command}: has it changed?")
    win.select("barry")
    settle(app)
    save(win, "window.png")
    win.token_clicked("aldric")  # Barry aims at Ser Aldric: the odds card
    settle(app)
    card = win.odds_card
    if card is None:
        raise SystemExit("no odds card: has the demo changed?")
    save(win, "odds-card.png", card)
    card.reject()
    settle(app)
    win.show_player_view()
    player = win.player
    if player is None:
        raise SystemExit("no player view opened")
    player.showNormal()
    player.resize(*SIZE)
    settle(app)
    save(player, "player-view.png")
    player.close()
    win.forecast.open()
    panel = win.forecast.panel
    wait(app, lambda: not panel.busy())
    settle(app)
    save(win, "forecast-dock.png")
    win.close()
    settle(app)


def _report_picture(work: Path, out: Path) -> None:
    """The players' report of the demo's two scripted rounds, as Chromium draws it."""
    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser",
                                                   "google-chrome"))), None)
    if browser is None:
        print("report.png: left as it was (no Chromium: apt-get install chromium)")
        return
    from tacmap.ui.demos import demo_path

    tacmap = [sys.executable, "-m", "tacmap"]
    played, page = work / "played.tacmap", work / "report.html"
    script = demo_path().with_name("demo-two-rounds.jsonl")
    subprocess.run([*tacmap, "play", str(demo_path()), "--script", str(script), "--out",
                    str(played)], check=True, capture_output=True)
    subprocess.run([*tacmap, "report", str(played), str(page)], check=True,
                   capture_output=True)
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--no-first-run", "--disable-background-networking",
                    f"--user-data-dir={work / 'browser'}", "--window-size=1200,1500",
                    f"--screenshot={out / 'report.png'}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    print(f"{out / 'report.png'}: 1200×1500")


def settle(app: object, seconds: float = 0.5) -> None:
    """Let the window lay itself out and paint (timers included)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.02)


def wait(app: object, done: Callable[[], bool]) -> None:
    """Process events until ``done()`` (or ``FORECAST_WAIT`` seconds)."""
    end = time.monotonic() + FORECAST_WAIT
    while not done() and time.monotonic() < end:
        settle(app, 0.1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
