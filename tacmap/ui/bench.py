"""The map figures of DESIGN §7, measured through the real scene and view (offscreen)."""

from __future__ import annotations

import contextlib
import copy
import gc
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tacmap.bench import Measure, p95, time_runs
from tacmap.engine.files import storage
from tacmap.engine.model.commands import StartCombat
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import Encounter
from tacmap.engine.play.referee import Entry
from tacmap.engine.rules.ruleset import Registry, Ruleset

if TYPE_CHECKING:  # Qt is imported only when the map figures run
    from tacmap.engine.model.state import Token
    from tacmap.ui.map.scene import MapScene
    from tacmap.ui.map.view import MapView
    from tacmap.ui.player import PlayerView
    from tacmap.ui.session import Session

#: Both cold-start scripts quit at the first paint of the widget a ``FirstPaint`` watches.
_FIRST_PAINT = """
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            QApplication.instance().quit()
        return False
"""

#: The ``tacmap`` command as the GM types it (no file: the demo), from the launch of a
#: fresh Python to the first paint of the map; prints the seconds since ``t0``.
COLD_START = textwrap.dedent("""
    import time, sys
    t0 = float(sys.argv[1])
    del sys.argv[1:]
    from tacmap.cli import main
    from tacmap.ui import app as start
    from tacmap.ui.qt import QApplication, QEvent, QObject
""") + _FIRST_PAINT + textwrap.dedent("""
    opened = start.open_window

    def open_window(*args):
        app, window = opened(*args)
        window.first_paint = FirstPaint()
        window.view.viewport().installEventFilter(window.first_paint)
        return app, window

    start.open_window = open_window
    main()
    print(time.time() - t0)
""")

#: The floor of the cold start (issue 40 item 11): the libraries tacmap loads before its
#: first paint (Qt, shapely, msgspec) imported and an empty map view in a main window
#: painted once, nothing of tacmap's. pyqtgraph is not in it: tacmap imports it with the
#: first chart, so a floor that loaded it (issue 29's) hid 200 ms of tacmap's own start.
COLD_FLOOR = textwrap.dedent("""
    import time, sys
    t0 = float(sys.argv[1])
    import msgspec, shapely
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication, QGraphicsScene, QGraphicsView, QMainWindow
""") + _FIRST_PAINT + textwrap.dedent("""
    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    view = QGraphicsView(QGraphicsScene(0, 0, 1200, 800))
    window.setCentralWidget(view)
    watcher = FirstPaint()
    view.viewport().installEventFilter(watcher)
    window.show()
    app.exec()
    print(time.time() - t0)
""")
#: What the figures' names say the floor is.
FLOOR_IS = "Qt window, shapely and msgspec imported, first paint"
#: Milliseconds tacmap's own start may add to its libraries' floor (issue 40 item 11).
OWN_START = 100.0


def _started(state: Encounter, ruleset: Ruleset) -> None:
    from tacmap.engine.play.referee import Referee

    # A ruleset that starts combat differently draws the same map all the same.
    with contextlib.suppress(RuleError):
        Referee(state, ruleset).execute(StartCombat(tuple(state.tokens)[:50]))


def long_log(registry: Registry, entries: int = 50_000) -> tuple[Encounter, list[Entry]]:
    """The demo encounter and a log of ``entries`` real entries (moves, attacks with their
    rolls and reactions, turns ending, GM changes): one short fight, played and repeated."""
    from tacmap.engine.model.commands import Attack, EndTurn, FreeMove, SetHp
    from tacmap.engine.play.referee import Referee
    from tacmap.ui.demos import demo_path

    state = storage.load(demo_path(), registry).state
    referee = Referee(state, registry.get(state.ruleset))
    referee.execute(StartCombat())
    referee.execute(FreeMove("aldric", (13, 9)))
    for _ in range(6):
        for cmd in (Attack("aldric", "barry"), EndTurn(), Attack("barry", "aldric"), EndTurn(),
                    SetHp("barry", 34), SetHp("aldric", 28)):
            with contextlib.suppress(RuleError):
                referee.execute(cmd)
        while getattr(referee.state.schedule, "current", "aldric") != "aldric":
            referee.execute(EndTurn())
    played = referee.log
    return referee.state, [played[i % len(played)] for i in range(entries)]


def run(registry: Registry, ruleset: Ruleset, big: Callable[..., Encounter], quick: bool,
        measure: Measure) -> None:
    """Measure the map figures and hand each to ``measure(name, samples, budget, on)``."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from tacmap.engine.play.referee import Referee
    from tacmap.ui.map.scene import MapScene
    from tacmap.ui.map.token_item import CELL
    from tacmap.ui.map.view import MapView
    from tacmap.ui.qt import QApplication, QPointF
    from tacmap.ui.render import app

    app()
    reps = 30 if quick else 200

    # Repaint while dragging: 2,000 tokens, zoomed in, a token dragged across the view.
    state = big(ruleset.id, tokens=2000, walls=500)
    state.diagonal = ruleset.manifest.diagonal
    referee = Referee(state, ruleset)
    scene = MapScene(state, ruleset)
    view = MapView(scene, referee)
    view.resize(1280, 800)
    view.show()
    mover = next(iter(state.tokens.values()))
    view.set_zoom(1.0)
    view.centerOn(QPointF(mover.x * CELL, mover.y * CELL))
    QApplication.processEvents()
    assert view.controller is not None
    view.controller.begin(mover.id, (0.5, 0.5))
    cells = [(mover.x + 0.5 + (i % 9) - 4, mover.y + 0.5 + (i // 9 % 7) - 3) for i in range(reps)]
    it = iter(cells)

    def drag_step() -> None:
        view.controller.move_to(next(it))  # type: ignore[union-attr]
        view.viewport().repaint()

    measure("map: drag step, preview + repaint (2,000 tokens, zoomed in)",
            time_runs(drag_step, reps), 8.0, "p95")
    view.controller.cancel()
    _group_figure(view, state, mover.id, reps, measure)
    _ruler_figure(view, ruleset, reps, measure)

    # The same drag with the player view open on the same encounter, zoomed in on
    # the same spot so its 2,000 tokens and name tags are drawn. Its map does not
    # change while the GM drags, so it would not repaint; repainting it every
    # step anyway measures the worst case: two full views a step.
    from tacmap.ui.player import PlayerView
    from tacmap.ui.session import Session

    player = PlayerView(Session(registry, state))
    player.resize(1280, 800)
    player.show()
    player.view.set_zoom(1.0)
    player.view.centerOn(QPointF(mover.x * CELL, mover.y * CELL))
    QApplication.processEvents()
    view.controller.begin(mover.id, (0.5, 0.5))
    it = iter(cells)

    def two_views_step() -> None:
        view.controller.move_to(next(it))  # type: ignore[union-attr]
        view.viewport().repaint()
        player.view.viewport().repaint()

    measure("map: drag step with the player view open (two views, 2,000 tokens)",
            time_runs(two_views_step, reps), 8.0, "p95")
    view.controller.cancel()
    player.hide()  # not close(): that would remember its place in the user's data folder
    player.deleteLater()
    view.close()

    _fog_figure(registry, ruleset, reps, measure)

    # The whole map visible with 10,000 tokens: drawn as marks in one pass.
    state = big(ruleset.id, tokens=10_000, walls=0, size=300)
    scene = MapScene(state, ruleset)
    view = MapView(scene, Referee(state, ruleset))
    view.resize(1280, 800)
    view.show()
    view.fit()
    QApplication.processEvents()
    measure("map: whole map repaint (10,000 tokens)",
            time_runs(view.viewport().repaint, reps), 16.7, "p95")
    view.close()

    # Open an encounter with 2,000 tokens until every token is drawn.
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.tacmap"
        state = big(ruleset.id, tokens=2000, walls=100)
        state.diagonal = ruleset.manifest.diagonal
        _started(state, ruleset)
        storage.save(path, state, [])

        def open_and_draw() -> None:
            loaded = storage.load(path, registry)
            scene = MapScene(loaded.state, ruleset)
            view = MapView(scene, Referee(loaded.state, ruleset))
            view.resize(1280, 800)
            view.show()
            view.fit()
            view.set_zoom(max(view.zoom, 8 / CELL))  # zoomed in enough to draw every token
            view.fitInView(scene.sceneRect())
            scene.set_overview(False)
            view.viewport().repaint()
            view.close()

        measure("map: open 2,000 tokens until all are drawn",
                time_runs(open_and_draw, 3 if quick else 8), 1000.0, "max")

    # The log panel with a 50,000-entry log: appending one entry, and opening it all.
    with tempfile.TemporaryDirectory() as home:
        _log_figures(registry, quick, measure, home)

    # The figures below time a window's work, not Python collecting what the figures
    # above left (maps of 10,000 tokens, a 50,000-entry log): a full collection here takes
    # about 100 ms, and one that fell inside the Forecast dock's opening put it at 103 and
    # 144 ms in two runs where it otherwise takes 55 to 90.
    gc.collect()
    _forecast_figures(registry, quick, measure)
    gc.collect()
    _autopilot_figures(registry, quick, measure)
    _cold_figures(quick, measure)


#: The demo whose drag a forecast slowed most (issue 36: p95 22 ms → 140 ms).
FORECAST_DEMO = "speed_rank_demo.tacmap"
#: Seconds between two mouse moves of a drag (a 60 Hz mouse).
MOUSE_EVERY = 1 / 60


def _drag_steps(view: MapView, mover: Token, reps: int, each: Callable[[], None]
                ) -> list[float]:
    """One drag of ``mover`` over ``reps`` cells round it, paced as a 60 Hz mouse: the ms of
    each step (the window's events, ``each``, the preview and the repaint)."""
    from tacmap.ui.qt import QApplication

    assert view.controller is not None
    view.controller.begin(mover.id, (0.5, 0.5))
    samples = []
    for i in range(reps):
        start = time.perf_counter()
        QApplication.processEvents()
        each()
        view.controller.move_to((mover.x + 0.5 + (i % 7) - 3, mover.y + 0.5 + (i // 7 % 5) - 2))
        view.viewport().repaint()
        took = time.perf_counter() - start
        samples.append(took * 1000)
        time.sleep(max(0.0, MOUSE_EVERY - took))
    view.controller.cancel()
    return samples


def _forecast_figures(registry: Registry, quick: bool, measure: Measure) -> None:
    """A drag on the map with and without the Forecast dock playing fights beside the
    window (issue 36): each step is what the window does between two mouse moves (its
    timers, the dock's redraw included, then the preview and the repaint), paced as a
    60 Hz mouse; a step over 50 ms is a freeze the GM sees. Also the time the dock's
    opening blocks the window, and from the click to the first estimate."""
    import pyqtgraph  # noqa: F401  (the window imports it after its first paint)

    from tacmap.engine.play.referee import Referee
    from tacmap.ui.demos import demo_folder
    from tacmap.ui.map.scene import MapScene
    from tacmap.ui.map.view import MapView
    from tacmap.ui.panels.forecast import ForecastPanel
    from tacmap.ui.qt import QApplication, QDockWidget, QMainWindow, Qt

    state = storage.load(demo_folder() / FORECAST_DEMO, registry).state
    ruleset = registry.get(state.ruleset)
    window = QMainWindow()
    view = MapView(MapScene(state, ruleset), Referee(state, ruleset))
    window.setCentralWidget(view)
    dock = QDockWidget("Forecast", window)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    dock.hide()
    window.resize(1600, 900)
    window.show()
    view.fit()
    QApplication.processEvents()
    mover = next(t for t in state.tokens.values() if not ruleset.out_of_fight(t))
    assert view.controller is not None
    reps = 60 if quick else 100

    def drag() -> list[float]:
        # as the view's mouse move with a button held does: the dock's workers wait
        return _drag_steps(view, mover, reps, lambda: view.in_hand())

    # Made as the window makes it, a moment after its first paint (``warm_charts``).
    panel = ForecastPanel(fights=1_000_000)  # more than it plays while a drag lasts
    dock.setWidget(panel)

    def in_hand() -> None:  # as the window wires it: the dock's workers wait
        for worker in panel.workers.values():
            worker.hold()

    view.in_hand = in_hand
    QApplication.processEvents()
    start = time.perf_counter()
    dock.show()
    panel.show_state(state, ruleset, [])
    QApplication.processEvents()
    opening = (time.perf_counter() - start) * 1000
    while "now" not in panel.results:
        QApplication.processEvents()
        time.sleep(0.005)
    first = (time.perf_counter() - start) * 1000

    def settle(seconds: float) -> None:
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            QApplication.processEvents()
            time.sleep(0.01)

    settle(1.2)
    # Drags with and without a forecast under way, taken in turns, the dock shown in
    # both: a change in the machine's load falls on both alike.
    alone: list[float] = []
    beside: list[float] = []
    for _ in range(2 if quick else 3):
        beside += drag()
        panel.cancel()
        settle(0.3)
        alone += drag()
        panel.show_state(state, ruleset, [])
        settle(1.2)  # its first estimate drawn: the drag comes while the fights go on
    panel.close_workers()
    window.close()
    measure("forecast dock: drag step, no forecast (speed_rank demo, 60 Hz mouse)", alone,
            50.0, "max")
    measure("forecast dock: drag step while a forecast runs beside the window", beside,
            50.0, "max")
    measure("forecast dock: drag p95 while a forecast runs ÷ without", [p95(beside) / p95(alone)],
            1.25, "max", "×")
    measure("forecast dock: opening it blocks the window", [opening], 100.0, "max")
    measure("forecast dock: from the click to the first estimate", [first], 2000.0, "max")


def _autopilot_figures(registry: Registry, quick: bool, measure: Measure) -> None:
    """A drag on the map while the autopilot thinks in its worker process (issue 35),
    against the same drag with the worker idle: the window only asks and draws. The
    worker is kept thinking all along (a new question as each answer comes, as the
    window's poll does), on the demo whose decisions take longest (reflex)."""
    from tacmap.engine.play.referee import Referee
    from tacmap.ui.demos import demo_folder
    from tacmap.ui.map.scene import MapScene
    from tacmap.ui.map.view import MapView
    from tacmap.ui.qt import QApplication, QMainWindow
    from tacmap.ui.workers import Worker, decide_task

    state = storage.load(demo_folder() / "reflex_demo.tacmap", registry).state
    ruleset = registry.get(state.ruleset)
    referee = Referee(state, ruleset)
    referee.execute(StartCombat())
    window = QMainWindow()
    view = MapView(MapScene(referee.state, ruleset), referee)
    window.setCentralWidget(view)
    window.resize(1600, 900)
    window.show()
    view.fit()
    QApplication.processEvents()
    actor = ruleset.whose_turn(referee.state)
    mover = next(t for t in referee.state.tokens.values() if t.id != actor
                 and not ruleset.out_of_fight(t))
    worker = Worker()
    thinking = {"on": False, "job": -1, "answers": 0}

    def ask() -> None:
        thinking["job"] = worker.submit(decide_task, referee.state, ruleset, actor,
                                        referee.state.seed, {})

    def poll() -> None:  # the window's poll timer: take the answer, ask again
        for report in worker.reports():
            if report.job == thinking["job"] and report.over:
                thinking["answers"] += 1
                if thinking["on"]:
                    ask()

    reps = 60 if quick else 100

    def drag() -> list[float]:
        return _drag_steps(view, mover, reps, poll)

    ask()  # the worker started and warm before anything is timed
    while thinking["answers"] < 1:
        poll()
        time.sleep(0.01)
    alone: list[float] = []
    beside: list[float] = []
    for _ in range(2 if quick else 3):
        thinking["on"] = True
        ask()
        beside += drag()
        thinking["on"] = False
        until = time.perf_counter() + 2.0
        while thinking["job"] >= 0 and time.perf_counter() < until:
            before = thinking["answers"]
            poll()
            if thinking["answers"] > before:
                break
            time.sleep(0.01)
        alone += drag()
    worker.close()
    window.close()
    measure("autopilot: drag step, worker idle (reflex demo, 60 Hz mouse)", alone, 50.0, "max")
    measure(f"autopilot: drag step while it thinks beside the window ({thinking['answers']} "
            "decisions meanwhile)", beside, 50.0, "max")
    measure("autopilot: drag p95 while it thinks ÷ without", [p95(beside) / p95(alone)],
            1.25, "max", "×")


def _cold_figures(quick: bool, measure: Measure) -> None:
    """Cold start to a drawn window, each run beside one of the floor's in a fresh process,
    so that both see the same load on the machine; the order alternates run by run.

    Both start as an installed app does from its second start on: their bytecode is
    compiled (by one start of each, not counted, into a cache folder of the bench's own:
    ``PYTHONDONTWRITEBYTECODE`` would otherwise make every start compile tacmap anew
    while the libraries' bytecode came with their wheels)."""
    samples, floors, own = [], [], []
    with tempfile.TemporaryDirectory() as home:
        # A home of its own: an autosave left in the user's would stop the start at
        # the "restore the unsaved changes?" question.
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                   TACMAP_HOME=home, PYTHONPYCACHEPREFIX=str(Path(home) / "bytecode"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for script in (COLD_START, COLD_FLOOR):
            _cold(script, env)
        for run in range(3 if quick else 7):
            if run % 2:
                floor_ms, app_ms = _cold(COLD_FLOOR, env), _cold(COLD_START, env)
            else:
                app_ms, floor_ms = _cold(COLD_START, env), _cold(COLD_FLOOR, env)
            samples.append(app_ms)
            floors.append(floor_ms)
            own.append(app_ms - floor_ms)
    measure("map: cold start to a drawn window (demo)", samples, 1500.0, "max")
    measure(f"map: cold start floor ({FLOOR_IS})", floors, 1500.0, "max")
    measure("map: cold start, tacmap's own part (the demo's start less its floor, "
            "side by side)", own, OWN_START, "p50")


def _cold(script: str, env: dict[str, str]) -> float:
    """Milliseconds from launching a fresh Python on ``script`` to its first paint."""
    done = subprocess.run([sys.executable, "-c", script, repr(time.time())],
                          capture_output=True, text=True, env=env, check=False, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"cold start failed: {done.stderr[-500:]}")
    return float(done.stdout.split()[-1]) * 1000


def _group_figure(view: MapView, state: Encounter, mover: str, reps: int,
                  measure: Measure) -> None:
    """The 50 tokens nearest ``mover`` selected and dragged together among the 2,000."""
    from tacmap.ui.qt import QApplication

    me = state.tokens[mover]
    near = sorted(state.tokens.values(), key=lambda t: max(abs(t.x - me.x), abs(t.y - me.y)))
    scene = view.map_scene
    scene.clearSelection()
    for token in near[:50]:
        scene.items_by_id[token.id].setSelected(True)
    QApplication.processEvents()
    group = view.group
    assert group is not None and group.begin(mover, (me.x + 0.5, me.y + 0.5))
    cells = iter([(me.x + 0.5 + (i % 9) - 4, me.y + 0.5 + (i // 9 % 7) - 3)
                  for i in range(reps)])

    def group_step() -> None:
        group.move_to(next(cells))
        view.viewport().repaint()

    measure("map: group drag step of 50 tokens, preview + repaint (2,000 tokens, zoomed in)",
            time_runs(group_step, reps), 8.0, "p95")
    group.cancel()
    scene.clearSelection()


def _ruler_figure(view: MapView, ruleset: Ruleset, reps: int, measure: Measure) -> None:
    """The Measure tool dragged across the map: one real mouse move, the path and label
    redrawn (the repaint that follows is the drag figure's)."""
    from tacmap.ui.map.ruler import Ruler, RulerMark
    from tacmap.ui.map.token_item import CELL
    from tacmap.ui.qt import QApplication, QEvent, QMouseEvent, QPointF, Qt

    mark = RulerMark(view.map_scene)
    units = ruleset.manifest.units
    view.tool = Ruler(lambda: view.map_scene.state.diagonal,
                      lambda reading: mark.show(reading, reading.text(units) if reading else ""))
    start = view.mapToScene(view.viewport().rect().center())
    left = Qt.MouseButton.LeftButton
    view.tool.press(start, left)
    view.tool.waypoint()
    # Each move lands on another cell, 3 to 20 cells from the start: the path is redrawn.
    spots = [view.mapFromScene(start + QPointF(((i % 18) + 3) * CELL, ((i * 7 % 13) - 6) * CELL))
             for i in range(reps)]
    it = iter(spots)

    def ruler_step() -> None:
        at = next(it)
        QApplication.sendEvent(view.viewport(), QMouseEvent(
            QEvent.Type.MouseMove, QPointF(at), QPointF(view.viewport().mapToGlobal(at)),
            Qt.MouseButton.NoButton, left, Qt.KeyboardModifier.NoModifier))

    measure("map: ruler, one mouse move with 500 walls", time_runs(ruler_step, reps), 1.0,
            "p95")
    view.tool.cancel()
    view.tool = None


def _fog_figure(registry: Registry, ruleset: Ruleset, reps: int, measure: Measure) -> None:
    """The player view repainted with fog while the GM drags one of the party."""
    from tacmap.engine.model.state import Encounter, MapSpec, Token
    from tacmap.engine.play.benching import dungeon
    from tacmap.engine.space import vision
    from tacmap.ui.map.scene import MapScene
    from tacmap.ui.session import Session

    state = Encounter(ruleset.id, map=MapSpec(120, 120, walls=dungeon()),
                      diagonal=ruleset.manifest.diagonal)
    for k in range(8):
        state.tokens[f"p{k}"] = Token(f"p{k}", f"Hero {k}", "party", 12 + 10 * (k % 4),
                                      12 + 10 * (k // 4))
    for k in range(40):
        state.tokens[f"e{k}"] = Token(f"e{k}", f"Foe {k}", "foes", 5 + 10 * (k % 12),
                                      5 + 10 * (k // 12))
    walls = ruleset.space.walls(state)
    state.fog = vision.with_fog(state.fog, enabled=True)
    event = vision.explored_event(state, walls, ruleset.out_of_fight)
    if event is not None:
        event.apply(state)
    mover = state.tokens["p0"]
    view, player = gm_and_player(Session(registry, state), MapScene(state, ruleset), mover)
    assert view.controller is not None
    view.controller.begin(mover.id, (0.5, 0.5))
    cells = [(mover.x + 0.5 + (i % 7) - 3, mover.y + 0.5 + (i // 7 % 5) - 2) for i in range(reps)]
    it = iter(cells)

    def step() -> None:
        view.controller.move_to(next(it))  # type: ignore[union-attr]
        player.view.viewport().repaint()

    measure("fog: player-view repaint with fog during a drag (1,000 wall segments, "
            "8 party tokens, whole map)", time_runs(step, reps), 8.0, "p95")
    put_away(view, player)


def gm_and_player(session: Session, scene: MapScene, mover: Token
                  ) -> tuple[MapView, PlayerView]:
    """The GM's view of ``scene`` and the player view of ``session``, both 1280×800 and
    shown (the players' fitted to the map), the GM's at 1:1 on ``mover``: a drag's start."""
    from tacmap.ui.map.token_item import CELL
    from tacmap.ui.map.view import MapView
    from tacmap.ui.player import PlayerView
    from tacmap.ui.qt import QApplication, QPointF

    view = MapView(scene, session.referee)
    view.resize(1280, 800)
    view.show()
    player = PlayerView(session)
    player.resize(1280, 800)
    player.show()
    player.view.fit()
    QApplication.processEvents()
    view.set_zoom(1.0)
    view.centerOn(QPointF(mover.x * CELL, mover.y * CELL))
    return view, player


def put_away(view: MapView, player: PlayerView) -> None:
    """Drop the drag on ``view`` and take both views away."""
    if view.controller is not None:
        view.controller.cancel()
    player.hide()  # not close(): that would remember its place in the user's data folder
    player.deleteLater()
    view.close()


def _log_figures(registry: Registry, quick: bool, measure: Measure, home: str) -> None:
    """Append to a 50,000-entry log; open an encounter with one until all of it is listed."""
    from tacmap.ui.qt import QApplication
    from tacmap.ui.render import app
    from tacmap.ui.session import Session
    from tacmap.ui.window import MainWindow

    if "action_pool" not in registry.manifests:
        return
    app()
    before = os.environ.get("TACMAP_HOME")
    os.environ["TACMAP_HOME"] = home  # the roster and autosaves of the bench go nowhere
    try:
        state, log = long_log(registry)
        window = MainWindow(registry, Session(registry, copy_of(state), log[:1]),
                            ask=lambda q: False, tell=lambda text: None)
        window.resize(1280, 800)
        window.show()
        window.log_dock.raise_()
        QApplication.processEvents()
        panel = window.log_panel

        def open_all() -> None:
            # From the window being handed the loaded encounter to every entry listed.
            window.bind(Session(registry, copy_of(state), list(log)))
            QApplication.processEvents()
            panel.lines.viewport().repaint()

        samples = time_runs(open_all, 3 if quick else 8)
        assert len(panel.model.entries) == len(log)
        measure("log: open an encounter with a 50,000-entry log, all listed", samples, 500.0,
                "max")

        extra = iter(log[i % 40] for i in range(10_000))
        now = window.session.referee.state

        def append() -> None:
            panel.append(now, next(extra))
            panel.lines.viewport().repaint()

        measure("log: append one entry to a 50,000-entry log (+ repaint)",
                time_runs(append, 40 if quick else 400), 2.0, "p95")
        window.close()
    finally:
        if before is None:
            os.environ.pop("TACMAP_HOME", None)
        else:
            os.environ["TACMAP_HOME"] = before


def copy_of(state: Encounter) -> Encounter:
    """A copy to open: each run starts from the same state."""
    return copy.deepcopy(state)
