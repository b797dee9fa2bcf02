"""Building an encounter from nothing by clicks and typing, and the roster."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.state import Wall
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.map.token_item import CELL
from tacmap.ui.map.view import ROSTER_MIME
from tacmap.ui.qt import (
    QApplication,
    QColor,
    QDialogButtonBox,
    QDragEnterEvent,
    QDropEvent,
    QEvent,
    QImage,
    QMimeData,
    QMouseEvent,
    QPointF,
    QRect,
    Qt,
)
from tacmap.ui.session import Session
from tacmap.ui.token_form import TokenForm
from tacmap.ui.window import MainWindow
from tests.engine.helpers import skirmish_state
from tests.ui.conftest import shown


@pytest.fixture
def window(qtbot: object, registry: Registry, tmp_path: Path) -> MainWindow:
    path = tmp_path / "seed.tacmap"
    storage.save(path, skirmish_state(), [])
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=lambda text: None)
    return shown(qtbot, win, (1200, 800))


def corner_point(win: MainWindow, x: float, y: float) -> QPointF:
    return QPointF(win.view.mapFromScene(QPointF(x * CELL, y * CELL)))


def click_at(win: MainWindow, at: QPointF, button: Qt.MouseButton = Qt.MouseButton.LeftButton,
             double: bool = False) -> None:
    vp = win.view.viewport()
    kinds = [QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease]
    if double:
        kinds.append(QEvent.Type.MouseButtonDblClick)
    for kind in kinds:
        buttons = button if kind != QEvent.Type.MouseButtonRelease else Qt.MouseButton.NoButton
        QApplication.sendEvent(vp, QMouseEvent(kind, at, QPointF(vp.mapToGlobal(at.toPoint())),
                                               button, buttons, Qt.KeyboardModifier.NoModifier))
    QApplication.processEvents()


def fill(qtbot: object, form: TokenForm, name: str, side: str, stats: dict[str, str]) -> None:
    form.name.clear()
    qtbot.keyClicks(form.name, name)  # type: ignore[attr-defined]
    form.side.setEditText(side)
    for key, text in stats.items():
        editor = form.editors[key]
        editor.widget.clear()  # type: ignore[attr-defined]
        qtbot.keyClicks(editor.widget, text)  # type: ignore[attr-defined]


def test_an_encounter_built_by_clicks_and_typing(window: MainWindow, qtbot: object,
                                                 registry: Registry, tmp_path: Path) -> None:
    window.start_new("action_pool", 20, 15, "Bridge fight", "chebyshev")
    ref = window.session.referee
    assert ref.state.name == "Bridge fight" and ref.state.diagonal == "chebyshev"
    assert ref.state.tokens == {}

    # The first combatant is refused for a bad value, with the reason, and nothing is added.
    form = window.add_combatant()
    assert "dex" in form.editors and "proficiency" in form.editors  # built from the schema
    fill(qtbot, form, "Ana", "heroes", {"proficiency": "longsword=9"})
    assert not form.try_accept()
    assert "5" in form.problem.text() and form.isVisible()
    assert ref.state.tokens == {}
    fill(qtbot, form, "Ana", "heroes", {"proficiency": "longsword=2"})
    assert form.try_accept()
    for name, side in (("Brak", "orcs"), ("Grim", "orcs")):
        form = window.add_combatant()
        fill(qtbot, form, name, side, {"proficiency": "axe=1"})
        assert form.try_accept()
    tokens = list(ref.state.tokens.values())
    assert [(t.name, t.side) for t in tokens] == [("Ana", "heroes"), ("Brak", "orcs"),
                                                  ("Grim", "orcs")]
    assert tokens[0].stats["proficiency"] == {"longsword": 2}
    assert len({t.cell for t in tokens}) == 3  # each placed on a free cell

    # A wall drawn with the wall tool: two corners, then Enter.
    window.tool_actions["wall"].trigger()
    click_at(window, corner_point(window, 2, 2))
    click_at(window, corner_point(window, 2, 9))
    qtbot.keyClick(window.view, Qt.Key.Key_Return)  # type: ignore[attr-defined]
    assert ref.state.map.walls == (Wall(((2.0, 2.0), (2.0, 9.0))),)
    window.tool_actions["wall"].trigger()  # back to moving tokens
    assert window.view.tool is None

    # Save, load a map image beside it and scale it by two points 4 m apart on screen.
    path = tmp_path / "bridge.tacmap"
    assert window.files.save_to(path)
    image = QImage(400, 300, QImage.Format.Format_RGB32)
    image.fill(QColor("#5a7d4a"))
    source = tmp_path / "bridge.png"
    image.save(str(source))
    window.use_image(source)
    window.ask_metres = lambda shown: 2 * shown  # the picture is drawn at half its size
    old = ref.state.map.image_scale
    window.tool_actions["scale"].trigger()
    click_at(window, corner_point(window, 0, 0))
    click_at(window, corner_point(window, 4, 0))
    assert ref.state.map.image_scale == pytest.approx(2 * old)
    window.tool_actions["scale"].trigger()
    window.lock_action.trigger()
    assert ref.state.map.image_locked
    window.save()

    again = Session.open(registry, path)
    assert again.referee.state == ref.state
    assert again.referee.state.map.image == "bridge.png"


def test_walls_are_erased_and_moved_with_their_tools(window: MainWindow) -> None:
    ref = window.session.referee
    assert ref.state.map.walls == (Wall(((6, 0), (6, 4))),)
    window.tool_actions["move"].trigger()
    vp = window.view.viewport()
    start, end = corner_point(window, 6, 2), corner_point(window, 8, 2)
    for kind, at, buttons in ((QEvent.Type.MouseButtonPress, start, Qt.MouseButton.LeftButton),
                              (QEvent.Type.MouseMove, end, Qt.MouseButton.LeftButton),
                              (QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)):
        QApplication.sendEvent(vp, QMouseEvent(kind, at, QPointF(vp.mapToGlobal(at.toPoint())),
                                               Qt.MouseButton.LeftButton, buttons,
                                               Qt.KeyboardModifier.NoModifier))
    assert ref.state.map.walls == (Wall(((8.0, 0.0), (8.0, 4.0))),)
    window.tool_actions["erase"].trigger()
    assert window.view.tool is not None and window.view.tool.name == "erase"
    click_at(window, corner_point(window, 8.2, 3))
    assert ref.state.map.walls == ()
    window.undo_action.trigger()
    assert len(ref.state.map.walls) == 1


def test_edit_duplicate_and_remove_are_logged_overrides(window: MainWindow,
                                                        qtbot: object) -> None:
    ref = window.session.referee
    window.select("grul")
    form = window.edit_combatant()
    assert form is not None
    fill(qtbot, form, "Grul the Tall", "orcs", {})
    assert form.try_accept()
    assert ref.state.tokens["grul"].name == "Grul the Tall"
    window.duplicate_combatant()
    assert "Grul the Tall 2" in [t.name for t in ref.state.tokens.values()]
    copy_id = window.actor
    window.remove_combatant()
    assert copy_id not in ref.state.tokens
    kinds = [type(e.command).__name__ for e in ref.log[-3:]]
    assert kinds == ["EditToken", "AddToken", "RemoveToken"]


def test_a_roster_entry_is_saved_found_and_dropped_into_another_encounter(
        window: MainWindow, tmp_path: Path) -> None:
    window.select("zog")
    window.ask_tags = lambda name: "boss, big"
    window.save_to_roster()
    panel = window.roster_panel
    panel.search.setText("boss")
    found = panel.refresh()
    assert [e.name for e in found] == ["Zog"]
    panel.search.setText("elf")
    assert panel.refresh() == []
    panel.search.setText("")
    entry = found[0].id

    window.start_new("skirmish", 12, 10, "Second fight")
    panel.refresh()
    ids = [panel.entries.item(i).data(Qt.ItemDataRole.UserRole)
           for i in range(panel.entries.count())]
    assert ids == [entry]
    mime = panel.entries.mimeData([panel.entries.item(0)])
    assert bytes(mime.data(ROSTER_MIME).data()).decode() == str(entry)
    data = QMimeData()
    data.setData(ROSTER_MIME, str(entry).encode())
    at = corner_point(window, 5.5, 5.5)
    enter = QDragEnterEvent(at.toPoint(), Qt.DropAction.CopyAction, data,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window.view.viewport(), enter)
    assert enter.isAccepted()
    drop = QDropEvent(at, Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window.view.viewport(), drop)
    tokens = list(window.session.referee.state.tokens.values())
    assert [t.name for t in tokens] == ["Zog"] and tokens[0].cell == (5, 5)
    # A copy: editing the encounter's Zog leaves the roster's as it was.
    assert window.roster() is not None
    assert window.roster().get(entry).token.cell != (5, 5)  # type: ignore[union-attr]


def test_an_unreadable_roster_is_one_sentence(window: MainWindow, tacmap_home: Path) -> None:
    told: list[str] = []
    window.tell = told.append
    if window.rosters.db is not None:
        window.rosters.db.close()
        window.rosters.db = None
    tacmap_home.mkdir(parents=True, exist_ok=True)
    for stale in tacmap_home.glob("roster.sqlite3*"):
        stale.unlink()
    (tacmap_home / "roster.sqlite3").write_bytes(b"this is not a database" * 50)
    assert window.roster() is None
    assert len(told) == 1 and "\n" not in told[0]


def test_a_portrait_is_chosen_copied_and_drawn(window: MainWindow, tmp_path: Path) -> None:
    png = tmp_path / "elsewhere" / "ana.png"  # (an SVG is refused since issue 23)
    png.parent.mkdir()
    picture = QImage(64, 64, QImage.Format.Format_RGB32)
    picture.fill(QColor("#c04000"))
    assert picture.save(str(png))
    window.ask_image = lambda: png
    window.select("ana")
    form = window.edit_combatant()
    assert form is not None
    form._choose()
    assert form.image.text() == "ana.png"
    assert form.try_accept()
    assert window.session.referee.state.tokens["ana"].image == "ana.png"
    assert (window.session.image_folder / "ana.png").is_file()
    item = window.scene.items_by_id["ana"]
    assert item.pixmap is not None and not item.pixmap.isNull()


def test_edit_stat_block_logs_only_what_the_gm_changed(qtbot: object, registry: Registry,
                                                       tmp_path: Path) -> None:
    """Issue 36 item 13: fields the token never had, left at their defaults, are not
    written into it nor logged ("helmet — → False; spells — → []"). The footprint is
    shown in the ruleset's own units, as the sight beside it (item 16)."""
    from tacmap.engine.play.narrate import sentence
    from tacmap.ui.demos import demo_folder

    path = tmp_path / "sr.tacmap"
    path.write_bytes((demo_folder() / "speed_rank_demo.tacmap").read_bytes())
    win = shown(qtbot, MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                                  tell=lambda text: None), (1200, 800))
    ref = win.session.referee
    tid = next(iter(ref.state.tokens))
    before = dict(ref.state.tokens[tid].stats)
    win.select(tid)
    form = win.edit_combatant()
    assert form is not None
    assert form.footprint.text() == "5 ft"
    form.name.setText("Renamed")
    assert form.try_accept()
    entry = ref.log[-1]
    assert sentence(ref.state, entry.command, entry.events) == "GM edits Renamed"
    assert [e.text(ref.state) for e in entry.events] == \
        [f"{form.base.name} is edited: name {form.base.name} → Renamed"]
    assert ref.state.tokens[tid].stats == before


def test_a_long_stat_block_scrolls_and_keeps_ok_on_the_screen(window: MainWindow,
                                                              qtbot: object) -> None:
    # speed_rank's stat block is taller than a 1280x800 screen: the fields scroll.
    window.start_new("speed_rank", 20, 15, "Yard", "chebyshev")
    form = window.add_combatant()
    qtbot.addWidget(form)  # type: ignore[attr-defined]
    form.show()
    QApplication.processEvents()
    screen = form.screen().availableGeometry()
    fields = form.fields.widget()
    assert fields.sizeHint().height() > screen.height() - 120  # it would not fit whole
    assert form.height() <= screen.height()
    ok = form.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert screen.contains(QRect(ok.mapToGlobal(ok.rect().topLeft()), ok.size()))
    assert form.fields.verticalScrollBar().maximum() > 0  # the rest is a scroll away


def test_a_sight_of_0_reads_unlimited_in_the_form(window: MainWindow, qtbot: object) -> None:
    # 0 m of sight is "as far as the walls let it", not blindness.
    form = window.add_combatant()
    qtbot.addWidget(form)  # type: ignore[attr-defined]
    sight = form.editors["sight"].widget
    assert sight.text() == "unlimited"  # type: ignore[attr-defined]
    sight.setValue(12)  # type: ignore[attr-defined]
    assert sight.text().startswith("12")  # type: ignore[attr-defined]


def _speed_rank_window(qtbot: object, registry: Registry, tmp_path: Path) -> MainWindow:
    from tacmap.ui.demos import demo_folder

    path = tmp_path / "sr.tacmap"
    path.write_bytes((demo_folder() / "speed_rank_demo.tacmap").read_bytes())
    return shown(qtbot, MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                                   tell=lambda text: None), (1200, 800))


def test_editing_a_caster_keeps_a_spell_memorised_twice(qtbot: object, registry: Registry,
                                                        tmp_path: Path) -> None:
    """speed_rank: "a spell listed twice can be cast twice". Mira memorised Magic Missile
    twice; the GM edits only her hit points, and she still has both."""
    win = _speed_rank_window(qtbot, registry, tmp_path)
    ref = win.session.referee
    win.select("mira")
    form = win.edit_combatant()
    assert form is not None
    form.hp.setValue(form.hp.value() - 3)
    assert form.try_accept()
    assert list(ref.state.tokens["mira"].stats["spells"]) == \
        ["magic_missile", "magic_missile", "sleep", "fireball"]


def test_the_form_memorises_a_spell_twice(qtbot: object, registry: Registry,
                                          tmp_path: Path) -> None:
    """A repeatable list is a count per choice: Sleep twice, Magic Missile once less."""
    win = _speed_rank_window(qtbot, registry, tmp_path)
    ref = win.session.referee
    win.select("mira")
    form = win.edit_combatant()
    assert form is not None
    counts = form.editors["spells"].widget
    assert counts.count_of("magic_missile") == 2 and counts.count_of("sleep") == 1  # type: ignore[attr-defined]
    counts.set_count("sleep", 2)  # type: ignore[attr-defined]
    counts.set_count("magic_missile", 1)  # type: ignore[attr-defined]
    assert form.try_accept()
    assert list(ref.state.tokens["mira"].stats["spells"]) == \
        ["magic_missile", "sleep", "fireball", "sleep"]
    # Memorised twice, cast twice: the second Sleep is still there after the first.
    entry = ref.log[-1]
    assert "spells" in entry.events[0].text(ref.state)


def test_removing_a_roster_entry_asks_first_and_says_so(window: MainWindow) -> None:
    """Remove deleted the entry at once, silently, with no undo."""
    window.select("zog")
    window.ask_tags = lambda name: ""
    window.save_to_roster()
    panel = window.roster_panel
    assert len(panel.refresh()) == 1
    window.rosters.remove_from_roster()  # nothing highlighted
    assert window.statusBar().currentMessage() == "Select a roster entry first (click it)."
    panel.entries.setCurrentRow(0)
    asked: list[str] = []
    window.ask = lambda question: asked.append(question) is not None  # no
    window.rosters.remove_from_roster()
    assert asked == ["Remove Zog from the roster? This cannot be undone."]
    assert len(panel.refresh()) == 1  # kept: the GM said no
    panel.entries.setCurrentRow(0)
    window.ask = lambda question: True
    window.rosters.remove_from_roster()
    assert panel.refresh() == []
    assert window.statusBar().currentMessage() == "Zog removed from the roster"


def test_a_roster_export_is_json_and_an_import_says_where_its_entries_went(
        window: MainWindow, tmp_path: Path) -> None:
    """Export wrote "roster_out" with no .json (Import's filter then hid it); importing
    another ruleset's entries said "3 combatants imported" and listed none."""
    window.select("zog")
    window.ask_tags = lambda name: ""
    window.save_to_roster()
    window.ask_file = lambda title, save: tmp_path / "roster_out"
    window.rosters.export_roster()
    exported = tmp_path / "roster_out.json"
    assert exported.is_file() and not (tmp_path / "roster_out").exists()
    window.ask_file = lambda title, save: exported
    window.rosters.import_roster()
    assert window.statusBar().currentMessage() == \
        "No combatants imported: 1 entry already kept"
    roster = window.roster()
    assert roster is not None
    roster.remove(window.roster_panel.refresh()[0].id)  # an empty roster, and then
    window.start_new("action_pool", 12, 10, "Elsewhere")  # an encounter of another ruleset
    window.rosters.import_roster()
    assert window.statusBar().currentMessage() == \
        "0 combatants imported for action_pool; 1 combatant for skirmish (listed in its " \
        "encounters)"
