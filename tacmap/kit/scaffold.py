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
    if not ID.fullmatch(ruleset_id):
        raise InputError(f"ruleset id {ruleset_id!r} must be lower-case letters, digits "
                         "and _, starting with a letter")
    folder = parent / ruleset_id
    if folder.exists():
        raise InputError(f"{folder} already exists; pick another id or folder")
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


def renamed(rel: str, text: str, ruleset_id: str, name: str) -> str:
    """A template file's text under the new id and name."""
    if rel == "ruleset.toml":
        text = text.replace('name = "Template (a new ruleset)"', f'name = "{name}"')
    if rel == "README.md":
        return text.replace(f"`{TEMPLATE_ID}` — a new ruleset", f"`{ruleset_id}` — {name}")
    return text.replace(f'"{TEMPLATE_ID}"', f'"{ruleset_id}"')
