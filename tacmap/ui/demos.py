"""The demo encounters shipped with the app, one per ruleset (File ▸ Open Demo)."""

from __future__ import annotations

import sys
from pathlib import Path

from tacmap.engine.model import records
from tacmap.engine.model.errors import InputError


def demo_folder() -> Path:
    """Where the demos are: the source tree's resources/, the wheel's or the frozen app's."""
    here = Path(__file__).resolve().parent.parent  # tacmap/
    for candidate in (here.parent / "resources", here / "_resources",
                      Path(getattr(sys, "_MEIPASS", "/nonexistent")) / "resources"):
        if (candidate / "demo.tacmap").is_file():
            return candidate
    raise InputError("the demo encounters are missing from this installation")


def demo_path() -> Path:
    """The demo the app opens with when no file is named."""
    return demo_folder() / "demo.tacmap"


def demos() -> list[tuple[str, str, Path]]:
    """(ruleset id, encounter name, path) of every shipped demo, by ruleset id."""
    found = []
    for path in sorted(demo_folder().glob("*.tacmap")):
        try:
            head = records.parse(path.read_bytes())
            found.append((str(head["ruleset"]["id"]), str(head["encounter"]["name"]), path))
        except (InputError, OSError, KeyError, TypeError):
            continue  # a damaged demo is left out of the menu rather than breaking it
    return sorted(found)
