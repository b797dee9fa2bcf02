"""Issue 22 item 12: a six_phase declaration shows on the map as a ghost arrow until it
resolves, on the GM's map and on the player view (everyone declares openly)."""

from __future__ import annotations

from pathlib import Path

from tacmap.cli import read_script
from tacmap.engine.model.commands import Command
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.map.scene import MapScene
from tacmap.ui.qt import QApplication
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.ui.conftest import shown

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def script() -> list[Command]:
    return [cmd for _, cmd in read_script(str(RESOURCES / "six_phase_demo-three-rounds.jsonl"))]


def test_a_declared_move_draws_a_ghost_arrow_until_it_resolves(
        qtbot: object, registry: Registry) -> None:
    session = Session.open(registry, RESOURCES / "six_phase_demo.tacmap")
    win = shown(qtbot, MainWindow(registry, session, ask=lambda q: False, tell=lambda t: None),
                (1100, 750))
    steps = script()
    for cmd in steps[:3]:  # start combat, Mialee declares Firebolt, Regdar declares a move
        assert win.run(cmd)
    QApplication.processEvents()
    arrows = {(a.declared.actor, a.declared.to, a.declared.target): a
              for a in win.scene.ghosts.arrows}
    move = arrows.get(("regdar", (10, 6), ""))
    assert move is not None and move.isVisible() and move.scene() is win.scene
    assert move.toolTip() == "Regdar declares: move to (10,6)"
    assert ("mialee", None, "gruk") in arrows  # the spell waits for phase 5
    # The players saw the declaration made at the table: their view draws it too.
    player = MapScene(session.referee.state, session.referee.ruleset, player=True)
    assert ("regdar", (10, 6)) in {(a.declared.actor, a.declared.to)
                                   for a in player.ghosts.arrows}
    for cmd in steps[3:8]:  # the rest pass or declare; the Movement phase resolves
        assert win.run(cmd)
    QApplication.processEvents()
    left = [(a.declared.actor, a.declared.to) for a in win.scene.ghosts.arrows]
    assert ("regdar", (10, 6)) not in left and not any(to for _, to in left)
    assert session.referee.state.tokens["regdar"].cell == (10, 6)
