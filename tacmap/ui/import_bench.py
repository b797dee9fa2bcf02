"""``tacmap bench`` figures of issue #25: a Universal VTT import, its first drag under fog,
and the fight report of a 100,000-entry log."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from tacmap.bench import Measure, time_runs
from tacmap.engine.model.state import Encounter
from tacmap.engine.rules.ruleset import Registry, Ruleset

#: The figures' names.
IMPORT = "import: Universal VTT 60×40 cells, 3,000 wall segments, 4096×2731 image, to a file"
FIRST_DRAG = ("import: first drag step with fog on, on that map (preview + player-view "
              "repaint, 8 party tokens)")
REPORT = "report: fight report of a 100,000-entry log (players', both maps drawn)"


def run(registry: Registry, ruleset: Ruleset, big_encounter: Callable[..., Encounter],
        quick: bool, measure: Measure) -> None:
    """Measure the three figures and hand each to ``measure`` (a ``FigureSource``)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from tacmap.ui.render import app

    app()
    from tacmap.engine.files import uvtt
    from tacmap.engine.files.uvtt_sample import big

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "big.dd2vtt"
        source.write_text(json.dumps(big()))
        runs = iter(range(1000))

        def once() -> Encounter:
            return uvtt.write(uvtt.read_file(source), ruleset, Path(folder) /
                              f"big{next(runs)}.tacmap", "Big", 1)

        measure(IMPORT, time_runs(once, 2 if quick else 5), 2000.0, "max")
        state = once()
        first = [_first_drag(registry, ruleset, state, Path(folder) / "images")
                 for _ in range(1 if quick else 3)]
        measure(FIRST_DRAG, first, 8.0, "max")
    _report_figure(registry, quick, measure)


def _first_drag(registry: Registry, ruleset: Ruleset, state: Encounter, images: Path) -> float:
    """Milliseconds of the first step of a drag on a freshly opened imported map, fog on."""
    import copy
    import time

    from tacmap.engine.files import uvtt
    from tacmap.engine.model.state import Token
    from tacmap.engine.space import vision
    from tacmap.ui.bench import gm_and_player, put_away
    from tacmap.ui.map.scene import MapScene
    from tacmap.ui.session import Session

    state = copy.deepcopy(state)
    for k in range(8):
        state.tokens[f"p{k}"] = Token(f"p{k}", f"Hero {k}", "party", 2 + 6 * k, 2 + 5 * (k % 7))
    uvtt.prepare(ruleset, state)  # as File ▸ Import Map does
    event = vision.explored_event(state, ruleset.space.walls(state), ruleset.out_of_fight)
    if event is not None:
        event.apply(state)
    # Saved beside its image, as the imported file is: both views draw the map image.
    session = Session(registry, state, [], images.parent / "open.tacmap")
    mover = state.tokens["p0"]
    view, player = gm_and_player(session, MapScene(state, ruleset, session.image_folder), mover)
    assert view.controller is not None
    start = time.perf_counter()
    view.controller.begin(mover.id, (0.5, 0.5))
    view.controller.move_to((mover.x + 1.5, mover.y + 0.5))
    player.view.viewport().repaint()
    took = (time.perf_counter() - start) * 1000
    put_away(view, player)
    return took


def _report_figure(registry: Registry, quick: bool, measure: Measure) -> None:
    from tacmap.ui.bench import long_log
    from tacmap.ui.report import report_html

    if "action_pool" not in registry.manifests:
        return
    state, log = long_log(registry, 100_000)
    ruleset = registry.get(state.ruleset)
    measure(REPORT, time_runs(lambda: report_html(state, log, ruleset, None, "today"),
                              1 if quick else 3), 5000.0, "max")
