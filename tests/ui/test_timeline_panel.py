"""The phase timeline panel: one bar per combatant and span, words that can be read."""

from __future__ import annotations

from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.model.commands import EndTurn, Move, StartCombat
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import TimelineItem
from tacmap.ui.panels.timeline import TimelinePanel, merged

RESOURCES = Path(__file__).parents[2] / "resources"


def test_items_of_one_combatant_in_one_span_become_one_bar_with_both_words() -> None:
    ready = TimelineItem("nell", "ready", 3, 3)
    moved = TimelineItem("nell", "move", 3, 3)
    shot = TimelineItem("nell", "⚔ crossbow", 7, 7)
    assert merged([ready, shot, moved]) == [TimelineItem("nell", "ready · move", 3, 3), shot]
    spoilt = TimelineItem("nell", "move", 3, 3, struck="the cell was taken")
    (both,) = merged([ready, spoilt])
    assert both.label == "ready · ✗ move" and not both.struck  # the bar stands, a part is out
    (out,) = merged([TimelineItem("nell", "strike", 3, 3, struck="down"), spoilt])
    assert out.struck == "down" and out.label == "strike · move"


def test_a_move_in_the_ready_phase_is_drawn_once_beside_ready(
        qtbot: object, registry: Registry) -> None:
    # speed_rank's demo: Nell readies in phase -1 and moves there too; the two words were
    # drawn over each other on one bar.
    state = storage.load(RESOURCES / "speed_rank_demo.tacmap", registry).state
    state.seed = 7
    referee = Referee(state, registry.get(state.ruleset))
    referee.execute(StartCombat())
    while referee.ruleset.whose_turn(referee.state) != "nell":
        referee.execute(EndTurn())
    me = referee.state.tokens["nell"]
    referee.execute(Move("nell", ((me.x + 1, me.y),)))
    panel = TimelinePanel()
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    panel.resize(900, 260)
    panel.show_timeline(referee.state, referee.ruleset.timeline(referee.state))
    shown = [label for label in panel._labels if label.isVisible()]
    words = [label.toPlainText() for label in shown]
    # Both words on one bar, cut to the room a one-phase bar has.
    assert any(w.startswith("ready · mo") for w in words), words
    places = [(label.pos().x(), label.pos().y()) for label in shown]
    assert len(places) == len(set(places)), "two labels drawn at one place"
