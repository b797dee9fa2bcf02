"""``tacmap desktop install`` / ``uninstall`` (issue 40 item 4): the menu entry, icon and
file type of a pip, pipx or uv install, for the current user."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tacmap.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    return tmp_path / "share"


def entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG folders are Linux's")
def test_install_writes_a_menu_entry_that_starts_this_tacmap_and_uninstall_takes_it_away(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["desktop", "install"]) == 0
    assert "installed the menu entry" in capsys.readouterr().out
    desktop = home / "applications" / "tacmap.desktop"
    ours, deb = entry(desktop), entry(ROOT / "packaging" / "linux" / "tacmap.desktop")
    # The .deb's entry, with this install's command.
    assert {k: v for k, v in ours.items() if k not in ("Exec", "TryExec")} == \
        {k: v for k, v in deb.items() if k not in ("Exec", "TryExec")}
    command = shlex.split(ours["Exec"].removesuffix(" %f"))
    done = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert done.returncode == 0 and "tacmap" in done.stdout
    if shutil.which("desktop-file-validate"):
        assert subprocess.run(["desktop-file-validate", str(desktop)]).returncode == 0
    assert (home / "mime" / "packages" / "tacmap.xml").read_text().count("*.tacmap") == 1
    for size in ("16x16", "48x48", "256x256"):
        assert (home / "icons" / "hicolor" / size / "apps" / "tacmap.png").is_file()
    assert (home / "icons" / "hicolor" / "scalable" / "apps" / "tacmap.svg").is_file()
    assert main(["desktop", "install"]) == 0  # again: the same files, nothing doubled
    assert main(["desktop", "uninstall"]) == 0
    assert "removed 9 files" in capsys.readouterr().out
    assert not desktop.exists()
    assert not list(home.rglob("tacmap*"))
    assert main(["desktop", "uninstall"]) == 0
    assert "nothing to remove" in capsys.readouterr().out


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG folders are Linux's")
def test_a_folder_it_cannot_write_is_one_sentence_and_nothing_half_written(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home.mkdir()
    # The entry and the file type are written before the icons fail: they go again.
    (home / "icons").write_text("a file where the folder should be")
    assert main(["desktop", "install"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tacmap desktop install:") and len(err.splitlines()) == 1
    assert [p for p in home.rglob("*") if p.is_file()] == [home / "icons"]


def test_the_mime_type_is_the_deb_s() -> None:
    from tacmap.desktop import MIME_XML

    deb = (ROOT / "packaging" / "linux" / "tacmap-mime.xml").read_text(encoding="utf-8")
    assert [line for line in deb.splitlines() if not line.startswith("<!--")] == \
        MIME_XML.splitlines()
