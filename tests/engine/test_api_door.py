"""Issue 27 item 6: one door for ruleset authors (``tacmap.api``), versioned by ``api``.

Built-in rulesets, the kit's template and the test ruleset import tacmap only
through ``tacmap.api``. A plug-in written for API 1 (the engine's module paths)
still loads and plays; one written for an API newer than this tacmap's, or older
than any it kept, is refused with one sentence naming the versions.
"""

from __future__ import annotations

import ast
import importlib
import re
import shutil
import sys
from pathlib import Path

import pytest

import tacmap.api
import tacmap.engine
from tacmap.engine.model.errors import InputError
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules import old_paths
from tacmap.engine.rules.ruleset import API_VERSION, Registry, read_manifest
from tests.conftest import TEST_RULESETS
from tests.engine.helpers import skirmish_state

ROOT = Path(__file__).resolve().parents[2]
RULESET_CODE = [ROOT / "rulesets", ROOT / "tacmap" / "kit" / "template", TEST_RULESETS]

#: The engine's modules as API 1 named them (``tacmap.engine.<name>``): a plug-in
#: written for API 1 may import any of them.
API_1_MODULES = [
    "autoplay", "benching", "commands", "convert", "dice", "errors", "events", "free_roll",
    "geometry", "gm", "grid", "map_image", "measure", "movement", "narrate", "notation",
    "odds", "options", "records", "referee", "report", "roster", "ruleset", "schedule",
    "statblock", "state", "storage", "templates", "units", "uvtt", "uvtt_sample", "views",
    "vision", "words",
]


def side_doors(folder: Path) -> list[str]:
    """Each import of a tacmap module other than tacmap.api under ``folder``, with its file."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and \
                node.level == 0 else []
            found += [f"{path.relative_to(folder)}:{node.lineno} imports {name}" for name in names
                      if name.split(".")[0] == "tacmap" and name != "tacmap.api"]
    return found


@pytest.mark.parametrize("folder", RULESET_CODE, ids=lambda f: f.relative_to(ROOT).as_posix())
def test_ruleset_code_imports_tacmap_only_through_the_door(folder: Path) -> None:
    assert side_doors(folder) == []


def test_the_door_check_catches_an_engine_import(tmp_path: Path) -> None:
    (tmp_path / "rules.py").write_text("from tacmap.api import Ruleset\n"
                                       "from tacmap.engine.model.state import Token\n"
                                       "import tacmap.engine.space.grid as grid\n")
    assert side_doors(tmp_path) == ["rules.py:2 imports tacmap.engine.model.state",
                                    "rules.py:3 imports tacmap.engine.space.grid"]


def test_the_door_exports_what_it_lists_and_names_its_version() -> None:
    assert len(set(tacmap.api.__all__)) == len(tacmap.api.__all__)
    missing = [name for name in tacmap.api.__all__ if not hasattr(tacmap.api, name)]
    assert missing == []
    assert tacmap.api.API_VERSION == API_VERSION == 2


def _api_1_homes() -> dict[str, str]:
    """Each name of the door and the API 1 module it came from, read from tacmap/api.py."""
    moved_back = {new: old for old, new in old_paths.MOVED.items()}
    source = Path(tacmap.api.__file__).read_text(encoding="utf-8")
    homes = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tacmap."):
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"  # ``from tacmap.engine import grid``
                module = moved_back.get(whole, whole).rpartition(".")[0] \
                    if whole in moved_back else moved_back.get(node.module, node.module)
                homes[alias.name] = module
    return homes


def _old_style(source: str) -> str:
    """``source`` with each ``from tacmap.api import …`` turned into API 1's module paths."""
    homes = _api_1_homes()
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    for node in reversed(tree.body):
        if isinstance(node, ast.ImportFrom) and node.module == "tacmap.api":
            lines[node.lineno - 1:node.end_lineno] = [
                f"from {homes[alias.name]} import {alias.name}\n" for alias in node.names]
    return "".join(lines)


def _without_old_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """This test's own import machinery, without the old paths an earlier test opened."""
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if f is not old_paths._FINDER])


def _plug_in(tmp_path: Path, api: int) -> Path:
    """A user's copy of the test ruleset saying ``api = <api>``, importing as API 1 did."""
    folder = tmp_path / "mine" / "skirmish"
    shutil.copytree(TEST_RULESETS / "skirmish", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "ruleset.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(f"api = {API_VERSION}",
                                                             f"api = {api}"), encoding="utf-8")
    for path in folder.glob("*.py"):
        path.write_text(_old_style(path.read_text(encoding="utf-8")), encoding="utf-8")
    return folder


def test_an_api_1_plug_in_loads_and_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _without_old_paths(monkeypatch)
    folder = _plug_in(tmp_path, api=1)
    assert "tacmap.api" not in (folder / "rules.py").read_text(encoding="utf-8")
    ruleset = Registry([folder.parent], warn=lambda msg: None).get("skirmish")
    referee = Referee(skirmish_state(), ruleset)
    referee.execute(tacmap.api.StartCombat(order=("ana", "bo", "grul", "zog")))
    events = referee.execute(tacmap.api.Attack("ana", "grul"))
    assert referee.state.round == 1
    assert any(isinstance(e, tacmap.api.DiceRolled) for e in events)


@pytest.mark.parametrize("api", [3, 0])
def test_an_api_this_tacmap_does_not_offer_is_refused_in_one_sentence(tmp_path: Path,
                                                                       api: int) -> None:
    folder = _plug_in(tmp_path, api=api)
    with pytest.raises(InputError) as err:
        Registry([folder.parent], warn=lambda msg: None)
    said = str(err.value)
    assert said.startswith(f"{folder / 'ruleset.toml'}: written for ruleset API {api}")
    assert f"API {API_VERSION}" in said and "rulesets/GUIDE.md, 'API versions'" in said
    assert said.count(". ") == 0 and "\n" not in said
    guide = (ROOT / "rulesets" / "GUIDE.md").read_text(encoding="utf-8")
    assert re.search(r"^#+ .*API versions$", guide, re.M)  # where the sentence sends the reader


def test_every_api_1_module_path_imports_the_module_it_became(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _without_old_paths(monkeypatch)
    old_paths.allow_api_1()
    for name in API_1_MODULES:
        old = f"tacmap.engine.{name}"
        module = importlib.import_module(old)
        assert module is importlib.import_module(old_paths.MOVED.get(old, old))
        assert module.__spec__ is not None and module.__spec__.name == module.__name__


def test_an_old_path_is_the_same_module_not_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_old_paths(monkeypatch)
    monkeypatch.setitem(old_paths.MOVED, "tacmap.engine.old_words", "tacmap.api")
    monkeypatch.delitem(sys.modules, "tacmap.engine.old_words", raising=False)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tacmap.engine.old_words")
    old_paths.allow_api_1()
    assert importlib.import_module("tacmap.engine.old_words") is tacmap.api
    assert tacmap.api.__spec__ is not None and tacmap.api.__spec__.name == "tacmap.api"
    sys.modules.pop("tacmap.engine.old_words")
    delattr(tacmap.engine, "old_words")


def test_an_api_2_plug_in_does_not_open_the_old_paths(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _without_old_paths(monkeypatch)
    folder = tmp_path / "mine" / "skirmish"
    shutil.copytree(TEST_RULESETS / "skirmish", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert read_manifest(folder / "ruleset.toml", builtin=False).data["api"] == 2
    Registry([folder.parent], warn=lambda msg: None).get("skirmish")
    assert old_paths._FINDER not in sys.meta_path
