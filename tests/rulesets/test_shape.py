"""Every ruleset folder has the one shape rulesets/README.md describes, so the next copies it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tacmap.engine.rules.ruleset import Registry, RulesetData
from tacmap.kit.check import ast_problems
from tacmap.kit.scaffold import TEMPLATE

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = sorted(p.parent for p in (ROOT / "rulesets").glob("*/ruleset.toml"))
EXAMPLES = sorted(p.parent for p in (ROOT / "rulesets" / "examples").glob("*/ruleset.toml"))
ALL = [*BUILTIN, *sorted(p.parent for p in (ROOT / "tests" / "fixtures" / "rulesets")
                         .glob("*/ruleset.toml")), TEMPLATE, *EXAMPLES]
#: rules.py holds resolve, preview and legality; more than this and a part belongs elsewhere.
#: Counted below its imports (the one ``from tacmap.api import (...)`` lists a name a line):
#: 845 is the old 900 less the docstring and imports speed_rank had then.
MAX_RULES_LINES = 845


@pytest.mark.parametrize("folder", ALL, ids=[f.name for f in ALL])
def test_a_ruleset_folder_has_data_rules_views_and_a_readme(folder: Path) -> None:
    for name in ("ruleset.toml", "README.md", "data.py", "rules.py", "views.py"):
        assert (folder / name).is_file(), f"{folder.name} has no {name}"


@pytest.mark.parametrize("folder", BUILTIN, ids=[f.name for f in BUILTIN])
def test_rules_py_holds_the_rules_and_little_else(folder: Path) -> None:
    text = (folder / "rules.py").read_text(encoding="utf-8")
    imports = [n for n in ast.parse(text).body if isinstance(n, ast.Import | ast.ImportFrom)]
    below = len(text.splitlines()) - max((n.end_lineno or 0 for n in imports), default=0)
    assert below <= MAX_RULES_LINES, f"{folder.name}/rules.py has {below} lines below its imports"


@pytest.mark.parametrize("folder", ALL, ids=[f.name for f in ALL])
def test_no_ruleset_reads_its_toml_by_hand(folder: Path) -> None:
    # The same check `tacmap ruleset check` makes of a user's folder.
    assert [p for path in sorted(folder.glob("*.py")) for p in ast_problems(path)] == []


@pytest.mark.parametrize("folder", ALL, ids=[f.name for f in ALL])
def test_views_never_import_the_rules(folder: Path) -> None:
    # rules.py delegates to views.py; views.py asks for what it needs through a Protocol.
    tree = ast.parse((folder / "views.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.level}
    assert "rules" not in imported


# The template and the worked example are loaded by `ruleset check` (tests/kit, their own tests).
@pytest.mark.parametrize("ruleset_id", [f.name for f in ALL if f != TEMPLATE
                                        and f not in EXAMPLES])
def test_the_tables_are_typed_records_from_data_py(registry: Registry, ruleset_id: str) -> None:
    rules = registry.get(ruleset_id)
    data = getattr(rules, "data", None)
    assert isinstance(data, RulesetData)
    assert type(data).__module__.endswith(".data")
