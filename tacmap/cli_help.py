"""What the command line says about itself: help texts, usage lines, suggestions (issue 29).

Kept apart from ``tacmap.cli`` so that the parser there stays a list of options and this
module holds the sentences, the examples and the checks that only talk to the user.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import msgspec

from tacmap.engine.files import storage
from tacmap.engine.model.commands import Command
from tacmap.engine.model.errors import InputError

#: Per command: the description ``--help`` opens with, and examples that run as written
#: from the source folder (the demos' paths are those of ``tacmap demos``).
TEXTS: dict[str, tuple[str, list[str]]] = {
    "rulesets": ("List the installed rulesets: id, name and version, one a line; a ruleset "
                 "from --rulesets-dir also names its folder.",
                 ["tacmap rulesets"]),
    "open": ("Open an encounter file in the window (the same as tacmap FILE).",
             ["tacmap open fight.tacmap"]),
    "render": ("Draw the map of an encounter to an image file, as the window draws it. The "
               "format follows the name: .png, .jpg/.jpeg or .webp. No screen is needed.",
               ["tacmap render fight.tacmap fight.png",
                "tacmap render fight.tacmap players.jpg --player --scale 20"]),
    "new": ("Write an empty encounter under a ruleset, or copy a shipped demo with --demo "
            "(tacmap demos lists them). Never overwrites a file without --force.",
            ["tacmap new --ruleset action_pool fight.tacmap --size 30x20",
             "tacmap new --demo action_pool fight.tacmap",
             "tacmap new --ruleset opposed fight.tacmap --rule surprise_criticals=allowed"]),
    "rules": ("List the house rules of an encounter: each option its ruleset declares, the "
              "value in force (* marks it), the default and the sentence of the text it "
              "concerns; or set them with --set, logged and undoable as in the window's "
              "Encounter ▸ House Rules.",
              ["tacmap new --demo opposed fight.tacmap && tacmap rules fight.tacmap",
               "tacmap rules fight.tacmap --set surprise_criticals=allowed --out house.tacmap"]),
    "demos": ("List the demo encounters shipped with tacmap: ruleset id, name and path, and "
              "the scripts that play them.",
              ["tacmap demos"]),
    "desktop": ("Add tacmap to the desktop for the current user, as the .deb does: on Linux "
                "a menu entry, the icon and the *.tacmap file type (double-click opens the "
                "file) under $XDG_DATA_HOME (~/.local/share), starting this very install; on "
                "Windows a Start menu shortcut. uninstall removes them. For pip, pipx and uv "
                "installs; the .deb and the frozen app bring their own.",
                ["tacmap desktop install", "tacmap desktop uninstall"]),
    "check": ("Validate an encounter file: its format, its ruleset and every log entry "
              "replayed. Warns when the file was saved under another major version of its "
              "ruleset.",
              ["tacmap check fight.tacmap"]),
    "measure": ("Length of a path through cells under a ruleset's grid, in its unit (m or ft). "
                "Points are cells, X,Y in whole numbers; negative ones are fine.",
                ["tacmap measure --ruleset action_pool 0,0 3,4",
                 "tacmap measure --ruleset speed_rank -2,0 3,4 --diagonal alternating"]),
    "play": ("Run a script of commands through the referee, as the window would, and print "
             "one line per event. tacmap play --commands lists the command types and their "
             "fields. --autopilot plays the sides it names (the manual's \"The autopilot\"), the "
             "script giving the other sides' turns.",
             ["tacmap play fight.tacmap --script turn.jsonl --seed 9 --out after.tacmap",
              "tacmap play fight.tacmap --autopilot bandits --script turn.jsonl --rounds 2 "
              "--out after.tacmap",
              "tacmap play fight.tacmap --autopilot all --out after.tacmap",
              "tacmap play --commands"]),
    "roll": ("Roll dice written as GMs write them, and show the odds first.",
             ['tacmap roll "2d6+3" --target 10', 'tacmap roll "4d6kh3"',
              'tacmap roll "d20 adv" --seed 7']),
    "import": ("Make a new encounter from a Universal VTT map (.dd2vtt, .uvtt, .df2vtt, as "
               "Dungeondraft, DungeonFog and Dungeon Alchemist export): its image in the "
               "encounter's image folder, the grid aligned to it, its walls and its doors. "
               "Lights and environment are kept in the file, not drawn.",
               ["tacmap import crypt.dd2vtt crypt.tacmap --ruleset action_pool",
                "tacmap import crypt.uvtt crypt.tacmap --ruleset speed_rank --name Crypt"]),
    "report": ("Write the fight report: one self-contained HTML page (no scripts, images "
               "inline) with the outcome, the map at the start and the end as the players "
               "saw it, each combatant's damage and hit points, the dice, and the log round "
               "by round. --gm includes what the players did not see.",
               ["tacmap report fight.tacmap fight.html",
                "tacmap report fight.tacmap fight-gm.html --gm"]),
    "ruleset": ("The ruleset author's kit: 'ruleset new ID DIR' writes a small working "
                "ruleset folder, 'ruleset check DIR' checks one (shape, scenarios, every "
                "offered action played headless), 'ruleset guide' prints where the "
                "author's guide is and opens it.",
                ["tacmap ruleset guide", "tacmap ruleset new my_game /tmp/rulesets",
                 "tacmap ruleset check /tmp/rulesets/my_game"]),
    "schema": ("Print the encounter file format as a JSON Schema, generated from the records "
               "(--ruleset ID adds that ruleset's own commands, events and round records).",
               ["tacmap schema", "tacmap schema --ruleset opposed"]),
    "bench": ("Run the performance benchmarks of the design; each figure is printed with its "
              "budget. --forecast times the forecast instead: fights per second of each "
              "demo, in one process and with two worker processes; --autopilot plays the "
              "autopilot against the greedy policy in mirror matches and times its "
              "decisions. Exit status: 0 when every figure is within its budget, 1 when "
              "one is over (a script can rely on it).",
              ["tacmap bench --quick", "tacmap bench --forecast",
               "tacmap bench --autopilot --quick"]),
    "forecast": ("Play the fight out many times from the state in FILE, under its own rules "
                 "and with random dice: the chance each side wins (with a 95% interval), "
                 "undecided fights, the rounds, each combatant's chance to drop and HP left, "
                 "and the most likely fallen. A progress bar goes to stderr on a terminal, "
                 "the table (or --json) to stdout. The same --seed gives the same forecast "
                 "whatever --jobs.",
                 ["tacmap new --demo action_pool fight.tacmap && tacmap forecast fight.tacmap",
                  "tacmap new --demo speed_rank fight.tacmap && tacmap forecast fight.tacmap "
                  "--fights 1000 --jobs 2 --seed 7 --json",
                  "tacmap forecast fight.tacmap --policy autopilot --fights 100",
                  "tacmap new --demo opposed fight.tacmap && tacmap forecast fight.tacmap "
                  "--fights 200 --rule surprise_armour=ignored"]),
    "balance": ("Propose changes to one side of the fight in FILE (copies of its combatants "
                "added or taken off, beside their side, or their HP scaled) that bring it to "
                "a target, found with the forecast: the best three, each with its forecast "
                "and interval. FILE is never changed; --out writes the picked proposal to a "
                "new file, as one command its log can undo.",
                ["tacmap new --demo action_pool fight.tacmap && tacmap balance fight.tacmap "
                 "--target \"heroes win 75%\"",
                 "tacmap balance fight.tacmap --target \"heroes win 60% ± 10%, at most 1 "
                 "down in half the fights\" --out tuned.tacmap"]),
}


def dress(parser: argparse.ArgumentParser) -> None:
    """Give every sub-command its description and examples (``--help``)."""
    for name, sub in subcommands(parser).items():
        if name not in TEXTS:
            continue
        description, examples = TEXTS[name]
        sub.description = textwrap.fill(description, 79)
        sub.epilog = "examples:\n" + "\n".join(f"  {e}" for e in examples)
        sub.formatter_class = argparse.RawDescriptionHelpFormatter
    # "-2,3" is a cell, not an option: measure and the like take negative points.
    for sub in subcommands(parser).values():
        sub._negative_number_matcher = re.compile(r"^-\d+(\.\d+)?(,\s*-?\d+(\.\d+)?)?$")


def ruleset_ids() -> str:
    """The built-in ruleset ids, for the help of ``--ruleset`` (reads no rules)."""
    from tacmap.engine.rules.ruleset import builtin_folders

    ids = sorted(p.parent.name for root in builtin_folders() for p in root.glob("*/ruleset.toml"))
    return ("one of " + ", ".join(ids) + " (or another that tacmap rulesets lists)") if ids \
        else "an id that tacmap rulesets lists"


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-command parsers by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def parser_for(parser: argparse.ArgumentParser, prog: str) -> argparse.ArgumentParser:
    """The (sub-)parser whose prog is ``prog``, at any depth (``tacmap ruleset new``); the
    top one when none is."""
    for sub in subcommands(parser).values():
        if sub.prog == prog:
            return sub
        inner = parser_for(sub, prog)
        if inner is not sub:
            return inner
    return parser


def usage_line(parser: argparse.ArgumentParser) -> str:
    """The parser's usage on one line, however wide the terminal."""
    usage = parser.format_usage().strip()
    usage = usage.removeprefix("usage:").strip()
    return " ".join(usage.split())


def unknown_command(word: str, parser: argparse.ArgumentParser) -> str:
    """The sentence for a first word that is neither a command nor a file."""
    names = list(subcommands(parser))
    import difflib  # only for a mistyped command: not at every start of the window

    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    hint = f"; did you mean `{close[0]}`?" if close else f" (commands: {', '.join(names)})"
    return f"unknown command {word!r}, and no file of that name{hint}"


def looks_like_file(word: str) -> bool:
    """A word that names a file (it exists, or has a folder or a suffix) rather than a command."""
    return Path(word).exists() or "/" in word or "\\" in word or bool(Path(word).suffix)


# --- play --commands ------------------------------------------------------------------

def _all_commands() -> Iterator[type[Command]]:
    todo = list(Command.__subclasses__())
    while todo:
        cls = todo.pop(0)
        todo.extend(cls.__subclasses__())
        yield cls


def command_lines() -> list[str]:
    """Every registered command type with its fields (optional ones in brackets)."""
    lines = []
    seen = set()
    for cls in sorted(_all_commands(), key=lambda c: str(c.__struct_config__.tag)):
        tag = cls.__struct_config__.tag
        if not isinstance(tag, str) or tag in seen:
            continue
        seen.add(tag)
        fields = []
        for f in msgspec.structs.fields(cls):
            required = f.default is msgspec.NODEFAULT and f.default_factory is msgspec.NODEFAULT
            fields.append(f.encode_name if required else f"[{f.encode_name}]")
        doc = (cls.__doc__ or "").strip().splitlines()
        lines.append(f"{tag:<18} {' '.join(fields):<40} {doc[0] if doc else ''}".rstrip())
    return lines


# --- output that a reader may stop reading -----------------------------------------

class Output:
    """Standard output that stops printing, not working, when its reader leaves (| head)."""

    def __init__(self) -> None:
        self.closed = False

    def print(self, line: str) -> None:
        """Print ``line`` unless the reader has gone."""
        if self.closed:
            return
        try:
            print(line)
        except BrokenPipeError:
            self._gone()

    def flush(self) -> None:
        """Flush what was printed, if anyone still reads it."""
        if self.closed:
            return
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            self._gone()

    def _gone(self) -> None:
        self.closed = True
        quiet_stdout()


def quiet_stdout() -> None:
    """Point stdout at nothing, so that neither a later flush nor the one at exit fails."""
    # What is still buffered can never be written once the reader has gone.
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@contextlib.contextmanager
def reader_may_leave() -> Iterator[Output]:
    """An ``Output`` for a command whose work must finish whoever reads its lines."""
    out = Output()
    yield out
    out.flush()


# --- render ---------------------------------------------------------------------------

#: Image formats ``render`` writes, by the suffix of the name asked for.
IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP"}


def image_format(out: str) -> str:
    """The Qt format name for ``out``, or InputError saying which names are understood."""
    suffix = Path(out).suffix.lower()
    if suffix not in IMAGE_FORMATS:
        raise InputError(f"{out}: render writes .png, .jpg/.jpeg or .webp images; "
                         f"name the file with one of those endings")
    return IMAGE_FORMATS[suffix]


# --- check ----------------------------------------------------------------------------

def version_warning(ruleset: str, saved: str, installed: str) -> str | None:
    """A sentence when a file's ruleset version differs in major from the installed one."""
    def major(version: str) -> str:
        return version.strip().split(".")[0]

    if not saved or major(saved) == major(installed):
        return None
    return (f"saved under {ruleset} {saved}, installed is {installed}: a different major "
            "version may have changed the rules, so replaying its log can give other results "
            "than when it was played")


# --- demos ----------------------------------------------------------------------------

def demo_lines() -> list[str]:
    """One line per shipped demo: ruleset id, name, path; and its scripts."""
    from tacmap.ui.demos import demos

    lines = []
    for rid, name, path in demos():
        lines.append(f"{rid}\t{name}\t{path}")
        for script in sorted(path.parent.glob(f"{path.stem}-*.jsonl")):
            lines.append(f"\t  script: {script}")
    return lines


def copy_demo(rid: str, dest: Path, force: bool) -> Path:
    """Copy the shipped demo of ruleset ``rid`` to ``dest``; returns the demo copied."""
    from tacmap.ui.demos import demos

    found = {r: path for r, _, path in demos()}
    if rid not in found:
        raise InputError(f"no demo for {rid!r} (demos: {', '.join(sorted(found))})")
    if dest.exists() and not force:
        raise InputError(f"{dest} already exists; pick another name or add --force")
    try:
        # As every file the command line writes: whole or not at all, never into a pipe.
        storage.write_atomic(dest, found[rid].read_bytes())
    except OSError as err:
        raise InputError(f"{dest}: cannot write ({err.strerror})") from None
    return found[rid]

