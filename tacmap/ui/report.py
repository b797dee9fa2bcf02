"""The fight report with its maps: the engine gathers and writes, this draws the two maps.

Both maps are drawn by the same scene code as the window (``tacmap.ui.render``):
the players' report as the player view draws it (no hidden token, fog as the
players saw it), the GM's report as the GM's map.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.files.report import fight, page
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Encounter
from tacmap.engine.play.referee import Entry
from tacmap.engine.rules.house_rules import differing
from tacmap.engine.rules.ruleset import Registry, Ruleset
from tacmap.ui.render import draw, encoded

#: Pixels per cell of the report's maps, and their longest edge: sharp, yet a page
#: of a few hundred kilobytes.
MAP_PX = 28.0
MAP_EDGE = 1600


def map_png(state: Encounter, ruleset: Ruleset, images: Path | None, player: bool) -> bytes:
    """The map drawn as a PNG's bytes (the player view's drawing when ``player``)."""
    image, _ = draw(state, ruleset, images, player, MAP_PX, MAP_EDGE)
    return encoded(image)


def report_html(state: Encounter, log: list[Entry], ruleset: Ruleset, images: Path | None,
                date: str, gm: bool = False) -> str:
    """The fight report of an encounter and its log, as one HTML page."""
    f = fight(state, log, gm, ruleset.out_of_fight, ruleset.secret_conditions())
    start = map_png(f.start, ruleset, images, not gm)
    end = map_png(state, ruleset, images, not gm)
    # The rules in force that differ from the ruleset's default, beside its name.
    rules = "".join(f" · house rule {o.key} = {ruleset.house_rule(state, o.key)}"
                    for o in differing(ruleset.manifest.options, state))
    return page(f, f"{ruleset.manifest.name} ({ruleset.id}){rules}", date, start, end)


def fits(state: Encounter, log: list[Entry]) -> None:
    """Refuse, in one sentence, a log that does not fit its map (an edited or damaged file):
    the report replays it from its start, and a token it names that is not there, or fog
    no command could make, would stop that half-way (opening a file does not check this)."""
    storage.verify(storage.Loaded(state, log, ""))


def report_file(registry: Registry, path: Path, out: Path, gm: bool = False) -> str:
    """``tacmap report FILE OUT.html``: write the report; the line to print."""
    loaded = storage.load(path, registry)
    state = loaded.state
    try:
        fits(state, loaded.log)
    except InputError as err:
        raise InputError(f"{path}: {err}; no report was written") from None
    try:
        when = datetime.date.fromtimestamp(path.stat().st_mtime)
    except OSError:
        when = datetime.date.today()
    try:
        storage.check_target(out)  # a pipe or a folder: said before the maps are drawn
        text = report_html(state, loaded.log, registry.get(state.ruleset),
                           path.parent / loaded.images, f"{when:%d %B %Y}".lstrip("0"), gm)
        storage.write_atomic(out, text)
    except OSError as err:
        raise InputError(f"{out}: cannot write ({err.strerror or err})") from None
    return (f"{out}: fight report of {state.name!r}, "
            f"{len(loaded.log):,} log entries{' (GM: everything)' if gm else ' (for the players)'}")
