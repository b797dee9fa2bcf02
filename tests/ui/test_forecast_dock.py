"""Combat ▸ Forecast (issue 28): the GM's dock, run in the background, with a what-if."""

from __future__ import annotations

import os
import threading

import pyqtgraph as pg
import pytest

from tacmap.engine.model.commands import EndTurn
from tacmap.ui.panels.forecast import NOTHING, ForecastPanel
from tacmap.ui.qt import QApplication, QWidget, submenu
from tacmap.ui.window import MainWindow

FIGHTS = 20


def wait_done(qtbot: object, panel: ForecastPanel) -> None:
    qtbot.waitUntil(lambda: not panel.busy(), timeout=30000)  # type: ignore[attr-defined]


def open_forecast(qtbot: object, window: MainWindow) -> ForecastPanel:
    panel = window.forecast.panel
    panel.fights = FIGHTS
    panel.bar.setRange(0, FIGHTS)
    combat = next(submenu(a, window) for a in window.menuBar().actions()
                  if a.text() == "&Combat")
    assert combat is not None
    forecast = next(a for a in combat.actions() if a.text() == "&Forecast")
    forecast.trigger()
    assert window.forecast.dock.isVisible()
    wait_done(qtbot, panel)
    return panel


def test_forecast_opens_runs_and_shows_every_combatant(qtbot: object, window: MainWindow
                                                       ) -> None:
    panel = open_forecast(qtbot, window)
    now = panel.results["now"]
    assert now.fights == FIGHTS
    assert panel.bar.value() == FIGHTS
    assert f"{FIGHTS} of {FIGHTS} fights (done)" in panel.title.text()
    assert panel.table.rowCount() == len(window.session.referee.state.tokens)
    names = {panel.table.item(r, 0).text() for r in range(panel.table.rowCount())}
    assert "Ana (party)" in names
    assert all(panel.table.item(r, 1).text().endswith("%") for r in range(4))
    bars = [i for i in panel.wins.listDataItems() if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 1, "one set of bars: no what-if yet"
    heights = list(bars[0].opts["height"])
    assert heights == pytest.approx([100 * now.win(s)[0] for s in now.sides]
                                    + [100 * now.undecided_chance()[0]])
    assert not panel.cancel_button.isEnabled()


def test_the_player_view_never_shows_the_forecast(qtbot: object, window: MainWindow) -> None:
    open_forecast(qtbot, window)
    window.show_player_view()
    player = window.player
    assert player is not None
    assert isinstance(player, QWidget)
    assert player.findChildren(ForecastPanel) == []
    assert window.forecast.panel.window() is window


def test_it_runs_again_after_an_action(qtbot: object, window: MainWindow) -> None:
    panel = open_forecast(qtbot, window)
    first = panel.state
    referee = window.session.referee
    acting = referee.ruleset.turn_order(referee.state)
    assert acting is not None
    assert window.run(EndTurn())
    qtbot.waitUntil(lambda: panel.state is not first, timeout=20000)  # type: ignore[attr-defined]
    wait_done(qtbot, panel)
    assert panel.state is not None and panel.state.schedule == referee.state.schedule
    assert panel.results["now"].fights == FIGHTS


def test_what_if_compares_without_changing_the_encounter(qtbot: object, window: MainWindow
                                                         ) -> None:
    panel = open_forecast(qtbot, window)
    before = dict(window.session.referee.state.tokens)
    version = window.session.referee.version
    panel.remove_box.setCurrentIndex(panel.remove_box.findData("grul"))
    panel.remove_one()
    wait_done(qtbot, panel)
    other = panel.results["what if"]
    assert "grul" not in other.ids and "grul" in panel.results["now"].ids
    assert "without Grul" in panel.title.text()
    rows = {panel.table.item(r, 0).text(): panel.table.item(r, 3).text()
            for r in range(panel.table.rowCount())}
    assert rows["Grul (orcs)"] == "not in it"
    assert rows["Ana (party)"].endswith("% drop")
    assert window.session.referee.state.tokens == before
    assert window.session.referee.version == version
    panel.clear_what_if()
    assert "what if" not in panel.results
    assert all(panel.table.item(r, 3).text() == "" for r in range(panel.table.rowCount()))


def test_cancel_stops_and_keeps_what_was_done(qtbot: object, window: MainWindow) -> None:
    """A forecast far too long to finish: Cancel stops its worker (no fight is added
    afterwards, late reports included) and the fights already played stay shown."""
    panel = window.forecast.panel
    huge = 1_000_000
    panel.fights = huge
    window.forecast.open()
    qtbot.waitUntil(lambda: "now" in panel.results,  # type: ignore[attr-defined]
                    timeout=60000)
    worker = panel.workers["now"]
    panel.cancel()
    assert not panel.busy() and not panel.cancel_button.isEnabled()
    done = panel.results["now"].fights
    assert 0 < done < huge
    # The worker stops between two fights and waits for the next job; whatever it
    # reported meanwhile is dropped.
    qtbot.waitUntil(lambda: worker.idle(), timeout=10000)  # type: ignore[attr-defined]
    QApplication.processEvents()
    assert panel.results["now"].fights == done
    assert f"{done} of {huge} fights (done)" in panel.title.text()


def test_an_encounter_with_no_fight_in_it_says_so(qtbot: object, window: MainWindow) -> None:
    for tid in [t.id for t in window.session.referee.state.tokens.values()
                if t.side != "heroes"]:
        del window.session.referee.state.tokens[tid]  # a map with one side only
    panel = open_forecast(qtbot, window)
    assert panel.title.text() == NOTHING
    assert "now" not in panel.results and not panel.busy()
    assert panel.table.rowCount() == 0


@pytest.fixture(autouse=True)
def close_dock(window: MainWindow) -> object:
    yield None
    window.forecast.panel.cancel()


def test_the_fights_are_played_in_a_process_beside_the_window(qtbot: object,
                                                              window: MainWindow) -> None:
    """The window's process only draws: a forecast's fights share neither its interpreter
    lock (a drag stays smooth) nor its ruleset's caches (issue 36)."""
    panel = open_forecast(qtbot, window)
    worker = panel.workers["now"]
    assert worker.pid is not None and worker.pid != os.getpid()
    assert panel.results["now"].fights == FIGHTS
    assert not any(t.name.startswith("forecast") for t in threading.enumerate())
    # The next forecast reuses the same worker: no process start per action.
    assert window.run(EndTurn())
    wait_done(qtbot, panel)
    qtbot.waitUntil(lambda: panel.state is not None and  # type: ignore[attr-defined]
                    panel.state.schedule == window.session.referee.state.schedule,
                    timeout=20000)
    wait_done(qtbot, panel)
    assert panel.workers["now"].pid == worker.pid


def test_closing_the_window_ends_the_forecast_workers(qtbot: object, window: MainWindow
                                                      ) -> None:
    panel = open_forecast(qtbot, window)
    worker = panel.workers["now"]
    pid = worker.pid
    assert pid is not None and worker.alive()
    window.forecast.close()
    assert not worker.alive()
    assert panel.workers == {}
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_losses_show_and_a_retreat_reruns_both_forecasts(qtbot: object, window: MainWindow
                                                         ) -> None:
    panel = open_forecast(qtbot, window)
    now = panel.results["now"]
    text = panel.losses.text()
    for side in now.sides:
        assert f"{side} down 0: " in text and "HP lost" in text
    # The GM picks a side that flees after round 3: the forecast plays again so (here no
    # fight is over by then: each ends with that side fleeing).
    choices = [panel.retreat_box.itemText(i) for i in range(panel.retreat_box.count())]
    side = now.sides[-1]
    index = choices.index(f"{side} flee after round 3")
    assert f"{side} flee when half are down" in choices and choices[0] == \
        "Every side fights to the last"
    panel.retreat_box.setCurrentIndex(index)
    panel.retreat_box.activated.emit(index)
    qtbot.waitUntil(lambda: "now" in panel.results and  # type: ignore[attr-defined]
                    panel.results["now"].fights == FIGHTS and not panel.busy(), timeout=30000)
    fled = panel.results["now"]
    assert fled.retreats[side] + sum(fled.wins.values()) + fled.undecided == FIGHTS
    assert fled.retreats[side] == FIGHTS - sum(fled.wins.values()) > 0
    assert max(fled.rounds) <= 4
    ticks = panel.wins.getAxis("bottom")._tickLevels  # the bars name the retreat
    assert any(label == f"{side} flee" for level in ticks for _, label in level)
    # A new state keeps the GM's retreat choice.
    window.forecast.panel.show_state(window.session.referee.state,
                                     window.session.referee.ruleset, [])
    assert panel.retreat_box.currentText() == f"{side} flee after round 3"
    panel.cancel()


def test_the_dock_opens_at_most_a_third_of_the_window_wide(qtbot: object, window: MainWindow
                                                           ) -> None:
    # At 1280×800 the charts' own wish (620 px) took half the map.
    panel = open_forecast(qtbot, window)
    QApplication.processEvents()
    third = max(window.width() // 3, panel.minimumSizeHint().width())
    assert window.forecast.dock.width() <= third + 12  # the dock's frame and handle
    assert panel.sizeHint().width() <= third
    panel.cancel()
