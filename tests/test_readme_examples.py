"""Every example of README.md and the manual (docs/manual) runs as written (issue 29 item 3;
issue 40 moved most of the README into the manual)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tacmap import cli_help
from tacmap.cli import build_parser

README = Path(__file__).resolve().parent.parent / "README.md"
MANUAL = README.parent / "docs" / "manual"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def read_docs() -> str:
    """The README and every page of the manual, in one text."""
    pages = [README, *sorted(MANUAL.glob("*.md"))]
    return "\n".join(page.read_text("utf-8") for page in pages)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(read_docs()) if lang == kind]


def sessions() -> list[tuple[str, list[str]]]:
    """(command, the output lines shown after it) of every console block, in order."""
    steps: list[tuple[str, list[str]]] = []
    for body in blocks("console"):
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
    return steps


def test_the_readme_has_console_examples() -> None:
    commands = [cmd for cmd, _ in sessions()]
    assert any(cmd.startswith("tacmap play") for cmd in commands)
    assert any(cmd.startswith("tacmap new --demo") for cmd in commands)


def test_every_console_example_runs_and_prints_what_the_readme_shows(tmp_path: Path) -> None:
    # The jsonl blocks are the scripts the examples name (on their first line).
    for body in blocks("jsonl"):
        name = body.splitlines()[0].lstrip("# ").split(":")[0]
        (tmp_path / name).write_text(body, "utf-8")
    tacmap = Path(sys.executable).parent / "tacmap"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TACMAP_HOME": str(tmp_path / "home")}
    env.pop("TACMAP_RULESETS", None)
    for command, shown in sessions():
        argv = shlex.split(command)
        assert argv[0] == "tacmap", command
        done = subprocess.run([str(tacmap), *argv[1:]], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{command}: {done.stderr}"
        printed = done.stdout.splitlines()
        at = 0
        for line in shown:
            if line.strip() in ("…", ""):
                continue
            assert line in printed[at:], f"{command}: {line!r} not printed"
            at = printed.index(line, at) + 1


def sh_tacmap_lines() -> list[list[str]]:
    """The arguments of every ``tacmap`` call in the README's sh blocks and command table."""
    calls = []
    for body in blocks("sh"):
        for line in body.replace("\\\n", " ").splitlines():
            code = line.split("#")[0]
            for part in re.split(r"&&|;", code):
                words = shlex.split(part)
                for i, word in enumerate(words):
                    if word.endswith("/tacmap") or word == "tacmap":
                        calls.append(words[i + 1:])
                        break
    return calls


@pytest.mark.parametrize("argv", sh_tacmap_lines(), ids=" ".join)
def test_every_install_example_names_a_command_and_options_that_exist(argv: list[str]) -> None:
    parser = build_parser()
    if argv and argv[0] in cli_help.subcommands(parser):
        parser.parse_args(argv)  # raises UsageError on an option that is not there
    else:
        assert not argv or cli_help.looks_like_file(argv[0])


def test_every_command_of_the_table_exists() -> None:
    rows = re.findall(r"^\| `tacmap ([a-z]+)", read_docs(), re.M)
    names = cli_help.subcommands(build_parser())
    assert rows and all(word in names or word == "open" for word in rows), rows


def test_the_developer_docs_are_in_the_repository_and_name_real_files() -> None:
    root = README.parent
    text = README.read_text("utf-8")
    assert "../shared" not in text and "(docs/design.md)" in text
    design = (root / "docs" / "design.md").read_text("utf-8")
    named = set(re.findall(r"`((?:tacmap|tests|rulesets)/[\w/.]+\.(?:py|md))`", design))
    assert named, "the design names no file"
    missing = sorted(p for p in named if not (root / p).exists())
    assert not missing, missing


def test_no_ruleset_or_manual_points_at_a_file_outside_the_repository() -> None:
    # The seeds' texts are the project's, not the repository's: a ruleset quotes the
    # sentences it implements instead of naming a file a reader cannot open.
    root = README.parent
    texts = [*root.glob("rulesets/**/*.md"), *root.glob("rulesets/*/ruleset.toml"),
             *root.glob("docs/**/*.md")]
    assert texts
    for path in texts:
        text = path.read_text("utf-8")
        assert "../shared" not in text, path
        assert not re.search(r"\b\d{3}_[0-9a-f]{16}\.txt", text), path


def _anchors(page: Path) -> set[str]:
    """The anchors a Markdown viewer makes of ``page``'s headings (GitHub's way)."""
    found = set()
    for heading in re.findall(r"^#+ (.*)$", re.sub(r"```.*?```", "", page.read_text("utf-8"),
                                                   flags=re.S), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def test_the_readme_is_short_and_every_link_of_it_and_the_manual_leads_somewhere() -> None:
    # Issue 40: a short README with pictures, the rest in the manual; a link to a page
    # or a heading that is not there is a dead end for the reader.
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 150
    assert "(docs/manual/README.md)" in text and "![" in text
    pages = [README, *sorted(MANUAL.glob("*.md"))]
    dead = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text("utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                dead.append(f"{page.name}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                dead.append(f"{page.name}: {target} (no such heading)")
    assert not dead, dead
