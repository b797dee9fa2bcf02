"""The ``tacmap`` command line (DESIGN §6). Exit 0 done, 2 bad input, 1 a bug."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

import msgspec

from tacmap import __version__
from tacmap.engine import grid, records, storage
from tacmap.engine.commands import Command, describe
from tacmap.engine.dice import DiceSource, FixedDice, fresh_seed
from tacmap.engine.errors import InputError, RuleError
from tacmap.engine.records import LIMIT
from tacmap.engine.referee import Referee
from tacmap.engine.ruleset import ENV_VAR, TRUST_WARNING, Registry
from tacmap.engine.state import DIAGONAL_RULES


class UsageError(InputError):
    """Bad arguments: one line naming the command and where its help is."""

    def __init__(self, message: str, prog: str = "tacmap") -> None:
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message, self.prog)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with one sub-command per DESIGN §6 row."""
    p = _Parser(prog="tacmap", description="Offline tactical battle map with a rule engine.",
                epilog=f"Extra ruleset folders: --rulesets-dir DIR or "
                       f"{ENV_VAR}=DIR{os.pathsep}DIR. Note: {TRUST_WARNING}.")
    p.add_argument("--version", action="version", version=f"tacmap {__version__}")
    p.add_argument("--rulesets-dir", action="append", default=[], metavar="DIR",
                   help="also load rulesets from DIR (repeatable); a ruleset is code")
    p.add_argument("--trust-rulesets", action="store_true",
                   help="run those folders' code without asking (for scripts); the window "
                        "otherwise asks once per folder and content, the other commands "
                        "print a warning and run it")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    sub.add_parser("rulesets", help="list the rulesets: id, name, version")

    opener = sub.add_parser("open", help="open an encounter in the window (also: tacmap FILE)")
    opener.add_argument("file", metavar="FILE")

    render = sub.add_parser("render", help="draw the map to a PNG, as the window would")
    render.add_argument("file", metavar="FILE")
    render.add_argument("out", metavar="OUT.png")
    render.add_argument("--player", action="store_true",
                        help="the player view: no stat blocks, no other sides' hit points")
    render.add_argument("--scale", type=float, default=40.0, metavar="PX",
                        help="pixels per metre (default 40; the image is at most 4096 px wide)")

    new = sub.add_parser("new", help="write an empty encounter")
    new.add_argument("--ruleset", required=True, metavar="ID")
    new.add_argument("file", metavar="FILE")
    new.add_argument("--name", default="", help="title of the encounter")
    new.add_argument("--size", default="30x20", help="map size in cells, WxH (default 30x20)")
    new.add_argument("--seed", type=int, default=None,
                     help="dice seed, 0 to 1,000,000,000 (default: random)")
    new.add_argument("--force", action="store_true", help="overwrite FILE if it exists")

    imp = sub.add_parser("import", help="a new encounter from a Universal VTT map "
                                        "(.dd2vtt, .uvtt, .df2vtt): image, grid, walls, doors")
    imp.add_argument("file", metavar="FILE")
    imp.add_argument("out", metavar="OUT.tacmap")
    imp.add_argument("--ruleset", required=True, metavar="ID")
    imp.add_argument("--name", default="", help="title of the encounter (default: FILE's name)")
    imp.add_argument("--seed", type=int, default=None, help="dice seed (default: random)")
    imp.add_argument("--force", action="store_true", help="overwrite OUT if it exists")

    report = sub.add_parser("report", help="write the fight report: one HTML file to share")
    report.add_argument("file", metavar="FILE")
    report.add_argument("out", metavar="OUT.html")
    report.add_argument("--gm", action="store_true",
                        help="include everything: GM-only rolls, hidden tokens, all hit points")

    check = sub.add_parser("check", help="validate an encounter file")
    check.add_argument("file", metavar="FILE")

    measure = sub.add_parser("measure",
                             help="path length under a ruleset's grid, in its unit (m or ft)")
    measure.add_argument("--ruleset", required=True, metavar="ID")
    measure.add_argument("--diagonal", choices=DIAGONAL_RULES, default=None,
                         help="use this diagonal rule instead of the ruleset's")
    measure.add_argument("points", nargs="+", metavar="X,Y")

    play = sub.add_parser("play", help="run a script of commands through the referee")
    play.add_argument("file", metavar="FILE")
    play.add_argument("--script", required=True, metavar="S.jsonl",
                      help="one JSON command a line ('-' reads standard input)")
    play.add_argument("--seed", type=int, default=None, help="use this dice seed")
    play.add_argument("--dice", default=None, metavar="4,6,1",
                      help="use these faces, in order, instead of the dice stream")
    play.add_argument("--out", default=None, metavar="OUT", help="save the result to OUT")
    play.add_argument("--json", action="store_true", help="print events as JSON lines")

    roll = sub.add_parser(
        "roll", help="roll dice by notation, with the odds",
        description="Roll dice written as GMs write them, and show the odds first.",
        epilog='examples: tacmap roll "2d6+3" --target 10   tacmap roll "4d6kh3"   '
               'tacmap roll "d20 adv" --seed 7')
    roll.add_argument("notation", metavar="ROLL",
                      help="dice: 2d6+3, 4d6kh3 (keep the highest 3), 4d6kl1, d20 adv, "
                           "d20 dis, 3d8-1, d%% (at most 100 dice of at most 1,000 sides)")
    roll.add_argument("--target", type=int, default=None, metavar="N",
                      help="also give the chance to reach N or more, and whether the roll did")
    roll.add_argument("--seed", type=int, default=None, metavar="N",
                      help="roll from this seed (the same seed gives the same faces)")

    bench = sub.add_parser("bench", help="run the performance benchmarks")
    bench.add_argument("--json", action="store_true", help="print JSON")
    bench.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")

    from tacmap.kit import commands as kit

    kit.add_parsers(sub)  # ruleset check, ruleset new, schema
    return p


COMMANDS = ("rulesets", "open", "render", "new", "import", "report", "check", "measure", "play",
            "roll", "bench", "ruleset", "schema")


def _with_open(argv: list[str]) -> list[str]:
    """``tacmap FILE`` means ``tacmap open FILE``."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] == "--rulesets-dir" else 1
    if i < len(argv) and argv[i] not in COMMANDS:
        return [*argv[:i], "open", *argv[i:]]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    # The trust warning is printed once the command has run: when it is refused, the
    # error is the one line that counts.
    warnings: list[str] = []
    try:
        args = parser.parse_args(_with_open(list(sys.argv[1:] if argv is None else argv)))
        code = _run(parser, args, warnings)
        _warn(warnings)
        return code
    except UsageError as err:
        print(f"{err.prog}: {one_line(str(err))} (see {err.prog} --help)", file=sys.stderr)
        return 2
    except (InputError, RuleError) as err:
        print(f"tacmap: {one_line(str(err))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as err:  # a bug: say so in one line, details only on request
        _warn(warnings)  # the user's ruleset ran, and may be what failed
        if os.environ.get("TACMAP_DEBUG"):
            traceback.print_exc()
        print(f"tacmap: internal error ({type(err).__name__}: {err}); "
              "set TACMAP_DEBUG=1 for details", file=sys.stderr)
        return 1


def _roll(args: argparse.Namespace) -> int:
    from tacmap.engine.dice import SeededDice, fresh_seed
    from tacmap.engine.free_roll import chart_lines, odds_lines, roll_text
    from tacmap.engine.notation import parse

    notation = parse(args.notation)
    if args.seed is not None and not 0 <= args.seed < records.LIMIT:
        raise UsageError(f"--seed must be 0 to {records.LIMIT - 1:,}", "tacmap roll")
    chances = notation.distribution()
    for line in [*odds_lines(notation, chances, args.target),
                 *(chart_lines(chances) if chances else [])]:
        print(line)
    seed = fresh_seed() if args.seed is None else args.seed
    print(roll_text(notation, SeededDice(seed), args.target)[1])
    return 0


#: Longest message printed to stderr, in characters: a refused command a megabyte long
#: is named by its start, not echoed whole.
MAX_MESSAGE = 500


def one_line(message: str) -> str:
    """``message`` on one line, cut to ``MAX_MESSAGE`` characters (printable on any terminal)."""
    text = " ".join(message.split())
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) > MAX_MESSAGE:
        tail = f"… ({len(message):,} characters)"
        text = text[:MAX_MESSAGE - len(tail)] + tail
    return text


def _warn(warnings: list[str]) -> None:
    for message in warnings:
        print(f"warning: {message}", file=sys.stderr)
    warnings.clear()


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace,
         warnings: list[str]) -> int:
    if args.command in ("ruleset", "schema"):
        from tacmap.kit import commands as kit

        return kit.run(args, warnings.append)
    registry = Registry(args.rulesets_dir, warn=warnings.append)
    if args.command in (None, "open"):
        from tacmap.ui.app import run

        # The window runs until it is closed: the warning comes first, as it always did.
        registry.warn = lambda message: _warn([message])

        if not args.trust_rulesets:
            from tacmap.ui.ask import ask_dialog
            from tacmap.ui.trust import window_trust

            registry.trust = window_trust(ask_dialog)

        return run(registry, Path(args.file) if args.command == "open" else None)
    if args.command == "render":
        return _render(registry, args)
    if args.command == "rulesets":
        for rid in registry.ids():
            m = registry.manifests[rid]
            where = "" if m.builtin else f"  (from {m.folder})"
            print(f"{m.id}\t{m.name}\t{m.version}{where}")
        return 0
    if args.command == "new":
        return _new(registry, args)
    if args.command == "import":
        from tacmap.engine.uvtt import import_file

        if args.seed is not None:
            _check_seed(args.seed, "import")
        for text in import_file(registry, args.file, args.out, args.ruleset, args.name,
                                args.seed, args.force):
            print(text)
        return 0
    if args.command == "report":
        from tacmap.ui.report import report_file

        print(report_file(registry, Path(args.file), Path(args.out), args.gm))
        return 0
    if args.command == "check":
        loaded = storage.load(args.file, registry)
        try:
            storage.verify(loaded)
        except InputError as err:
            raise InputError(f"{args.file}: {err}") from None
        s = loaded.state
        size = registry.manifests[s.ruleset].units.size(s.map.width, s.map.height) \
            if s.ruleset in registry.manifests else f"{s.map.width}×{s.map.height} m"
        print(f"{args.file}: ok — ruleset {s.ruleset} {s.ruleset_version}, {size}, "
              f"{len(s.tokens)} tokens, {len(s.map.walls)} walls, "
              f"{len(loaded.log)} log entries")
        return 0
    if args.command == "measure":
        ruleset = registry.get(args.ruleset)
        rule = args.diagonal or ruleset.manifest.diagonal
        points = [grid.parse_cell(p) for p in args.points]
        if len(points) < 2:
            raise UsageError("measure needs at least two points", "tacmap measure")
        print(ruleset.manifest.units.of(grid.path_length(rule, points)))
        return 0
    if args.command == "play":
        return _play(registry, args)
    if args.command == "roll":
        return _roll(args)
    if args.command == "bench":
        from tacmap import bench
        from tacmap.ui import bench as map_bench
        from tacmap.ui import import_bench

        # Composed here, the one module above both: the engine's bench never imports the UI.
        return bench.main(registry, as_json=args.json, quick=args.quick,
                          sources=[map_bench.run, import_bench.run])
    raise UsageError(f"unknown command {args.command!r}")


def _render(registry: Registry, args: argparse.Namespace) -> int:
    from tacmap.ui.render import render

    if not 1 <= args.scale <= 200:
        raise UsageError("--scale must be 1 to 200 pixels per metre", "tacmap render")
    loaded = storage.load(args.file, registry)
    images = Path(args.file).parent / loaded.images
    try:
        w, h = render(loaded.state, registry.get(loaded.state.ruleset), args.out, images,
                      args.player, args.scale)
    except OSError as err:
        raise InputError(f"{args.out}: cannot write the image ({err})") from None
    print(f"{args.out}: {w}×{h} px{' (player view)' if args.player else ''}")
    return 0


def _check_seed(seed: int, command: str) -> None:
    """A seed the file can hold (``new`` and ``play`` alike: what is written reads back)."""
    if not 0 <= seed <= LIMIT:
        raise UsageError(f"--seed must be 0 to {LIMIT:,}, not {seed:,}", f"tacmap {command}")


def _new(registry: Registry, args: argparse.Namespace) -> int:
    ruleset = registry.get(args.ruleset)
    path = Path(args.file)
    if args.seed is not None:
        _check_seed(args.seed, "new")
    if path.exists() and not args.force:
        raise InputError(f"{path} already exists; pick another name or add --force")
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size {args.size!r} should look like 30x20", "tacmap new") from None
    seed = args.seed if args.seed is not None else fresh_seed()
    try:
        state = ruleset.new_map(args.name or path.stem, seed, w, h)
    except ValueError as err:
        raise InputError(str(err)) from None
    try:
        storage.save(path, state, [])
    except OSError as err:
        raise InputError(f"{path}: cannot write ({err.strerror})") from None
    print(f"{path}: new {ruleset.manifest.name} encounter, {ruleset.manifest.units.size(w, h)}")
    return 0


def read_script(path: str) -> list[tuple[int, Command]]:
    """Commands from a JSON-lines script; blank lines and ``#`` comments are skipped."""
    # A script gets the checks an encounter file gets: a regular file (not /dev/zero or a
    # pipe that never ends) of at most the same size.
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)  # a test may put text in its place
        raw = stream.read(storage.MAX_BYTES + 1) if stream is not None else \
            sys.stdin.read(storage.MAX_BYTES + 1).encode("utf-8", "surrogateescape")
        if len(raw) > storage.MAX_BYTES:
            raise InputError(f"standard input: the script is more than {storage.MAX_BYTES:,} "
                             "bytes, more than a script can be")
    else:
        raw = storage.read_bytes(Path(path), storage.MAX_BYTES, "a script")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: cannot read the script (not UTF-8 text, byte {err.start})") \
            from None
    commands = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            commands.append((n, records.decode(line, Command)))
        except InputError as err:
            raise InputError(f"{path} line {n}: {err}") from None
    return commands


def _play(registry: Registry, args: argparse.Namespace) -> int:
    loaded = storage.load(args.file, registry)
    state = loaded.state
    if args.seed is not None:
        _check_seed(args.seed, "play")
        state.seed = args.seed
    commands = read_script(args.script)
    dice: DiceSource | None = None
    if args.dice is not None:
        try:
            dice = FixedDice(int(v) for v in args.dice.replace(" ", "").split(",") if v)
        except ValueError:
            raise UsageError("--dice takes whole numbers separated by commas: 4,6,1",
                             "tacmap play") from None
    referee = Referee(state, registry.get(state.ruleset), loaded.log)
    for n, cmd in commands:
        try:
            events = referee.execute(cmd, dice)
        except RuleError as err:
            sys.stdout.flush()
            raise InputError(f"{args.script} line {n}: {describe(cmd)}: {err} "
                             "(stopped here; nothing was saved)") from None
        if args.json:
            for ev in events:
                # One event a line, spaced after ":" and "," as the first tacmap printed it.
                print(msgspec.json.format(records.encode(ev), indent=0).decode())
        else:
            print(f"» {describe(cmd)}")
            for ev in events:
                print(f"  {ev.text(referee.state)}")
    if args.out:
        try:
            storage.save(args.out, referee.state, referee.log, loaded.images)
        except OSError as err:
            raise InputError(f"{args.out}: cannot write ({err.strerror})") from None
    return 0
