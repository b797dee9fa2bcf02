"""``tacmap desktop install`` / ``uninstall``: the menu entry, icon and ``*.tacmap`` file type
that a pip, pipx or uv install lacks (the .deb ships its own), for the current user.

Linux: the XDG folders under ``$XDG_DATA_HOME`` (``~/.local/share``): a ``.desktop`` file,
the icons in the hicolor theme, the MIME type, then the desktop's caches refreshed with
whichever of ``update-desktop-database``, ``update-mime-database`` and
``gtk-update-icon-cache`` are present. Windows: a Start menu shortcut written by
PowerShell. macOS: a note (an app bundle is the frozen build's, packaging/README.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tacmap.engine.model.errors import InputError
from tacmap.ui.demos import demo_folder

#: The entry's file names (the .deb installs the same names under /usr/share).
DESKTOP = "tacmap.desktop"
MIME = "tacmap.xml"
#: The PNG sizes shipped in resources/icons.
SIZES = (16, 32, 48, 64, 128, 256)

MIME_XML = """<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="application/x-tacmap">
    <comment>tacmap encounter</comment>
    <sub-class-of type="application/json"/>
    <generic-icon name="x-office-document"/>
    <glob pattern="*.tacmap"/>
  </mime-type>
</mime-info>
"""


def launcher() -> list[str]:
    """The command that starts this very tacmap: its script beside the interpreter (a venv,
    pipx or uv tool), else the interpreter running the package."""
    script = Path(sys.executable).with_name("tacmap")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "tacmap"]


def _quoted(argv: list[str]) -> str:
    """``argv`` as the Exec key wants it: each argument with a space or quote in quotes."""
    out = []
    for arg in argv:
        if any(c in arg for c in ' \t"\'\\$`'):
            arg = '"' + arg.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") \
                .replace("`", "\\`") + '"'
        out.append(arg)
    return " ".join(out)


def desktop_entry(argv: list[str]) -> str:
    """The ``.desktop`` file for the command ``argv`` (packaging/linux/tacmap.desktop's keys,
    with this install's command)."""
    return "\n".join([
        "[Desktop Entry]", "Type=Application", "Name=tacmap",
        "GenericName=Tactical Battle Map",
        "Comment=Offline battle map for game masters, with a rule engine for combat",
        f"Exec={_quoted(argv)} %f", f"TryExec={argv[0]}", "Icon=tacmap", "Terminal=false",
        "Categories=Game;RolePlaying;",
        "Keywords=battle map;grid;tabletop;RPG;initiative;dice;encounter;",
        "MimeType=application/x-tacmap;", "StartupWMClass=tacmap", ""])


def data_home() -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share``."""
    named = os.environ.get("XDG_DATA_HOME", "")
    return Path(named) if os.path.isabs(named) else Path.home() / ".local" / "share"


def linux_files(home: Path) -> dict[Path, Path | str]:
    """Every file ``install`` writes under ``home``: its text, or the file it copies."""
    icons = demo_folder() / "icons"
    files: dict[Path, Path | str] = {
        home / "applications" / DESKTOP: desktop_entry(launcher()),
        home / "mime" / "packages" / MIME: MIME_XML,
        home / "icons" / "hicolor" / "scalable" / "apps" / "tacmap.svg": icons / "tacmap.svg",
    }
    for size in SIZES:
        files[home / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "tacmap.png"] = \
            icons / f"tacmap-{size}.png"
    return files


def _refresh(home: Path) -> list[str]:
    """Refresh the desktop's caches with the tools present; the ones run, by name."""
    ran = []
    for tool, folder in (("update-desktop-database", home / "applications"),
                         ("update-mime-database", home / "mime"),
                         ("gtk-update-icon-cache", home / "icons" / "hicolor")):
        found = shutil.which(tool)
        if found is None or not folder.is_dir():
            continue
        extra = ["-f", "-t"] if tool == "gtk-update-icon-cache" else []
        # A cache left stale only delays the entry until the next login: never an error.
        subprocess.run([found, *extra, str(folder)], check=False, capture_output=True,
                       timeout=60)
        ran.append(tool)
    return ran


def install() -> list[str]:
    """Write the entry for this platform; the lines to tell the user."""
    if sys.platform == "win32":
        return [_windows_shortcut()]
    if sys.platform == "darwin":
        return ["macOS: no menu entry is written for a pip install; start tacmap from a "
                "terminal, or build the app bundle (packaging/README.md)."]
    home = data_home()
    files = linux_files(home)
    written: list[Path] = []
    try:
        for path, content in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            part = path.with_name(path.name + ".part")
            if isinstance(content, Path):
                shutil.copyfile(content, part)
            else:
                part.write_text(content, encoding="utf-8")
            if not path.exists():
                written.append(path)
            os.replace(part, path)  # a whole file or the old one, never half of one
    except OSError:
        for path in written:  # all or nothing: what this call added goes again
            path.unlink(missing_ok=True)
        raise
    ran = _refresh(home)
    return [f"installed the menu entry, icons and *.tacmap file type under {home}",
            f"  {home / 'applications' / DESKTOP} starts {_quoted(launcher())}",
            "  caches refreshed: " + (", ".join(ran) if ran else
                                      "none of the tools is here (the next login does it)")]


def uninstall() -> list[str]:
    """Remove what ``install`` wrote; the lines to tell the user."""
    if sys.platform == "win32":
        link = _start_menu() / "tacmap.lnk"
        link.unlink(missing_ok=True)
        return [f"removed {link}"]
    if sys.platform == "darwin":
        return ["macOS: nothing was installed."]
    home = data_home()
    gone = 0
    for path in linux_files(home):
        if path.is_file():
            path.unlink()
            gone += 1
    _refresh(home)
    return [f"removed {gone} files of tacmap's menu entry under {home}" if gone else
            f"no menu entry of tacmap under {home}: nothing to remove"]


def _start_menu() -> Path:
    return Path(os.environ.get("APPDATA", str(Path.home()))) / "Microsoft" / "Windows" \
        / "Start Menu" / "Programs"


def _windows_shortcut() -> str:
    """A Start menu shortcut to this tacmap, written by PowerShell (no extra package)."""
    argv = launcher()
    target = argv[0]
    arguments = " ".join(argv[1:])
    link = _start_menu() / "tacmap.lnk"
    script = ("$s=(New-Object -ComObject WScript.Shell).CreateShortcut($env:TACMAP_LINK);"
              "$s.TargetPath=$env:TACMAP_TARGET;$s.Arguments=$env:TACMAP_ARGS;$s.Save()")
    env = dict(os.environ, TACMAP_LINK=str(link), TACMAP_TARGET=target, TACMAP_ARGS=arguments)
    done = subprocess.run(["powershell", "-NoProfile", "-Command", script], env=env,
                          check=False, capture_output=True, timeout=60)
    if done.returncode != 0:
        raise InputError(f"the Start menu shortcut could not be written ({link})")
    return f"installed a Start menu shortcut: {link}"


def main(action: str) -> int:
    """``tacmap desktop ACTION``: print what was done; 0, or 2 with one sentence."""
    try:
        lines = install() if action == "install" else uninstall()
    except (OSError, InputError, subprocess.SubprocessError) as err:
        print(f"tacmap desktop {action}: {err}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0
