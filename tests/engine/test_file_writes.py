"""Issue 33, files lost or overwritten: what tacmap writes never goes through a link into
someone else's file, never replaces another file without asking, never waits on a pipe."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tacmap.engine.files import storage

posix = pytest.mark.skipif(os.name != "posix", reason="links, pipes and devices")


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@posix
def test_a_link_in_the_folder_is_never_written_through(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    images = tmp_path / "images"
    images.mkdir()
    (images / "crypt.png").symlink_to(notes)
    name, made = storage.place(images, "crypt.png", b"\x89PNG new map")
    assert (name, made) == ("crypt-2.png", True)
    assert notes.read_text() == "my notes" and (images / "crypt.png").is_symlink()
    assert (images / "crypt-2.png").read_bytes() == b"\x89PNG new map"
    assert listing(images) == ["crypt-2.png", "crypt.png"]  # no temp file left


@posix
def test_a_dangling_link_is_not_followed_to_make_a_file_elsewhere(tmp_path: Path) -> None:
    images = tmp_path / "images"
    images.mkdir()
    (images / "crypt.png").symlink_to(tmp_path / "planted.txt")
    assert storage.place(images, "crypt.png", b"map") == ("crypt-2.png", True)
    assert not (tmp_path / "planted.txt").exists()


def test_another_file_is_kept_and_the_same_bytes_are_used_where_they_are(
        tmp_path: Path) -> None:
    images = tmp_path / "images"
    images.mkdir()
    (images / "crypt.png").write_bytes(b"another encounter's map")
    assert storage.place(images, "crypt.png", b"this map") == ("crypt-2.png", True)
    assert (images / "crypt.png").read_bytes() == b"another encounter's map"
    # The same picture again is not copied twice; other bytes take the next free name.
    assert storage.place(images, "crypt.png", b"this map") == ("crypt-2.png", False)
    assert storage.place(images, "crypt.png", b"an edited map") == ("crypt-3.png", True)
    # Without a fresh name, a taken name is left alone and nothing is written.
    assert storage.place(images, "crypt.png", b"this map", fresh=False) == (None, False)
    assert listing(images) == ["crypt-2.png", "crypt-3.png", "crypt.png"]


@posix
def test_a_subfolder_that_leads_out_through_a_link_is_never_written_into(
        tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    images = tmp_path / "images"
    images.mkdir()
    (images / "sub").symlink_to(outside, target_is_directory=True)
    assert storage.place(images, "sub/map.png", b"map") == (None, False)
    assert listing(outside) == []


@posix
def test_the_image_folder_itself_may_be_a_link(tmp_path: Path) -> None:
    """A folder of maps shared by several encounters, as reading allows it."""
    shared = tmp_path / "maps"
    shared.mkdir()
    (tmp_path / "images").symlink_to(shared, target_is_directory=True)
    assert storage.place(tmp_path / "images", "cave.png", b"cave") == ("cave.png", True)
    assert (shared / "cave.png").read_bytes() == b"cave"


@posix
@pytest.mark.parametrize("kind", ["pipe", "folder", "device", "link to a pipe"])
def test_writing_over_a_pipe_a_folder_or_a_device_is_refused_and_leaves_it(
        tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out.png"
    special = tmp_path / "special"
    if kind == "folder":
        special.mkdir()
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(special, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device, here
    else:
        os.mkfifo(special)
    if kind == "link to a pipe":
        target.symlink_to(special)
    else:
        special.rename(target)
        special = target
    mode = os.lstat(special).st_mode
    with pytest.raises(storage.NotAFile, match="not a file"):
        storage.write_atomic(target, b"image")
    assert os.lstat(special).st_mode == mode  # still the pipe, folder or device it was
    assert [p for p in listing(tmp_path) if p.endswith(".tmp")] == []


@posix
def test_copying_an_image_refuses_a_link_that_leads_out_of_its_folder(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.png").write_bytes(b"private")
    old, new = tmp_path / "old" / "images", tmp_path / "new" / "images"
    old.mkdir(parents=True)
    (old / "map.png").symlink_to(outside / "private.png")
    (old / "art").mkdir()
    (old / "art" / "cave.png").write_bytes(b"cave")
    (old / "cave.png").symlink_to(old / "art" / "cave.png")  # a link that stays inside
    os.mkfifo(old / "pipe.png")
    assert not storage.copy_image(old, "map.png", new)
    assert not storage.copy_image(old, "pipe.png", new)
    assert not storage.copy_image(old, "missing.png", new)
    assert storage.copy_image(old, "cave.png", new)
    assert listing(new) == ["cave.png"] and (new / "cave.png").read_bytes() == b"cave"
    assert not (new / "cave.png").is_symlink()
