"""Issue 27 item 2: the map draws a token as down when the ruleset says it is out of the fight."""

from __future__ import annotations

from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.map.scene import MapScene
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import QColor, QImage, QPainter, QRectF
from tests.engine.helpers import skirmish_state
from tests.engine.test_out_of_fight import downed_ruleset


def drawn(scene: MapScene, cell: tuple[int, int]) -> QImage:
    """The map's cell ``cell`` as painted, one pixel per scene unit."""
    image = QImage(CELL, CELL, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    scene.render(painter, QRectF(0, 0, CELL, CELL),
                 QRectF(cell[0] * CELL, cell[1] * CELL, CELL, CELL))
    painter.end()
    return image


def grey(colour: QColor) -> bool:
    return max(colour.red(), colour.green(), colour.blue()) - \
        min(colour.red(), colour.green(), colour.blue()) < 12


def test_a_token_the_ruleset_calls_out_is_greyed_and_threatens_no_cell(
        qtbot: object, registry: Registry) -> None:
    state = skirmish_state()
    state.tokens["grul"].hp = 0  # down under these rules, though not marked dead
    scene = MapScene(state, downed_ruleset(registry))
    scene.sync(state)
    grul, zog = scene.items_by_id["grul"], scene.items_by_id["zog"]
    assert grul.look.down and not zog.look.down
    # The disc's fill left of the cross (of the letter, for 2×2 Zog): grey for Grul
    # alone, the orcs' red for Zog.
    assert grey(drawn(scene, (2, 1)).pixelColor(CELL // 5, CELL // 2))
    assert not grey(drawn(scene, (8, 3)).pixelColor(CELL // 2, CELL - 8))
    assert grul.zValue() < zog.zValue()  # drawn under the tokens still fighting
    scene.show_reach([], threatened_for=state.tokens["ana"], radius=12)
    hatched = {(round(r.x() / CELL), round(r.y() / CELL)) for r in scene.reach_item.threat}
    assert hatched and (2, 2) not in hatched  # only Zog's reach, none round Grul
