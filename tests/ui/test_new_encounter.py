"""File ▸ New: the map's size is asked in the chosen ruleset's units."""

from __future__ import annotations

from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.new_encounter import NewEncounterDialog


def test_the_size_is_asked_in_the_rulesets_units(qtbot: object) -> None:
    """speed_rank's cells are 5 ft: the dialog said "30 m" and made a 150 ft map."""
    dialog = NewEncounterDialog(Registry())
    qtbot.addWidget(dialog)  # type: ignore[attr-defined]
    dialog.ruleset.setCurrentIndex(dialog.ruleset.findData("speed_rank"))
    assert (dialog.map_width.text(), dialog.map_height.text()) == ("150 ft", "100 ft")
    dialog.map_width.lineEdit().selectAll()
    qtbot.keyClicks(dialog.map_width, "60 ft")  # type: ignore[attr-defined]
    dialog.map_width.interpretText()
    assert dialog.chosen()[:3] == ("speed_rank", 12, 20)  # cells of 5 ft
    dialog.ruleset.setCurrentIndex(dialog.ruleset.findData("action_pool"))
    assert (dialog.map_width.text(), dialog.map_height.text()) == ("12 m", "20 m")
