"""Two windows on one file, a window that died holding it, an autosave a kill cut short."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import FreeMove, StartCombat
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Encounter, Token
from tacmap.engine.rules.ruleset import Registry
from tacmap.ui import app, applog
from tacmap.ui.session import Session, restore_untitled, untitled_autosaves
from tacmap.ui.window import MainWindow
from tests.engine.helpers import skirmish_state
from tests.ui.conftest import shown


def open_window(qtbot: object, registry: Registry, path: Path) -> MainWindow:
    """A window on ``path`` as ``tacmap FILE`` opens it; what it tells is kept in ``told``."""
    told: list[str] = []
    win = MainWindow(registry, Session.open(registry, path), ask=lambda q: False,
                     tell=told.append)
    win.told = told  # type: ignore[attr-defined]
    return shown(qtbot, win, (900, 600))


def test_a_second_window_on_an_open_file_gets_a_copy_and_says_so(
        qtbot: object, registry: Registry, encounter_file: Path) -> None:
    first = open_window(qtbot, registry, encounter_file)
    second = open_window(qtbot, registry, encounter_file)
    assert first.session.path == encounter_file
    assert second.session.path is None and second.session.copy_of == encounter_file
    assert len(second.told) == 1 and "open in another tacmap window" in second.told[0]
    assert "unsaved copy of fight.tacmap" in second.windowTitle()
    # Each keeps its own autosave: the second's work never overwrites the first's.
    first.run(StartCombat(("ana", "grul", "bo", "zog")))
    first.session.autosave_now()
    mine = first.session.autosave_path.read_bytes()
    second.run(FreeMove("ana", (3, 3)))
    second.session.autosave_now()
    assert second.session.autosave_path != first.session.autosave_path
    assert first.session.autosave_path.read_bytes() == mine
    # Saving the copy over the file the first window holds is refused in a sentence.
    with pytest.raises(InputError, match="open in another tacmap window"):
        second.session.save(encounter_file)
    assert storage.load(encounter_file, registry).log == []


def test_a_file_closed_in_one_window_opens_for_real_in_the_next(
        qtbot: object, registry: Registry, encounter_file: Path) -> None:
    first = open_window(qtbot, registry, encounter_file)
    first.close()
    second = open_window(qtbot, registry, encounter_file)
    assert second.session.path == encounter_file and second.told == []


def test_opening_another_file_lets_go_of_the_first(
        qtbot: object, registry: Registry, encounter_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.tacmap"
    other.write_bytes(encounter_file.read_bytes())
    first = open_window(qtbot, registry, encounter_file)
    assert first.open_path(other)
    assert Session.open(registry, encounter_file).path == encounter_file


_HOLDER = """
import sys
from PySide6.QtCore import QLockFile
lock = QLockFile(sys.argv[1])
lock.setStaleLockTime(0)
print("held" if lock.tryLock(100) else "refused", flush=True)
sys.stdin.readline()
"""


@pytest.mark.skipif(os.name != "posix", reason="kill -9 is POSIX")
def test_a_lock_left_by_a_killed_window_is_taken_over(
        qtbot: object, registry: Registry, encounter_file: Path) -> None:
    lock = encounter_file.with_name(f".{encounter_file.name}.lock")
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    assert Session.open(registry, encounter_file).copy_of == encounter_file  # alive: taken
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    for pipe in (holder.stdin, holder.stdout):
        pipe.close()  # type: ignore[union-attr]
    assert lock.exists()  # the dead window's lock is still on disk …
    win = open_window(qtbot, registry, encounter_file)
    assert win.session.path == encounter_file and win.told == []  # … and no longer counts


def test_an_untitled_autosave_is_offered_back_even_without_its_src_file(
        registry: Registry) -> None:
    state = Encounter(ruleset="skirmish")
    state.tokens["a"] = Token("a", "A", "x", 1, 1)
    lost = Session(registry, state)
    lost.referee.execute(FreeMove("a", (4, 4)))
    # Killed after the autosave was written, before its .src file was.
    lost.autosave_path.with_name(lost.autosave_path.name + ".src").unlink()
    lost.release()  # the process dies: its claim on the autosave goes with it
    assert untitled_autosaves() == [lost.autosave_path]


def test_an_autosave_keeps_no_backup_of_itself(registry: Registry, encounter_file: Path) -> None:
    session = Session.open(registry, encounter_file)
    for cell in ((3, 3), (4, 4)):
        session.referee.execute(FreeMove("ana", cell))
    auto = session.autosave_path
    assert auto.is_file() and not auto.with_name(auto.name + ".bak").exists()
    session.release()


def test_two_windows_on_one_file_autosave_1000_times_and_lose_nothing(
        qtbot: object, registry: Registry, encounter_file: Path) -> None:
    first = open_window(qtbot, registry, encounter_file)
    second = open_window(qtbot, registry, encounter_file)
    failures: list[str] = []
    for win in (first, second):
        win.session.on_autosave_error = failures.append
    for n in range(500):
        for win, token in ((first, "ana"), (second, "bo")):
            win.session.referee.state.name = f"{token} {n}"  # a change each time
            win.session.saved_version = -1
            win.session.autosave_now()
    assert failures == []
    assert storage.load(first.session.autosave_path, registry).state.name == "ana 499"
    assert storage.load(second.session.autosave_path, registry).state.name == "bo 499"
    first.save()
    assert storage.load(encounter_file, registry).state.name == "ana 499"


@pytest.mark.skipif(os.name != "posix", reason="symbolic links need privileges on Windows")
def test_a_link_to_an_open_file_opens_as_a_copy(
        qtbot: object, registry: Registry, encounter_file: Path, tmp_path: Path) -> None:
    """Issue 33 item 4: the lock is on the file itself, not on the name it was opened by."""
    links = tmp_path / "links"
    links.mkdir()
    link = links / "L.tacmap"
    link.symlink_to(encounter_file)
    first = open_window(qtbot, registry, encounter_file)
    second = open_window(qtbot, registry, link)
    assert second.session.path is None and second.session.copy_of == link
    assert len(second.told) == 1 and "open in another tacmap window" in second.told[0]
    assert not (links / ".L.tacmap.lock").exists()
    # Each writes its own autosave, and the copy cannot be saved over the file by its link.
    first.run(StartCombat(("ana", "grul", "bo", "zog")))
    first.session.autosave_now()
    mine = first.session.autosave_path.read_bytes()
    second.run(FreeMove("ana", (3, 3)))
    second.session.autosave_now()
    assert first.session.autosave_path.read_bytes() == mine
    with pytest.raises(InputError, match="open in another tacmap window"):
        second.session.save(link)
    first.close()
    third = open_window(qtbot, registry, link)  # let go: the link opens it for real
    assert third.session.path == link and third.told == []


def test_starting_without_a_file_leaves_an_open_windows_autosave_alone(
        qtbot: object, registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33 item 3: ``tacmap`` offered the autosave of a window still open."""
    asked: list[str] = []
    monkeypatch.setattr(applog, "restore_question", lambda q: asked.append(q) or True)
    first = shown(qtbot, MainWindow(registry, Session(registry, skirmish_state()),
                                    ask=lambda q: False, tell=lambda text: None), (900, 600))
    first.run(FreeMove("ana", (3, 3)))
    first.session.autosave_now()
    assert first.session.autosave_path.is_file()
    _, second = app.open_window(registry, None)
    qtbot.addWidget(second)  # type: ignore[attr-defined]
    second.ask_save = lambda q: False  # closing it at the end discards, without a dialog
    assert asked == []
    second.run(FreeMove("ana", (5, 5)))
    second.session.autosave_now()
    assert second.session.autosave_path != first.session.autosave_path
    assert storage.load(first.session.autosave_path, registry).state.tokens["ana"].cell == (3, 3)


@pytest.mark.skipif(os.name != "posix", reason="kill -9 is POSIX")
def test_an_untitled_autosave_is_offered_once_its_window_is_killed(
        qtbot: object, registry: Registry, tacmap_home: Path) -> None:
    """Issue 33 item 3: the owner's lock tells a running window from one that died."""
    auto = tacmap_home / "autosave" / "untitled-0123456789ab.tacmap"
    auto.parent.mkdir(parents=True)
    storage.save(auto, skirmish_state(), [], backup=False)
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER,
                               str(auto.with_name(f".{auto.name}.lock"))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert untitled_autosaves() == []  # its window runs: not offered, not taken
        with pytest.raises(InputError, match="open in another tacmap window"):
            restore_untitled(registry, auto)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        for pipe in (holder.stdin, holder.stdout):
            pipe.close()  # type: ignore[union-attr]
    assert untitled_autosaves() == [auto]
    back = restore_untitled(registry, auto)
    assert untitled_autosaves() == []  # the window that restored it owns it now
    back.referee.execute(FreeMove("ana", (6, 6)))
    assert storage.load(auto, registry).state.tokens["ana"].cell == (6, 6)
    back.release()
