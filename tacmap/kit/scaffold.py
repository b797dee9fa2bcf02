"""``tacmap ruleset new ID DIR``: a small working ruleset folder to change into yours.

The folder is a copy of ``tacmap/kit/template`` (a real ruleset the project's
tests check like any other) under the new id: ruleset.toml, data.py, rules.py,
views.py, a README naming the places to change, a demo encounter and one
scenario. It passes ``tacmap ruleset check`` as written.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tacmap.engine.model.errors import InputError

TEMPLATE = Path(__file__).resolve().parent / "template"
#: The template's own id, replaced by the new one where the files name it.
TEMPLATE_ID = "template"
#: The files copied, relative to the template (bytecode and caches are left behind).
FILES = ("ruleset.toml", "README.md", "data.py", "rules.py", "views.py", "demo.tacmap",
         "scenarios/basics.jsonl")
#: What a ruleset id may be (the registry's rule): it becomes part of a module name.
ID = re.compile(r"[a-z][a-z0-9_]*")


def write(ruleset_id: str, parent: Path) -> Path:
    """Write the new ruleset folder ``parent/ruleset_id``; its path. InputError if the id
    is not one or the folder exists."""
    folder = new_folder(ruleset_id, parent)
    name = ruleset_id.replace("_", " ").capitalize()
    try:
        for rel in FILES:
            text = (TEMPLATE / rel).read_text(encoding="utf-8")
            out = folder / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(renamed(rel, text, ruleset_id, name), encoding="utf-8")
    except OSError as err:
        shutil.rmtree(folder, ignore_errors=True)
        raise InputError(f"{folder}: cannot write ({err.strerror})") from None
    return folder


def new_folder(ruleset_id: str, parent: Path) -> Path:
    """``parent/ruleset_id``, not yet there; InputError if the id is not one or it is."""
    if not ID.fullmatch(ruleset_id):
        raise InputError(f"ruleset id {ruleset_id!r} must be lower-case letters, digits "
                         "and _, starting with a letter")
    folder = parent / ruleset_id
    if folder.exists():
        raise InputError(f"{folder} already exists; pick another id or folder")
    return folder


def renamed(rel: str, text: str, ruleset_id: str, name: str) -> str:
    """A template file's text under the new id and name."""
    if rel == "ruleset.toml":
        text = text.replace('name = "Template (a new ruleset)"', f'name = "{name}"')
    if rel == "README.md":
        return text.replace(f"`{TEMPLATE_ID}` — a new ruleset", f"`{ruleset_id}` — {name}")
    return text.replace(f'"{TEMPLATE_ID}"', f'"{ruleset_id}"')


#: A record's tag in a ruleset's Python: a copy under a new id renames each, since tags
#: name records across every loaded ruleset and the original stays loaded beside it.
TAG = re.compile(r'tag="([a-z][a-z0-9_]*)"')
#: Where an encounter or a scenario names its ruleset.
NAMED = re.compile(r'("(?:ruleset|id)":\s*)"([a-z][a-z0-9_]*)"')


def copy_of(source: Path, source_id: str, ruleset_id: str, parent: Path,
            scenarios: Path, demo: Path | None) -> Path:
    """Write ``parent/ruleset_id``: the ruleset folder ``source`` under a new id, with its
    scenarios and demo, record tags renamed; its path. InputError as ``write``."""
    folder = new_folder(ruleset_id, parent)
    code = [p for p in sorted(source.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and "scenarios" not in
            p.relative_to(source).parts and p.suffix in (".py", ".toml", ".md")]
    tags = {t: (ruleset_id + t[len(source_id):] if t.startswith(source_id + "_")
                else f"{ruleset_id}_{t}")
            for p in code if p.suffix == ".py" for t in TAG.findall(p.read_text("utf-8"))}

    def retag(text: str, pattern: str) -> str:
        for old, new in tags.items():
            text = text.replace(pattern.format(old), pattern.format(new))
        return text

    def rename(text: str) -> str:
        return NAMED.sub(lambda m: m[1] + (f'"{ruleset_id}"' if m[2] == source_id
                                            else f'"{m[2]}"'), retag(text, '"{}"'))

    files: dict[Path, str] = {}
    for p in code:
        text = p.read_text("utf-8")
        if p.name == "ruleset.toml":
            text = re.sub(rf'^id = "{source_id}"', f'id = "{ruleset_id}"', text, count=1,
                          flags=re.M)
            text = re.sub(r'^name = "([^"]*)"', rf'name = "\1 ({ruleset_id})"', text,
                          count=1, flags=re.M)
        files[p.relative_to(source)] = retag(text, 'tag="{}"') if p.suffix == ".py" else text
    for p in sorted(scenarios.rglob("*.jsonl")) if scenarios.is_dir() else []:
        files[Path("scenarios") / p.relative_to(scenarios)] = rename(p.read_text("utf-8"))
    if demo is not None:
        files[Path("demo.tacmap")] = rename(demo.read_text("utf-8"))
    try:
        for rel, text in files.items():
            out = folder / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
    except OSError as err:
        shutil.rmtree(folder, ignore_errors=True)
        raise InputError(f"{folder}: cannot write ({err.strerror})") from None
    return folder
