"""Issue 33 item 8: the autosave keeps up with a burst of commands."""

from __future__ import annotations

from tacmap.engine.files import storage
from tacmap.engine.model.commands import EndTurn
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.window import MainWindow


def test_a_burst_of_commands_is_autosaved_at_least_once_a_second(
        qtbot: object, window: MainWindow, registry: Registry) -> None:
    now = [100.0]
    window.files.clock = lambda: now[0]  # the burst's time, told by the test
    for _ in range(25):  # 20 End Turns a second for 1.25 s; the window never idles
        assert window.run(EndTurn())
        now[0] += 0.05
    auto = window.session.autosave_path
    # Start combat and at least the End Turns of the first second are on disk already.
    assert len(storage.load(auto, registry).log) >= 1 + 20
    # The rest is written once the commands pause.
    qtbot.waitUntil(lambda: len(storage.load(auto, registry).log) == 26)  # type: ignore[attr-defined]
