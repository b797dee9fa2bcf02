"""The app's settings, in one file in the platform's config folder, read and written one way.

The recent files, where the windows were and the answers about user rulesets were
three hand-written JSON files in the data folder (``recent.json``, ``windows.json``,
``trusted_rulesets.json``). They now live in ``settings.json`` in platformdirs'
config folder (``~/.config/tacmap`` on Linux); the old files are read once, when
there is no settings file yet, so a GM who updates keeps them.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import platformdirs

from tacmap.engine.files.storage import write_atomic

FILE = "settings.json"
#: The files settings came from before, in the data folder, by the key that holds them now.
OLD_FILES = {"recent": "recent.json", "windows": "windows.json",
             "trusted_rulesets": "trusted_rulesets.json"}

T = TypeVar("T")

#: What the GM has not been told yet about a damaged settings file, by that file's path.
_notices: dict[Path, str] = {}


def folder() -> Path:
    """The config folder (``TACMAP_HOME`` overrides it, as it does the data folder)."""
    override = os.environ.get("TACMAP_HOME")
    return Path(override) if override else platformdirs.user_config_path("tacmap",
                                                                         appauthor=False)


def path() -> Path:
    """The settings file."""
    return folder() / FILE


def data_folder() -> Path:
    """Where tacmap keeps autosaves, the roster and logs (TACMAP_HOME overrides, for tests)."""
    override = os.environ.get("TACMAP_HOME")
    return Path(override) if override else platformdirs.user_data_path("tacmap", appauthor=False)


def roster_file() -> Path:
    """The roster the window keeps combatants in (``roster.sqlite3`` in the data folder)."""
    return data_folder() / "roster.sqlite3"


def _data_folder() -> Path:
    return data_folder()


def _read() -> dict[str, Any]:
    try:
        data = json.loads(path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return _from_old_files()
    except ValueError as err:
        _set_aside(f"it is not JSON: {err}")
        return {}  # a damaged settings file costs the settings, never the start
    except OSError:
        return {}
    if not isinstance(data, dict):
        _set_aside(f"it holds a JSON {type(data).__name__}, not an object")
        return {}
    return data


def _set_aside(why: str) -> None:
    """Keep a damaged settings file as ``settings.json.bad-DATE`` and say so once.

    Writing the next setting over it would lose the GM's answers about user
    rulesets for good; kept aside, they can be copied back by hand.
    """
    bad = path()
    stamp = datetime.now().strftime("%Y-%m-%d-%H%M%S")
    aside = bad.with_name(f"{FILE}.bad-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = bad.with_name(f"{FILE}.bad-{stamp}-{n}")
    try:
        bad.rename(aside)
    except OSError as err:
        sentence = (f"The settings file {bad} could not be read ({why}) nor kept aside "
                    f"({err.strerror or err}); tacmap runs with fresh settings.")
    else:
        sentence = (f"The settings file {bad} could not be read ({why}); it is kept as "
                    f"{aside.name}, and tacmap starts with fresh settings (recent files, "
                    "window places, your answers about user rulesets).")
    logging.getLogger("tacmap").warning("%s", sentence)
    _notices[bad] = sentence


def take_notice() -> str:
    """What the GM should be told about a damaged settings file, once (empty: nothing)."""
    return _notices.pop(path(), "")


def _from_old_files() -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, name in OLD_FILES.items():
        try:
            data[key] = json.loads((_data_folder() / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
    if data:
        _write(data)  # from now on the settings file is the one place
    return data


def _write(data: dict[str, Any]) -> bool:
    try:
        folder().mkdir(parents=True, exist_ok=True)
        write_atomic(path(), json.dumps(data, indent=1, sort_keys=True).encode() + b"\n")
    except OSError:
        return False  # kept for this run only
    return True


def get(key: str, clean: Callable[[Any], T]) -> T:
    """The setting ``key`` as ``clean`` reads it (its empty value when unset or mis-shaped)."""
    return clean(_read().get(key))


def put(key: str, value: Any) -> bool:
    """Set ``key`` to ``value`` (JSON), keeping the other settings; False if it could not."""
    data = _read()
    data[key] = value
    return _write(data)


def strings(value: Any) -> list[str]:
    """A list of strings, its other items left out (empty for anything else)."""
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, str)]


def string_map(value: Any) -> dict[str, str]:
    """An object of strings, its other items left out (empty for anything else)."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def flag_map(value: Any) -> dict[str, bool]:
    """An object of true/false, its other items left out (empty for anything else)."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, bool)}
