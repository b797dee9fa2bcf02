"""The map window driven by real mouse gestures: every drag goes through the referee."""

from __future__ import annotations

from pathlib import Path

from tacmap.engine.model.commands import FreeMove, Move
from tacmap.engine.model.events import LeftReach, TokenMoved
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.map.token_item import CELL
from tacmap.ui.qt import QApplication, QPointF, Qt
from tacmap.ui.window import MainWindow
from tests.ui.conftest import drag


def status(win: MainWindow) -> str:
    return win.statusBar().currentMessage()


def test_a_diagonal_drag_shows_and_costs_two_metres_a_step(window: MainWindow) -> None:
    view = window.view
    drag(view, [(1, 1), (2, 2), (3, 3)], release=False)
    overlay = window.scene.overlay.view
    assert overlay is not None
    assert overlay.label == "4 m of 6 m"
    assert overlay.cells[-1] == (3, 3) and overlay.step_costs[-1] == 4.0
    assert "4 m of 6 m" in status(window)
    drag(view, [(3, 3)], release=True)  # let go where the mouse is
    entry = window.session.referee.log[-1]
    assert entry.command == Move("ana", ((3, 3),))
    moved = [e for e in entry.events if isinstance(e, TokenMoved)]
    assert moved and moved[0].cost == 4.0
    item = window.scene.items_by_id["ana"]
    assert item.pos() == QPointF(3 * CELL, 3 * CELL)
    assert window.scene.overlay.view is None


def test_leaving_reach_is_warned_while_dragging_and_reported_by_the_engine(
        window: MainWindow) -> None:
    drag(window.view, [(1, 1), (1, 2), (1, 4)], release=False)
    overlay = window.scene.overlay.view
    assert overlay is not None
    assert [name for _, _, name in overlay.leaves] == ["Grul"]
    assert overlay.leaves[0][0] == (1, 2)  # the first step out, drawn where it happens
    assert "leaves the reach of Grul" in status(window)
    drag(window.view, [(1, 4)])
    events = window.session.referee.log[-1].events
    assert LeftReach("ana", "grul", 1) in events


def test_an_illegal_drag_snaps_back_with_the_reason(window: MainWindow) -> None:
    before = len(window.session.referee.log)
    drag(window.view, [(1, 1), (3, 3), (5, 5)])
    assert len(window.session.referee.log) == before
    assert window.session.referee.state.tokens["ana"].cell == (1, 1)
    assert window.scene.items_by_id["ana"].pos() == QPointF(CELL, CELL)
    assert status(window) == "Not moved: Ana can move 6 m, this path is 8 m"


def test_dragging_out_of_turn_is_refused(window: MainWindow) -> None:
    drag(window.view, [(1, 3), (1, 5)])
    assert status(window) == "Not moved: it is not Bo's turn"
    assert window.session.referee.state.tokens["bo"].cell == (1, 3)


def test_undo_puts_the_token_back(window: MainWindow, qtbot: object) -> None:
    drag(window.view, [(1, 1), (1, 3), (2, 3)])
    assert window.session.referee.state.tokens["ana"].cell == (2, 3)
    window.undo_action.trigger()
    QApplication.processEvents()
    assert window.session.referee.state.tokens["ana"].cell == (1, 1)
    assert window.scene.items_by_id["ana"].pos() == QPointF(CELL, CELL)
    window.redo_action.trigger()
    assert window.scene.items_by_id["ana"].pos() == QPointF(2 * CELL, 3 * CELL)


def test_shift_drag_is_a_logged_gm_override(window: MainWindow) -> None:
    drag(window.view, [(8, 3), (9, 5), (0, 8)], mods=Qt.KeyboardModifier.ShiftModifier)
    assert window.session.referee.log[-1].command == FreeMove("zog", (0, 8))
    assert "GM moves Zog" in status(window)


def test_a_right_click_drops_a_waypoint(window: MainWindow) -> None:
    drag(window.view, [(1, 1), (1, 2), (0, 2), (0, 5)], waypoints=(2,))
    assert window.session.referee.log[-1].command == Move("ana", ((0, 2), (0, 5)))
    assert window.session.referee.state.tokens["ana"].cell == (0, 5)


def test_zooming_far_out_draws_marks_in_one_pass(window: MainWindow) -> None:
    view = window.view
    view.set_zoom(0.05)
    items = window.scene.items_by_id.values()
    assert window.scene.overview and window.scene.marks.isVisible()
    assert not any(item.isVisible() for item in items)
    view.set_zoom(1.0)
    assert not window.scene.overview and all(item.isVisible() for item in items)
    view.fit()
    assert view.zoom > 0.3  # a 12×10 map fills the window


def test_hovering_a_token_shows_its_reach(window: MainWindow) -> None:
    window.scene.show_reach([window.session.referee.state.tokens["zog"]])
    # Zog is 2×2 with reach 2 under the rectilinear rule.
    zone = {(round(r.x() / CELL), round(r.y() / CELL)) for r in window.scene.reach_item.zone}
    assert (6, 3) in zone and (7, 3) in zone and (10, 3) in zone
    assert (6, 2) not in zone  # diagonal: 3 m away


def test_opening_a_bad_file_keeps_the_current_encounter(window: MainWindow,
                                                        tmp_path: Path) -> None:
    bad = tmp_path / "bad.tacmap"
    bad.write_text("{")
    state = window.session.referee.state
    assert not window.open_path(bad)
    assert window.session.referee.state is state
    assert "ends too early" in status(window)
    assert window.told == [f"{bad}: the file ends too early: it looks truncated"]  # type: ignore[attr-defined]


def test_every_move_is_autosaved_and_offered_back(window: MainWindow, registry: Registry,
                                                  encounter_file: Path, qtbot: object) -> None:
    drag(window.view, [(1, 1), (1, 2)])  # (1,3) is Bo's square
    auto = window.session.autosave_path
    # Written a moment after the command, once the burst of clicks is over.
    qtbot.waitUntil(lambda: not window.files.autosave_timer.isActive(),  # type: ignore[attr-defined]
                    timeout=20000)
    assert auto.is_file()
    from tacmap.ui.session import Session

    window.session.release()  # as if the window had died: its lock no longer counts
    again = Session.open(registry, encounter_file)
    assert again.newer_autosave() == auto
    again.restore_autosave()
    assert again.referee.state.tokens["ana"].cell == (1, 2)
    assert again.dirty
    window.save()
    assert not auto.exists()


def test_sides_named_for_a_colour_are_drawn_in_it() -> None:
    from tacmap.engine.model.state import Encounter, Token
    from tacmap.ui.map.look import NAMED, side_colours

    state = Encounter(ruleset="skirmish")
    for i, side in enumerate(["Red Company", "adventurers", "Blue Company", "orcs"]):
        state.tokens[f"t{i}"] = Token(f"t{i}", f"T{i}", side, i, 0)
    colours = side_colours(state)
    assert colours["Red Company"] == NAMED["red"] and colours["Blue Company"] == NAMED["blue"]
    assert len(set(colours.values())) == 4


def test_a_map_image_is_loaded_and_aligned_through_the_referee(window: MainWindow,
                                                                tmp_path: Path) -> None:
    from tacmap.engine.model.commands import SetMapImage
    from tacmap.ui.qt import QColor, QImage

    source = tmp_path / "cave.png"
    image = QImage(200, 100, QImage.Format.Format_RGB32)
    image.fill(QColor("#336699"))
    assert image.save(str(source))
    window.use_image(source)
    assert (window.session.image_folder / "cave.png").is_file()
    item = window.scene.image_item
    assert not item.pixmap().isNull() and item.pixmap().width() == 200
    window.run(SetMapImage("cave.png", (2.0, 1.0), 0.05))
    assert item.pos() == QPointF(2 * CELL, 1 * CELL)
    assert abs(item.scale() - 0.05 * CELL) < 1e-9  # 200 px × 0.05 m = 10 m wide
    window.undo_action.trigger()
    assert item.pos() == QPointF(0, 0)


def test_closing_with_unsaved_changes_asks_first(window: MainWindow) -> None:
    questions: list[str] = []
    answers: list[bool | None] = [None, False]  # Cancel first, then Discard
    window.ask_save = lambda q: questions.append(q) or answers.pop(0)
    drag(window.view, [(1, 1), (1, 2)])
    assert window.session.dirty
    assert not window.close()  # cancelled: still open, nothing lost
    assert window.isVisible() and window.session.dirty
    assert window.close()
    assert questions == ["This encounter has unsaved changes. Save them first?"] * 2


def test_the_gm_reorders_the_turn_order(window: MainWindow) -> None:
    window.order_panel.rows.on_reorder(("bo", "ana", "grul", "zog"))
    order = window.session.referee.ruleset.turn_order(window.session.referee.state)
    assert order is not None and [r.id for r in order.rows] == ["bo", "ana", "grul", "zog"]
    assert window.order_panel.rows.ids() == ("bo", "ana", "grul", "zog")


def test_fit_frames_the_fight_not_the_whole_map(qtbot: object, registry: Registry,
                                                tmp_path: Path) -> None:
    from tacmap.engine.files import storage
    from tacmap.engine.model.state import Encounter, MapSpec, Token
    from tacmap.ui.session import Session

    state = Encounter(ruleset="skirmish", map=MapSpec(1000, 1000))
    state.tokens["a"] = Token("a", "A", "x", 500, 500)
    state.tokens["b"] = Token("b", "B", "y", 504, 502)
    path = tmp_path / "wide.tacmap"
    storage.save(path, state, [])
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=lambda t: None)
    qtbot.addWidget(win)  # type: ignore[attr-defined]
    win.resize(1000, 700)
    win.show()
    win.view.fit()
    assert not win.scene.overview and win.view.zoom * CELL > 40


def test_embedded_and_missing_images(window: MainWindow) -> None:
    import base64

    from tacmap.engine.model.commands import SetMapImage
    from tacmap.ui.qt import QBuffer, QByteArray, QColor, QImage

    image = QImage(20, 10, QImage.Format.Format_RGB32)
    image.fill(QColor("#884400"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QBuffer.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]
    uri = "data:image/png;base64," + base64.b64encode(bytes(data.data())).decode()
    window.run(SetMapImage(uri, (0.0, 0.0), 0.1))
    assert window.scene.image_item.pixmap().width() == 20
    window.run(SetMapImage("nowhere.png", (0.0, 0.0), 0.1))
    assert window.scene.image_item.pixmap().isNull()
    assert "nowhere.png" in window.scene.missing


def test_an_untitled_encounter_survives_a_crash(registry: Registry, tacmap_home: Path) -> None:
    from tacmap.engine.model.commands import FreeMove
    from tacmap.engine.model.state import Encounter, Token
    from tacmap.ui.session import Session, restore_untitled, untitled_autosaves

    state = Encounter(ruleset="skirmish")
    state.tokens["a"] = Token("a", "A", "x", 1, 1)
    lost = Session(registry, state)
    lost.referee.execute(FreeMove("a", (4, 4)))  # autosaved; then the process "dies"
    lost.release()  # and its claim on the autosave goes with it
    assert untitled_autosaves() == [lost.autosave_path]
    back = restore_untitled(registry, untitled_autosaves()[0])
    assert back.referee.state.tokens["a"].cell == (4, 4) and back.dirty
    back.discard_autosave()
    assert untitled_autosaves() == []


def test_the_player_view_shows_only_the_named_partys_hit_points(registry: Registry) -> None:
    from tacmap.engine.model.state import Encounter, Token
    from tacmap.ui.map.look import looks

    state = Encounter(ruleset="skirmish", party="heroes")
    state.tokens["o"] = Token("o", "Orc", "orcs", 0, 0, hp=7)
    state.tokens["h"] = Token("h", "Hero", "heroes", 1, 0, hp=9)
    seen = {look.id: look.hp for look in looks(state, registry.get("skirmish"), player=True)}
    assert seen == {"o": 0, "h": 9}


def test_a_door_is_redrawn_the_moment_it_opens_and_closes(window: MainWindow) -> None:
    """The walls' picture is cached: opening a door left the closed bar drawn (and
    closing it the open jambs) until the next zoom, on the GM's map and the players'."""
    from tacmap.engine.model.commands import SetDoor, SetWalls
    from tacmap.engine.model.state import Wall
    from tacmap.ui.map.layers import DOOR

    state = window.session.referee.state
    door = Wall(((10.0, 7.0), (10.0, 9.0)), kind="door")  # clear of the tokens
    assert window.run(SetWalls((*state.map.walls, door)))
    index = len(window.session.referee.state.map.walls) - 1
    view = window.view

    def door_brown_at_middle() -> bool:
        QApplication.processEvents()
        at = view.mapFromScene(QPointF(10 * CELL, 8 * CELL))
        colour = view.viewport().grab().toImage().pixelColor(at)
        return abs(colour.red() - DOOR.red()) + abs(colour.green() - DOOR.green()) < 40

    assert door_brown_at_middle()  # closed: a brown bar
    assert window.run(SetDoor(index, True))
    assert not door_brown_at_middle()  # open: the gap between its jambs
    assert window.run(SetDoor(index, False))
    assert door_brown_at_middle()
