"""Issue 33, files lost or overwritten by the command line: ``import`` never writes through a
link nor over another encounter's image, a failure removes only what it made, and every OUT
is written whole (a full disk leaves the old file) and never into a pipe."""

from __future__ import annotations

import base64
import errno
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.files import storage
from tacmap.engine.files.uvtt_sample import rooms
from tacmap.engine.rules.ruleset import Registry
from tests.conftest import TEST_RULESETS
from tests.engine.helpers import skirmish_state

ROOT = Path(__file__).parents[1]
R = ["--rulesets-dir", str(TEST_RULESETS)]
posix = pytest.mark.skipif(os.name != "posix", reason="links, pipes and file size limits")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*R, *args])
    out, err = capsys.readouterr()
    return code, out, err


def child(*args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """``tacmap ARGS`` in a process of its own: a command that waits on a pipe ends at the
    timeout instead of stopping the test run. ``limit`` caps the size of any file it writes
    (a disk that fills up part way through)."""
    def cap() -> None:
        if limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails instead
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "tacmap", *R, *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT, env=env, preexec_fn=cap)


def uvtt_file(tmp_path: Path) -> Path:
    source = tmp_path / "rooms.dd2vtt"
    source.write_text(json.dumps(rooms()))
    return source


def map_bytes() -> bytes:
    """The image ``tacmap import`` writes for ``rooms()``."""
    return base64.b64decode(rooms()["image"])


def encounter(tmp_path: Path) -> Path:
    path = tmp_path / "fight.tacmap"
    storage.save(path, skirmish_state(), [])
    return path


# --- item 1: import writes through a link, over another encounter's image --------------------

@posix
def test_import_never_writes_through_a_link_in_the_image_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], registry: Registry) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    images = tmp_path / "b" / "images"
    images.mkdir(parents=True)
    (images / "crypt.png").symlink_to(notes)
    code, out, err = run(capsys, "import", str(uvtt_file(tmp_path)),
                         str(tmp_path / "b" / "crypt.tacmap"), "--ruleset", "action_pool")
    assert code == 0, err
    assert notes.read_text() == "my notes" and (images / "crypt.png").is_symlink()
    loaded = storage.load(tmp_path / "b" / "crypt.tacmap", registry)
    assert loaded.state.map.image == "crypt-2.png"
    assert (images / "crypt-2.png").read_bytes() == map_bytes()
    assert f"image in {images / 'crypt-2.png'}" in out
    assert "note: images/crypt.png is taken (another file or a link): the image is " \
           "crypt-2.png" in out


def test_import_keeps_another_encounters_image_of_the_same_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], registry: Registry) -> None:
    images = tmp_path / "images"
    images.mkdir()
    (images / "crypt.png").write_bytes(b"the old crypt's map")
    code, _, err = run(capsys, "import", str(uvtt_file(tmp_path)), str(tmp_path / "crypt.tacmap"),
                       "--ruleset", "action_pool")
    assert code == 0, err
    assert (images / "crypt.png").read_bytes() == b"the old crypt's map"
    assert storage.load(tmp_path / "crypt.tacmap", registry).state.map.image == "crypt-2.png"


def test_importing_the_same_map_again_uses_its_image_where_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], registry: Registry) -> None:
    source, out = uvtt_file(tmp_path), tmp_path / "crypt.tacmap"
    assert run(capsys, "import", str(source), str(out), "--ruleset", "action_pool")[0] == 0
    code, text, err = run(capsys, "import", str(source), str(out), "--ruleset", "action_pool",
                          "--force")
    assert code == 0, err
    assert storage.load(out, registry).state.map.image == "crypt.png"
    assert sorted(p.name for p in (tmp_path / "images").iterdir()) == ["crypt.png"]
    assert "is taken" not in text


# --- item 2: a failed import removes only what it made ----------------------------------------

@pytest.mark.parametrize("there", ["the same map", "another map"])
def test_a_failed_import_keeps_the_image_that_was_there(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        there: str) -> None:
    images = tmp_path / "images"
    images.mkdir()
    old = map_bytes() if there == "the same map" else b"another encounter's map"
    (images / "crypt.png").write_bytes(old)
    source = uvtt_file(tmp_path)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)  # the disk is full: nothing can be written
    code, out, err = run(capsys, "import", str(source), str(tmp_path / "crypt.tacmap"),
                         "--ruleset", "action_pool")
    monkeypatch.undo()
    assert code == 2 and out == ""
    assert err == f"tacmap: {tmp_path / 'crypt.tacmap'}: cannot write (No space left on device)\n"
    assert (images / "crypt.png").read_bytes() == old
    assert sorted(p.name for p in images.iterdir()) == ["crypt.png"]
    assert not (tmp_path / "crypt.tacmap").exists()


# --- item 7: render writes whole, and never into a pipe ---------------------------------------

@posix
def test_render_on_a_full_disk_keeps_the_old_image(tmp_path: Path) -> None:
    path, out = encounter(tmp_path), tmp_path / "map.png"
    assert child("render", str(path), str(out), "--scale", "4").returncode == 0
    before = out.read_bytes()
    # Room for the old image, not for the new one at ten times the scale.
    done = child("render", str(path), str(out), "--scale", "40", limit=len(before) + 1024)
    assert done.returncode == 2
    assert done.stderr == f"tacmap: {out}: cannot write the image (File too large)\n"
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fight.tacmap", "map.png"]


@posix
@pytest.mark.parametrize("command", ["render", "report", "play --out", "new --force",
                                     "new --demo", "import --force"])
def test_a_named_pipe_as_out_is_refused_at_once_and_left_a_pipe(
        tmp_path: Path, command: str) -> None:
    path = encounter(tmp_path)
    script = tmp_path / "s.jsonl"
    script.write_text('{"type": "start_combat", "order": ["ana", "grul", "bo", "zog"]}\n')
    out = tmp_path / ("out.png" if command == "render" else "out.html" if command == "report"
                      else "out.tacmap")
    os.mkfifo(out)
    args = {"render": ["render", str(path), str(out)],
            "report": ["report", str(path), str(out)],
            "play --out": ["play", str(path), "--script", str(script), "--out", str(out)],
            "new --force": ["new", "--ruleset", "skirmish", str(out), "--force"],
            "new --demo": ["new", "--demo", "action_pool", str(out), "--force"],
            "import --force": ["import", str(uvtt_file(tmp_path)), str(out), "--ruleset",
                               "action_pool", "--force"]}[command]
    done = child(*args)
    assert done.returncode == 2
    assert done.stderr.endswith(f"tacmap: {out}: cannot write"
                                f"{' the image' if command == 'render' else ''} "
                                "(it is a named pipe, not a file)\n"), done.stderr
    assert done.stderr.count("\n") == 1 and done.stdout == ""  # refused before it ran
    assert out.is_fifo()
    assert not (tmp_path / "images").exists()  # import made nothing it then left behind
