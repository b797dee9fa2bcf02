"""A ruleset's tables: ruleset.toml converted once into typed records; its folder a package."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Annotated, Any

import msgspec
import pytest

from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.ruleset import Entry, Manifest, Registry, RulesetData, Table


class Weapon(Entry):
    reach: Annotated[int, msgspec.Meta(ge=1)] = 1


class Turn(Table):
    actions: Annotated[int, msgspec.Meta(ge=1)]


class Data(RulesetData, kw_only=True):
    turn: Turn
    weapons: dict[str, Weapon]


HEAD: dict[str, Any] = {"id": "x", "name": "X", "version": "1", "api": 2,
                        "stat_block": {"dex": {"kind": "int"}}}


def manifest(**tables: Any) -> Manifest:
    return Manifest("x", "X", "1", Path("x"), True, "rectilinear", {**HEAD, **tables})


def test_the_tables_convert_once_with_each_row_knowing_its_key() -> None:
    data = manifest(turn={"actions": 2}, weapons={"spear": {"reach": 2, "name": "long spear"},
                                                  "axe": {}}).tables(Data)
    assert data.turn.actions == 2
    assert (data.weapons["spear"].key, data.weapons["spear"].name) == ("spear", "long spear")
    assert (data.weapons["axe"].key, data.weapons["axe"].name, data.weapons["axe"].reach) \
        == ("axe", "axe", 1)
    assert data.grid.diagonal == "rectilinear"


@pytest.mark.parametrize(("tables", "sentence"), [
    ({"turn": {"actions": 2}, "weapons": {"spear": {"reach": 0}}},
     "ruleset.toml: weapons.spear.reach: expected a whole number >= 1, got 0"),
    ({"turn": {"actions": 2}, "weapons": {}, "weapon": {}},
     "ruleset.toml: unknown key 'weapon'"),
    ({"weapons": {}}, "ruleset.toml: missing key 'turn'"),
    ({"turn": {"actions": 2}, "weapons": {"spear": {"key": "lance"}}},
     "ruleset.toml: weapons.spear.key: the table's name is its key; leave key out "
     "(it says 'lance')"),
    ({"turn": {"actions": 2}, "weapons": {}, "grid": {"diagonal": "hex"}},
     "ruleset.toml: grid.diagonal: must be one of rectilinear, chebyshev, alternating, "
     "euclidean, got 'hex'"),
])
def test_a_bad_table_is_one_sentence(tables: dict[str, Any], sentence: str) -> None:
    with pytest.raises(InputError) as err:
        manifest(**tables).tables(Data)
    assert str(err.value) == sentence


def _ruleset(root: Path, word: str) -> Path:
    """A ruleset folder "sample" whose rules.py imports its own data.py, relatively."""
    folder = root / "sample"
    folder.mkdir(parents=True)
    (folder / "ruleset.toml").write_text(textwrap.dedent(f"""\
        id = "sample"
        name = "Sample"
        version = "1"
        api = 2
        [turn]
        word = "{word}"
        """))
    (folder / "data.py").write_text(textwrap.dedent("""\
        from tacmap.engine.rules.ruleset import RulesetData, Table

        class Turn(Table):
            word: str

        class Data(RulesetData, kw_only=True):
            turn: Turn
        """))
    (folder / "rules.py").write_text(textwrap.dedent("""\
        from tacmap.engine.rules.ruleset import Manifest, Ruleset

        from .data import Data

        class Sample(Ruleset):
            def __init__(self, manifest: Manifest) -> None:
                super().__init__(manifest)
                self.data = manifest.tables(Data)

        def create(manifest: Manifest) -> Ruleset:
            return Sample(manifest)
        """))
    return root


def test_a_ruleset_folder_is_a_package_of_its_own(tmp_path: Path) -> None:
    # Two folders with the same id (a user's two copies) load side by side.
    first = Registry([_ruleset(tmp_path / "a", "one")], warn=lambda m: None).get("sample")
    second = Registry([_ruleset(tmp_path / "b", "two")], warn=lambda m: None).get("sample")
    assert (first.data.turn.word, second.data.turn.word) == ("one", "two")  # type: ignore[attr-defined]
    assert type(first).__module__ != type(second).__module__
