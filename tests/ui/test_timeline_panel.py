"""The phase timeline panel: one bar per combatant and span, words that can be read."""

from __future__ import annotations

from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.model.commands import EndTurn, Move, StartCombat
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.views import TimelineItem
from tacmap.ui.panels.timeline import TimelinePanel, merged
from tacmap.ui.qt import QApplication, QPointF

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
    panel.show()  # its words are cut to the bars' width on screen
    panel.show_timeline(referee.state, referee.ruleset.timeline(referee.state))
    QApplication.processEvents()
    shown = [label for label in panel._labels if label.isVisible()]
    words = [label.toPlainText() for label in shown]
    # Both words on one bar, cut to the room a one-phase bar has.
    assert ("nell", "ready · move") in {(panel.rows[int(-label.pos().y())], text)
                                        for label, text, _, _ in panel._words}
    assert any(w.startswith("ready") and w.endswith("…") for w in words), words
    places = [(label.pos().x(), label.pos().y()) for label in shown]
    assert len(places) == len(set(places)), "two labels drawn at one place"


def _speed_rank_round(registry: Registry) -> Referee:
    state = storage.load(RESOURCES / "speed_rank_demo.tacmap", registry).state
    state.seed = 7  # Blue Company rolls 10: "ready (moved up one phase: rolled 10)"
    referee = Referee(state, registry.get(state.ruleset))
    referee.execute(StartCombat())
    return referee


def test_a_bars_words_end_within_the_bar_at_any_width_and_type_size(
        qtbot: object, registry: Registry) -> None:
    """The words are white: past the bar's end they vanish into the chart's cream, so the
    player view's larger type showed "⚔ greatswo" with no sign of the rest."""
    referee = _speed_rank_round(registry)
    for player, width in ((True, 1800), (True, 1100), (False, 1200), (False, 700)):
        panel = TimelinePanel(player=player)
        qtbot.addWidget(panel)  # type: ignore[attr-defined]
        panel.resize(width, 300)
        panel.show()
        panel.show_timeline(referee.state, referee.ruleset.timeline(referee.state))
        QApplication.processEvents()
        assert panel.plot is not None
        box = panel.plot.getViewBox()
        words = {label.toPlainText() for label in panel._labels if label.isVisible()}
        assert any(w.endswith("…") for w in words), words  # some are cut, with a sign of it
        assert "ready" in words  # and a short one is whole
        tips = {label.toolTip() for label in panel._labels if label.isVisible()}
        assert "Grob: ready (moved up one phase: rolled 10)" in tips  # whole under the mouse
        for (_, _, end, y), label in zip(panel.bars, panel._labels[:len(panel.bars)],
                                         strict=True):
            bar_end = box.mapViewToScene(QPointF(end + 0.42, -y)).x()
            text_end = label.mapToScene(label.boundingRect().topRight()).x()
            assert text_end <= bar_end + 1, (player, width, label.toPlainText())
