"""The Linux desktop files agree with each other and pass the freedesktop validators."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tacmap import __version__

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "packaging" / "linux"
DESKTOP = LINUX / "tacmap.desktop"
METAINFO = LINUX / "io.github.tacmap.metainfo.xml"
MIME = LINUX / "tacmap-mime.xml"
QT_XCB_LIBS = ("libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1", "libxcb-image0",
               "libxcb-render-util0", "libxkbcommon-x11-0", "libegl1", "libgl1",
               "libfontconfig1", "libdbus-1-3")


def _entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def _metainfo() -> ElementTree.Element:
    return ElementTree.parse(METAINFO).getroot()


def test_the_desktop_entry_starts_tacmap_with_its_icon() -> None:
    entry = _entry()
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] == "tacmap"  # /usr/bin/tacmap, the .deb's launcher
    assert entry["Icon"] == "tacmap"
    assert (ROOT / "resources" / "icons" / f"{entry['Icon']}.svg").is_file()
    assert entry["StartupWMClass"] == "tacmap"  # Qt's WM_CLASS for the app name "tacmap"
    assert entry["Categories"].split(";")[:2] == ["Game", "RolePlaying"]


def test_metainfo_matches_the_desktop_entry_and_the_version() -> None:
    meta = _metainfo()
    assert meta.get("type") == "desktop-application"
    assert meta.findtext("id") == "io.github.tacmap"
    assert METAINFO.name == f"{meta.findtext('id')}.metainfo.xml"
    assert meta.findtext("project_license") == "MIT"
    assert meta.findtext("launchable[@type='desktop-id']") == DESKTOP.name
    assert meta.findtext("provides/binary") == "tacmap"
    releases = [r.get("version") for r in meta.findall("releases/release")]
    assert releases[0] == __version__, "add a <release> for this version to the metainfo"


def test_the_mime_type_is_the_same_everywhere() -> None:
    ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
    mime = ElementTree.parse(MIME).getroot().find("m:mime-type", ns)
    assert mime is not None
    kind = mime.get("type")
    assert mime.find("m:glob", ns) is not None
    assert mime.find("m:glob", ns).get("pattern") == "*.tacmap"  # type: ignore[union-attr]
    assert _entry()["MimeType"] == f"{kind};"
    assert _metainfo().findtext("provides/mediatype") == kind


def test_the_deb_depends_on_the_qt_xcb_libraries() -> None:
    script = (ROOT / "packaging" / "build-deb.sh").read_text(encoding="utf-8")
    found = re.search(r'^depends="(.*?)"$', script, re.M | re.S)
    assert found is not None
    depends = {d.split()[0] for d in found.group(1).replace("\\\n", "").split(",")}
    assert set(QT_XCB_LIBS) <= depends
    assert "libc6" in depends


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate is missing (apt-get install desktop-file-utils)")
def test_desktop_file_validate_passes() -> None:
    done = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("appstreamcli") is None,
                    reason="appstreamcli is missing (apt-get install appstream)")
def test_appstreamcli_validate_passes() -> None:
    done = subprocess.run(["appstreamcli", "validate", "--no-net", "--pedantic", str(METAINFO)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # Errors and warnings fail; infos and pedantic notes (an unknown-to-this-version tag) pass.
    assert not re.search(r"^[EW]:", done.stdout, re.M), done.stdout
