"""File ▸ Import Map, Import Walls and Export Fight Report in the window, and ``tacmap report``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.files.uvtt_sample import rooms
from tacmap.engine.model.commands import SetDoor, SetHp
from tacmap.engine.model.events import HpChanged
from tacmap.engine.model.state import Token
from tacmap.engine.play.referee import Entry
from tacmap.ui import imports
from tacmap.ui.qt import QApplication, QDialog, QFileDialog, QMenu, submenu
from tacmap.ui.window import MainWindow
from tests.conftest import TEST_RULESETS
from tests.engine.test_report import checked


def uvtt_file(tmp_path: Path, **kwargs: object) -> Path:
    path = tmp_path / "crypt.dd2vtt"
    path.write_text(json.dumps(rooms(**kwargs)))  # type: ignore[arg-type]
    return path


def test_import_map_opens_a_new_encounter_on_the_image(window: MainWindow,
                                                       tmp_path: Path) -> None:
    assert imports.import_map(window, window.files, uvtt_file(tmp_path), "action_pool")
    QApplication.processEvents()
    state = window.session.referee.state
    assert state.ruleset == "action_pool" and state.name == "crypt"
    assert (state.map.width, state.map.height, len(state.map.walls)) == (30, 20, 12)
    assert state.fog.enabled and window.session.path is None
    # The image was kept in the encounter's image folder and drawn without complaint.
    assert (window.session.image_folder / "crypt.png").is_file()
    assert window.scene.problems == []
    assert window.scene.picture("crypt.png") is not None
    assert "Imported crypt.dd2vtt: 30×20 cells, 9 walls, 3 doors" in \
        window.statusBar().currentMessage()
    # The imported door opens like a drawn one.
    door = next(i for i, w in enumerate(state.map.walls) if w.kind == "door" and not w.open)
    assert window.combat.run(SetDoor(door, True))
    assert window.session.referee.state.map.walls[door].open


def test_import_map_with_a_bad_file_keeps_the_encounter(window: MainWindow,
                                                        tmp_path: Path) -> None:
    bad = tmp_path / "bad.uvtt"
    bad.write_text(json.dumps({"format": 0.3}))
    before = window.session
    assert not imports.import_map(window, window.files, bad, "action_pool")
    assert window.session is before
    assert window.told[-1].endswith("resolution: missing; a Universal VTT map gives its grid "  # type: ignore[attr-defined]
                                    "there (map_origin, map_size, pixels_per_grid)")


def test_import_walls_replaces_them_as_one_undo(window: MainWindow, tmp_path: Path) -> None:
    old = window.session.referee.state.map.walls
    assert imports.import_walls(window, uvtt_file(tmp_path, image=False))
    walls = window.session.referee.state.map.walls
    # The skirmish map is 12×10: the file's walls are clipped to it.
    assert walls != old and all(x <= 12 and y <= 10 for w in walls for x, y in w.points)
    assert "clipped to this 12×10 map" in window.statusBar().currentMessage()
    window.combat.undo()
    assert window.session.referee.state.map.walls == old


def test_export_report_writes_the_players_page(window: MainWindow, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert imports.export_report(window, out, gm=False)
    page = checked(out.read_text())
    assert len(page.images) == 2


def test_export_report_of_a_log_that_does_not_fit_says_why_and_writes_nothing(
        window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33 item 15: it used to write nothing and say nothing (the error went to stderr)."""
    told: list[str] = []
    monkeypatch.setattr(window, "error", told.append)
    window.session.referee.log.append(Entry(SetHp("ghost", 3), [HpChanged("ghost", 5, 3)]))
    out = tmp_path / "report.html"
    assert not imports.export_report(window, out, gm=False)
    assert told == ["Could not write the fight report: log entry 2 does not match the map: it "
                    "cannot be undone (it names 'ghost', which is not on the map)"]
    assert not out.exists()


def test_the_file_menu_offers_import_and_report(window: MainWindow,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: ("", ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
    monkeypatch.setattr(QDialog, "exec", lambda self: QDialog.DialogCode.Rejected)
    menu = submenu(window.menuBar().actions()[0], window.menuBar())
    assert isinstance(menu, QMenu)
    names = {a.text().replace("&", ""): a for a in menu.actions()}
    for name in ("Import Map…", "Import Walls…", "Export Fight Report…"):
        names[name].trigger()  # cancelled at once: the encounter stays
    assert window.session.referee.state.name != "crypt"


def test_report_command_writes_one_self_contained_page(tmp_path: Path, registry: object,
                                                       capsys: pytest.CaptureFixture[str],
                                                       encounter_file: Path) -> None:
    out = tmp_path / "fight.html"
    code = main(["--rulesets-dir", str(TEST_RULESETS), "report", str(encounter_file), str(out)])
    text, err = capsys.readouterr()
    assert code == 0, err
    assert text.startswith(f"{out}: fight report of ") and "(for the players)" in text
    checked(out.read_text())


def test_a_hidden_token_is_not_on_the_players_maps(window: MainWindow, tmp_path: Path) -> None:
    from tacmap.ui.report import map_png

    state = window.session.referee.state.copy()
    state.tokens["ghost"] = Token("ghost", "Ghost", "orcs", 10, 8, hidden=True)
    ruleset = window.session.referee.ruleset
    plain = window.session.referee.state
    assert map_png(state, ruleset, None, True) == map_png(plain, ruleset, None, True)
    assert map_png(state, ruleset, None, False) != map_png(plain, ruleset, None, False)



def test_the_menu_imports_under_the_open_encounters_ruleset(
        window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = uvtt_file(tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(source), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "night one"), ""))
    monkeypatch.setattr(QDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
    menu = submenu(window.menuBar().actions()[0], window.menuBar())
    assert isinstance(menu, QMenu)
    names = {a.text().replace("&", ""): a for a in menu.actions()}
    names["Import Map…"].trigger()
    QApplication.processEvents()
    state = window.session.referee.state
    assert (state.name, state.ruleset, len(state.map.walls)) == ("crypt", "skirmish", 12)
    names["Export Fight Report…"].trigger()
    assert "crypt" in " ".join(checked((tmp_path / "night one.html").read_text()).text)
