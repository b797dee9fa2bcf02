"""Ruleset API 1's module paths, kept for plug-ins written for it (``api = 1``).

API 1 had no door: a ruleset imported the engine's modules by their paths
(``from tacmap.engine.grid import edge_distance``). API 2 rulesets import from
``tacmap.api``, and the engine keeps its modules where it likes. ``MOVED`` maps
every API 1 path that no longer exists to the module it became, and
``allow_api_1`` lets an import of the old path find that same module object (not
a copy: one ``Token`` class, one event registry). The registry calls it only when
it loads a plug-in whose ruleset.toml says ``api = 1``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

#: API 1 module path -> the module it is now. Written by the script that moved them.
MOVED: dict[str, str] = {
    "tacmap.engine.autoplay": "tacmap.engine.play.autoplay",
    "tacmap.engine.benching": "tacmap.engine.play.benching",
    "tacmap.engine.commands": "tacmap.engine.model.commands",
    "tacmap.engine.convert": "tacmap.engine.model.convert",
    "tacmap.engine.dice": "tacmap.engine.rules.dice",
    "tacmap.engine.errors": "tacmap.engine.model.errors",
    "tacmap.engine.events": "tacmap.engine.model.events",
    "tacmap.engine.forecast": "tacmap.engine.play.forecast",
    "tacmap.engine.free_roll": "tacmap.engine.rules.free_roll",
    "tacmap.engine.geometry": "tacmap.engine.space.geometry",
    "tacmap.engine.gm": "tacmap.engine.play.gm",
    "tacmap.engine.grid": "tacmap.engine.space.grid",
    "tacmap.engine.map_image": "tacmap.engine.files.map_image",
    "tacmap.engine.measure": "tacmap.engine.space.measure",
    "tacmap.engine.movement": "tacmap.engine.space.movement",
    "tacmap.engine.narrate": "tacmap.engine.play.narrate",
    "tacmap.engine.notation": "tacmap.engine.rules.notation",
    "tacmap.engine.odds": "tacmap.engine.rules.odds",
    "tacmap.engine.options": "tacmap.engine.rules.options",
    "tacmap.engine.records": "tacmap.engine.model.records",
    "tacmap.engine.referee": "tacmap.engine.play.referee",
    "tacmap.engine.report": "tacmap.engine.files.report",
    "tacmap.engine.roster": "tacmap.engine.files.roster",
    "tacmap.engine.ruleset": "tacmap.engine.rules.ruleset",
    "tacmap.engine.schedule": "tacmap.engine.rules.schedule",
    "tacmap.engine.statblock": "tacmap.engine.rules.statblock",
    "tacmap.engine.state": "tacmap.engine.model.state",
    "tacmap.engine.storage": "tacmap.engine.files.storage",
    "tacmap.engine.templates": "tacmap.engine.space.templates",
    "tacmap.engine.turns": "tacmap.engine.rules.turns",
    "tacmap.engine.units": "tacmap.engine.model.units",
    "tacmap.engine.uvtt": "tacmap.engine.files.uvtt",
    "tacmap.engine.uvtt_sample": "tacmap.engine.files.uvtt_sample",
    "tacmap.engine.views": "tacmap.engine.rules.views",
    "tacmap.engine.vision": "tacmap.engine.space.vision",
    "tacmap.engine.words": "tacmap.engine.model.words",
}


class _OldPath(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an API 1 module path and answers with the module that now holds it."""

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """A spec for an old path in ``MOVED``; None for every other module."""
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        """The module the old path became, imported under its own name."""
        module = importlib.import_module(MOVED[spec.name])
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run; the import system stamped the alias's spec on it: give its own back."""
        module.__spec__ = self._specs[module.__name__]


_FINDER = _OldPath()


def allow_api_1() -> None:
    """Let imports of API 1 module paths find their modules, from now on in this process."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
