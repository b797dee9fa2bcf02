"""Issue 33, files lost or overwritten by the window: Load Map Image and a portrait never write
through a link nor over another file of the image folder; Save As and a second window's copy
never bring in a file a link leads to from outside the encounter's folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui.qt import QColor, QImage
from tacmap.ui.session import Session
from tacmap.ui.window import MainWindow
from tests.engine.helpers import skirmish_state
from tests.ui.conftest import shown

posix = pytest.mark.skipif(os.name != "posix", reason="symbolic links")


def picture(path: Path, colour: str = "#336699") -> Path:
    """A small one-colour PNG at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    image = QImage(40, 30, QImage.Format.Format_RGB32)
    image.fill(QColor(colour))
    assert image.save(str(path))
    return path


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --- item 1: Load Map Image and portraits ---------------------------------------------------

@posix
def test_load_map_image_never_writes_through_a_link(window: MainWindow, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    images = tmp_path / "images"  # beside fight.tacmap
    images.mkdir()
    (images / "cave.png").symlink_to(notes)
    source = picture(tmp_path / "downloads" / "cave.png")
    window.use_image(source)
    assert notes.read_text() == "my notes" and (images / "cave.png").is_symlink()
    assert window.session.referee.state.map.image == "cave-2.png"
    assert (images / "cave-2.png").read_bytes() == source.read_bytes()


def test_load_map_image_keeps_another_picture_of_the_same_name(
        window: MainWindow, tmp_path: Path) -> None:
    other = picture(tmp_path / "images" / "cave.png", "#aa0000").read_bytes()  # another map's
    mine = picture(tmp_path / "downloads" / "cave.png")
    window.use_image(mine)
    assert window.session.referee.state.map.image == "cave-2.png"
    assert (tmp_path / "images" / "cave.png").read_bytes() == other
    # The same picture loaded again is used where it is, not copied a third time.
    window.use_image(mine)
    assert window.session.referee.state.map.image == "cave-2.png"
    assert names(tmp_path / "images") == ["cave-2.png", "cave.png"]
    # An edited picture of the same name is kept beside it: undo brings back the first.
    first = (tmp_path / "images" / "cave-2.png").read_bytes()
    window.use_image(picture(mine, "#00aa00"))
    assert window.session.referee.state.map.image == "cave-3.png"
    window.session.referee.undo()
    assert window.session.referee.state.map.image == "cave-2.png"
    assert (tmp_path / "images" / "cave-2.png").read_bytes() == first


@posix
def test_a_portrait_never_writes_through_a_link(window: MainWindow, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "ana.png").symlink_to(notes)
    png = picture(tmp_path / "elsewhere" / "ana.png", "#c04000")
    window.ask_image = lambda: png
    window.select("ana")
    form = window.edit_combatant()
    assert form is not None
    form._choose()
    assert form.image.text() == "ana-2.png"
    assert form.try_accept()
    assert window.session.referee.state.tokens["ana"].image == "ana-2.png"
    assert notes.read_text() == "my notes"


# --- item 5: Save As and a second window's copy ---------------------------------------------

@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """An encounter whose map image and a portrait link to files outside its folder, and a
    portrait whose link stays inside its image folder."""
    outside = tmp_path / "outside"
    picture(outside / "private.png")
    (outside / "secret.txt").write_text("a private text")
    images = tmp_path / "enc" / "images"
    images.mkdir(parents=True)
    (images / "map.png").symlink_to(outside / "private.png")
    (images / "notes.png").symlink_to(outside / "secret.txt")
    picture(images / "art" / "grul.png")
    (images / "grul.png").symlink_to(images / "art" / "grul.png")
    state = skirmish_state()
    state.map.image = "map.png"
    state.tokens["ana"].image = "notes.png"
    state.tokens["grul"].image = "grul.png"
    path = tmp_path / "enc" / "fight.tacmap"
    storage.save(path, state, [])
    return path


@posix
def test_save_as_never_copies_a_file_a_link_brings_from_outside(
        qtbot: object, registry: Registry, linked: Path, tmp_path: Path) -> None:
    window = shown(qtbot, MainWindow(registry, Session.open(registry, linked),
                                     ask=lambda q: False, tell=lambda text: None), (900, 600))
    target = tmp_path / "copy" / "fight.tacmap"
    target.parent.mkdir()
    assert window.files.save_to(target)
    images = target.parent / "images"
    assert names(images) == ["grul.png"]  # the link inside the folder: copied as a file
    assert not (images / "grul.png").is_symlink()
    assert storage.load(target, registry).state.map.image == "map.png"  # named, not drawn


@posix
def test_a_second_windows_copy_never_copies_a_file_a_link_brings_from_outside(
        registry: Registry, linked: Path, tmp_path: Path) -> None:
    first = Session.open(registry, linked)
    second = Session.open(registry, linked)
    try:
        assert second.copy_of == linked
        assert names(second.image_folder) == ["grul.png"]
        target = tmp_path / "copy" / "fight.tacmap"
        target.parent.mkdir()
        second.save(target)
        assert names(target.parent / "images") == ["grul.png"]
    finally:
        second.release()
        first.release()
