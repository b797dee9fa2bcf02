"""``tacmap ruleset guide``: where the ruleset author's guide is, opened where a desktop can
(issue 38): installed from a wheel it is inside site-packages, where nobody looks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.ruleset import builtin_folders

#: The guide's file name, beside the built-in rulesets (source tree, wheel or frozen app).
NAME = "GUIDE.md"


def path() -> Path:
    """The guide's path (InputError, one sentence, if this install has none)."""
    for folder in builtin_folders():
        found = folder / NAME
        if found.is_file():
            return found
    raise InputError("this install of tacmap has no ruleset guide (GUIDE.md beside the "
                     "built-in rulesets); reinstall it")


def open_on_desktop(guide: Path) -> bool:
    """Open ``guide`` with the desktop's viewer for Markdown, where there is a desktop and a
    person at the terminal; False when it was not opened (never an error)."""
    if not sys.stdout.isatty():
        return False
    try:
        if sys.platform == "win32":
            os.startfile(guide)  # type: ignore[attr-defined]  # Windows only
            return True
        opener = "open" if sys.platform == "darwin" else "xdg-open"
        has_desktop = sys.platform == "darwin" or bool(
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
        if not has_desktop or shutil.which(opener) is None:
            return False
        subprocess.Popen([opener, str(guide)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
        return True
    except OSError:
        return False


def main() -> int:
    """Print the guide's path, and open it where a desktop can."""
    guide = path()
    print(guide)
    if open_on_desktop(guide):
        print("(opened in the desktop's viewer)")
    return 0
