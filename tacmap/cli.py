"""The ``tacmap`` command line (DESIGN §6). Exit 0 done, 2 bad input, 1 a bug."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

import msgspec

from tacmap import __version__, cli_help, house_rules_cli
from tacmap.engine.files import storage
from tacmap.engine.model import records
from tacmap.engine.model.commands import Command, EndTurn, StartCombat, describe
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.events import Event
from tacmap.engine.model.records import LIMIT
from tacmap.engine.model.state import DIAGONAL_RULES, Encounter
from tacmap.engine.model.words import plural
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import DiceSource, FixedDice, fresh_seed
from tacmap.engine.rules.ruleset import ENV_VAR, TRUST_WARNING, Manifest, Registry
from tacmap.engine.space import grid


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
                        "and 'ruleset check' otherwise ask once per folder and content, the "
                        "other commands print a warning and run it")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    sub.add_parser("rulesets", help="list the rulesets: id, name, version")
    sub.add_parser("demos", help="list the shipped demo encounters with their paths")

    opener = sub.add_parser("open", help="open an encounter in the window (also: tacmap FILE)")
    opener.add_argument("file", metavar="FILE", help="the encounter file (.tacmap)")

    render = sub.add_parser("render", help="draw the map to a PNG, JPEG or WebP image")
    render.add_argument("file", metavar="FILE", help="the encounter file (.tacmap)")
    render.add_argument("out", metavar="OUT.png",
                        help="the image to write; .png, .jpg/.jpeg or .webp")
    render.add_argument("--player", action="store_true",
                        help="the player view: no stat blocks, no other sides' hit points")
    render.add_argument("--scale", type=float, default=40.0, metavar="PX",
                        help="pixels per cell, 1 to 200 (default 40; the image is at most 4096 px "
                             "wide)")

    new = sub.add_parser("new", help="write an empty encounter, or copy a demo")
    ruleset_ids = cli_help.ruleset_ids()
    new_from = new.add_mutually_exclusive_group(required=True)
    new_from.add_argument("--ruleset", metavar="ID", help=f"the ruleset; {ruleset_ids}")
    new_from.add_argument("--demo", metavar="ID",
                          help="copy the shipped demo of ruleset ID (see tacmap demos)")
    new.add_argument("file", metavar="FILE", help="the encounter file to write (.tacmap)")
    new.add_argument("--name", default="", help="title of the encounter")
    new.add_argument("--size", default="30x20", help="map size in cells, WxH (default 30x20)")
    new.add_argument("--seed", type=int, default=None,
                     help="dice seed, 0 to 1,000,000,000 (default: random)")
    new.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    new.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                     help=house_rules_cli.RULE_HELP)

    imp = sub.add_parser("import", help="a new encounter from a Universal VTT map "
                                        "(.dd2vtt, .uvtt, .df2vtt): image, grid, walls, doors")
    imp.add_argument("file", metavar="FILE", help="the Universal VTT map to read")
    imp.add_argument("out", metavar="OUT.tacmap", help="the encounter to write")
    imp.add_argument("--ruleset", required=True, metavar="ID",
                     help=f"the ruleset the encounter is played under: {cli_help.ruleset_ids()}")
    imp.add_argument("--name", default="", help="title of the encounter (default: FILE's name)")
    imp.add_argument("--seed", type=int, default=None, help="dice seed (default: random)")
    imp.add_argument("--force", action="store_true", help="overwrite OUT if it exists")

    report = sub.add_parser("report", help="write the fight report: one HTML file to share")
    report.add_argument("file", metavar="FILE", help="the encounter file (.tacmap) to report on")
    report.add_argument("out", metavar="OUT.html", help="the HTML page to write")
    report.add_argument("--gm", action="store_true",
                        help="include everything: GM-only rolls, hidden tokens, all hit points")

    desktop = sub.add_parser("desktop", help="add tacmap's menu entry, icon and file type "
                             "for this user (or remove them)")
    desktop.add_argument("action", choices=("install", "uninstall"),
                         help="install: write them; uninstall: remove them")

    check = sub.add_parser("check", help="validate an encounter file")
    check.add_argument("file", metavar="FILE", help="the encounter file (.tacmap)")

    measure = sub.add_parser("measure",
                             help="path length under a ruleset's grid, in its unit (m or ft)")
    measure.add_argument("--ruleset", required=True, metavar="ID",
                         help=f"the ruleset whose grid and unit count; {ruleset_ids}")
    measure.add_argument("--diagonal", choices=DIAGONAL_RULES, default=None,
                         help="use this diagonal rule instead of the ruleset's")
    measure.add_argument("points", nargs="+", metavar="X,Y",
                         help="cells the path passes through, in order (whole numbers, "
                              "negative ones too: -2,3)")

    play = sub.add_parser("play", help="run a script of commands through the referee")
    play.add_argument("file", metavar="FILE", nargs="?", help="the encounter file (.tacmap)")
    play.add_argument("--script", metavar="S.jsonl",
                      help="one JSON command a line ('-' reads standard input); "
                           "required with FILE")
    play.add_argument("--commands", action="store_true",
                      help="list the command types a script can hold, with their fields")
    play.add_argument("--seed", type=int, default=None, metavar="N",
                      help="replace the encounter's dice seed with N")
    play.add_argument("--dice", default=None, metavar="4,6,1",
                      help="use these faces, in order, instead of the dice stream")
    play.add_argument("--out", default=None, metavar="OUT",
                      help="save the result to OUT (written even when the output is cut "
                           "short, as by | head)")
    play.add_argument("--json", action="store_true", help="print events as JSON lines")
    play.add_argument("--autopilot", default=None, metavar="SIDE[,SIDE…]",
                      help="the autopilot plays these sides ('all': every side) until one "
                           "side is left; the others' turns come from --script, and without "
                           "one the run stops at their first turn")
    play.add_argument("--rounds", type=int, default=None, metavar="N",
                      help="with --autopilot: stop once N rounds are played (default: at "
                           "the end of the fight, at most 30 rounds)")

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

    bench = sub.add_parser("bench", help="run the performance benchmarks (exit 1 when a "
                           "figure is over its budget)")
    bench.add_argument("--json", action="store_true", help="print JSON")
    bench.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    bench.add_argument("--forecast", action="store_true",
                       help="time forecasts of the demos instead (fights per second)")
    bench.add_argument("--autopilot", action="store_true",
                       help="the autopilot against the greedy policy in mirror matches, "
                            "and its thinking time per decision, instead")

    from tacmap import forecast_cli

    forecast_cli.add_parser(sub)
    from tacmap import balance_cli

    balance_cli.add_parser(sub)
    house_rules_cli.add_parser(sub)

    from tacmap.kit import commands as kit

    kit.add_parsers(sub)  # ruleset check, ruleset new, schema
    cli_help.dress(p)
    return p


COMMANDS = ("rulesets", "demos", "open", "render", "new", "import", "report", "check", "measure",
            "play", "roll", "bench", "ruleset", "schema", "forecast", "balance", "rules",
            "desktop")


def _window_only(argv: list[str]) -> argparse.Namespace | None:
    """``tacmap`` and ``tacmap FILE`` read as the parser would, without building the parsers
    of every command first (a fiftieth of the window's cold start); None for anything else."""
    if len(argv) > 1 or (argv and (argv[0].startswith("-") or argv[0] in COMMANDS
                                   or not cli_help.looks_like_file(argv[0]))):
        return None
    if not argv:
        return argparse.Namespace(rulesets_dir=[], trust_rulesets=False, command=None)
    return argparse.Namespace(rulesets_dir=[], trust_rulesets=False, command="open",
                              file=argv[0])


def _command_at(argv: list[str]) -> int:
    """Where the command word is in ``argv`` (past the options before it)."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] == "--rulesets-dir" else 1
    return i


#: ``tacmap roll``'s options, and those that take a value.
_ROLL_OPTIONS = ("-h", "--help", "--target", "--seed")
_ROLL_VALUED = ("--target", "--seed")


def _negative_roll(argv: list[str]) -> list[str]:
    """``tacmap roll -1d6``: argparse takes ``-1d6`` for an option, and would say ROLL is
    missing; the roll moves after ``--``, where a word is never an option."""
    i = _command_at(argv)
    if i >= len(argv) or argv[i] != "roll" or "--" in argv:
        return argv
    words = argv[i + 1:]
    for k, word in enumerate(words):
        valued = k > 0 and words[k - 1] in _ROLL_VALUED
        if word.startswith("-") and not valued and word.split("=")[0] not in _ROLL_OPTIONS:
            return [*argv[:i + 1], *words[:k], *words[k + 1:], "--", word]
    return argv


def _with_open(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``tacmap FILE`` means ``tacmap open FILE``; any other first word is a command."""
    i = _command_at(argv)
    if i < len(argv) and argv[i] not in cli_help.subcommands(parser):
        if not cli_help.looks_like_file(argv[i]):
            raise UsageError(cli_help.unknown_command(argv[i], parser))
        return [*argv[:i], "open", *argv[i:]]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    # The trust warning is printed once the command has run: when it is refused, the
    # error is the one line that counts.
    warnings: list[str] = []
    try:
        args = _window_only(words)
        if args is None:
            parser = build_parser()
            args, extra = parser.parse_known_args(_negative_roll(_with_open(words, parser)))
            if extra:
                raise UsageError(f"unrecognized arguments: {' '.join(extra)}",
                                 f"tacmap {args.command}" if args.command else "tacmap")
        code = _run(args, warnings)
        _warn(warnings)
        return code
    except UsageError as err:
        usage = cli_help.usage_line(cli_help.parser_for(build_parser(), err.prog))
        print(f"{err.prog}: {one_line(str(err))} — usage: {usage} (see {err.prog} --help)",
              file=sys.stderr)
        return 2
    except (InputError, RuleError) as err:
        print(f"tacmap: {one_line(str(err))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader left (| head): what was asked is done (see _play), the rest of the
        # printing is not wanted. Python would complain again when it flushes at exit.
        cli_help.quiet_stdout()
        return 0
    except Exception as err:  # a bug: say so in one line, details only on request
        _warn(warnings)  # the user's ruleset ran, and may be what failed
        if os.environ.get("TACMAP_DEBUG"):
            traceback.print_exc()
        print(f"tacmap: internal error ({type(err).__name__}: {err}); "
              "set TACMAP_DEBUG=1 for details", file=sys.stderr)
        return 1


def _roll(args: argparse.Namespace) -> int:
    from tacmap.engine.rules.dice import SeededDice, fresh_seed
    from tacmap.engine.rules.free_roll import chart_lines, odds_lines, roll_text
    from tacmap.engine.rules.notation import parse

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
    for message in dict.fromkeys(warnings):  # each registry a command makes says it again
        print(f"warning: {message}", file=sys.stderr)
    warnings.clear()


def _terminal_trust(manifest: Manifest) -> bool:
    """Whether a user's ruleset folder may run: the window's remembered answer for this folder
    and content, else the GM's answer at the terminal (remembered too); a script is refused."""
    from tacmap.ui.trust import window_trust

    def ask(question: str) -> bool:
        if sys.stdin is None or not sys.stdin.isatty():
            raise InputError(f"{manifest.folder} is a ruleset folder you have not trusted, and "
                             "checking it runs its Python with your permissions: answer yes "
                             "at a terminal, or add --trust-rulesets")
        print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline()
        if not answer:  # end of input: no answer, so none is remembered
            raise InputError(f"{manifest.folder}: no answer, so its Python was not run")
        return answer.strip().lower() in ("y", "yes")

    return window_trust(ask)(manifest)


def _run(args: argparse.Namespace, warnings: list[str]) -> int:
    if args.command in ("ruleset", "schema"):
        from tacmap.kit import commands as kit

        return kit.run(args, warnings.append, None if args.trust_rulesets else _terminal_trust)
    registry = Registry(args.rulesets_dir, warn=warnings.append)
    if args.command in (None, "open"):
        from tacmap.ui.app import run

        # The window runs until it is closed: the warnings come first, as they always did.
        registry.warn = lambda message: _warn([message])
        _warn(warnings)

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
    if args.command == "demos":
        for line in cli_help.demo_lines():
            print(line)
        return 0
    if args.command == "new":
        return _new(registry, args)
    if args.command == "import":
        from tacmap.engine.files.uvtt import import_file

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
    if args.command == "desktop":
        from tacmap import desktop

        return desktop.main(args.action)
    if args.command == "check":
        loaded = storage.load(args.file, registry)
        try:
            storage.verify(loaded)
        except InputError as err:
            raise InputError(f"{args.file}: {err}") from None
        s = loaded.state
        if s.ruleset in registry.manifests:
            warning = cli_help.version_warning(s.ruleset, s.ruleset_version,
                                               registry.manifests[s.ruleset].version)
            if warning:
                warnings.append(f"{args.file}: {warning}")
        size = registry.manifests[s.ruleset].units.size(s.map.width, s.map.height) \
            if s.ruleset in registry.manifests else f"{s.map.width}×{s.map.height} m"
        version = s.ruleset_version or "(no version)"
        print(f"{args.file}: ok — ruleset {s.ruleset} {version}, {size}, "
              f"{plural(len(s.tokens), 'token')}, {plural(len(s.map.walls), 'wall')}, "
              f"{plural(len(loaded.log), 'log entry', 'log entries')}")
        if s.house_rules:
            print("house rules: " + ", ".join(f"{k} = {v}" for k, v in s.house_rules.items()))
        return 0
    if args.command == "rules":
        return house_rules_cli.run(registry, args)
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
    if args.command == "forecast" or (args.command == "bench"
                                      and (args.forecast or args.autopilot)):
        from tacmap import forecast_cli

        if args.command == "bench" and args.autopilot:
            return forecast_cli.bench_autopilot(registry, args.json, args.quick)
        if args.command == "bench":
            return forecast_cli.bench(registry, args.json, args.quick)
        return forecast_cli.run(registry, args, args.rulesets_dir)
    if args.command == "balance":
        from tacmap import balance_cli

        return balance_cli.run(registry, args, args.rulesets_dir)
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
        raise UsageError("--scale must be 1 to 200 pixels per cell", "tacmap render")
    image_format = cli_help.image_format(args.out)
    loaded = storage.load(args.file, registry)
    images = Path(args.file).parent / loaded.images
    try:
        storage.check_target(args.out)  # before drawing, which takes seconds
        w, h = render(loaded.state, registry.get(loaded.state.ruleset), args.out, images,
                      args.player, args.scale, image_format)
    except OSError as err:
        raise InputError(f"{args.out}: cannot write the image ({err.strerror or err})") \
            from None
    print(f"{args.out}: {w}×{h} px{' (player view)' if args.player else ''}")
    return 0


def _check_seed(seed: int, command: str) -> None:
    """A seed the file can hold (``new`` and ``play`` alike: what is written reads back)."""
    if not 0 <= seed <= LIMIT:
        raise UsageError(f"--seed must be 0 to {LIMIT:,}, not {seed:,}", f"tacmap {command}")


def _new(registry: Registry, args: argparse.Namespace) -> int:
    path = Path(args.file)
    if args.demo is not None:
        demo = cli_help.copy_demo(args.demo, path, args.force)
        print(f"{path}: a copy of the demo {demo.name}")
        return 0
    ruleset = registry.get(args.ruleset)
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
    house_rules_cli.overridden(state, ruleset, args.rule)
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
    if args.commands:
        for rid in registry.ids():  # a ruleset's own commands register when it loads
            if registry.manifests[rid].builtin:
                registry.get(rid)
        for line in cli_help.command_lines():
            print(line)
        return 0
    if args.file is None or (args.script is None and args.autopilot is None):
        raise UsageError("play needs FILE and --script S.jsonl or --autopilot SIDE "
                         "(or --commands)", "tacmap play")
    if args.rounds is not None and (args.autopilot is None or not 1 <= args.rounds <= 1000):
        raise UsageError("--rounds takes 1 to 1,000, with --autopilot", "tacmap play")
    loaded = storage.load(args.file, registry)
    state = loaded.state
    if args.seed is not None:
        _check_seed(args.seed, "play")
        state.seed = args.seed
    commands = read_script(args.script) if args.script is not None else []
    _fixed_dice(args.dice)  # checked before anything runs
    try:
        if args.out:
            storage.check_target(args.out)  # likewise: a pipe is refused before the script runs
    except OSError as err:
        raise InputError(f"{args.out}: cannot write ({err.strerror})") from None
    sides = _autopilot_sides(args.autopilot, state) if args.autopilot is not None else None
    referee = Referee(state, registry.get(state.ruleset), loaded.log)
    with cli_help.reader_may_leave() as out:
        if sides is None:
            _play_through(referee, commands, args, out)
        else:
            _play_autopilot(referee, sides, commands, args, out)
    if args.out:
        try:
            storage.save(args.out, referee.state, referee.log, loaded.images)
        except OSError as err:
            raise InputError(f"{args.out}: cannot write ({err.strerror})") from None
    return 0


def _play_through(referee: Referee, commands: list[tuple[int, Command]],
                  args: argparse.Namespace, out: cli_help.Output) -> None:
    """Run the script's commands, printing their events while anyone reads them."""
    dice = _fixed_dice(args.dice)
    for n, cmd in commands:
        _script_line(referee, n, cmd, dice, args, out)


def _script_line(referee: Referee, n: int, cmd: Command, dice: DiceSource | None,
                 args: argparse.Namespace, out: cli_help.Output) -> None:
    """Run line ``n`` of the script and print its events; a refusal stops the run."""
    try:
        events = referee.execute(cmd, dice)
    except RuleError as err:
        out.flush()
        # The reason first, and the command cut short: a long command (a path of hundreds
        # of cells, thousands of walls) must not push the reason past the cut.
        said = describe(cmd)
        said = said if len(said) <= 150 else f"{said[:149]}…"
        raise InputError(f"{args.script} line {n}: {err} (stopped here; nothing was "
                         f"saved) — {said}") from None
    _print_events(referee, cmd, events, args, out)


def _print_events(referee: Referee, cmd: Command, events: Sequence[Event],
                  args: argparse.Namespace, out: cli_help.Output, who: str = "") -> None:
    """The command (``who`` played it) and its events, as ``play`` prints them."""
    if args.json:
        for ev in events:
            # One event a line, spaced after ":" and "," as the first tacmap printed it.
            out.print(msgspec.json.format(records.encode(ev), indent=0).decode())
    else:
        out.print(f"» {describe(cmd)}{who}")
        for ev in events:
            out.print(f"  {ev.text(referee.state)}")


def _autopilot_sides(text: str, state: Encounter) -> frozenset[str]:
    """The sides ``--autopilot`` names, checked against the encounter's ("all": every one)."""
    sides = {t.side for t in state.tokens.values()}
    named = {s.strip() for s in text.split(",") if s.strip()}
    if named == {"all"}:
        return frozenset(sides)
    unknown = sorted(named - sides)
    if not named or unknown:
        listed = ", ".join(sorted(sides)) or "none"
        raise UsageError(f"--autopilot: no side {', '.join(unknown) or '(empty)'} in the "
                         f"encounter; its sides are {listed}", "tacmap play")
    return frozenset(named)


def _play_autopilot(referee: Referee, sides: frozenset[str],
                    commands: list[tuple[int, Command]], args: argparse.Namespace,
                    out: cli_help.Output) -> None:
    """Play the autopilot's sides, the script's lines on the others' turns, until one side
    is left, ``--rounds`` rounds are over, or a token off autopilot has no line left."""
    from tacmap.engine.play import autopilot
    from tacmap.engine.play.forecast import MAX_ROUNDS, MAX_STEPS

    dice = _fixed_dice(args.dice)
    state = referee.state
    ruleset = referee.ruleset
    pilot, driver = autopilot.pilot_for(referee, state.seed)
    script = iter(commands)
    if ruleset.turn_order(state) is None:
        if commands and isinstance(commands[0][1], StartCombat):
            # The script starts the fight (with its order, as the manual's example does).
            number, opening = next(script)
            _script_line(referee, number, opening, dice, args, out)
        else:
            _print_events(referee, StartCombat(), referee.execute(StartCombat(), dice), args,
                          out)
    first = referee.state.round
    cap = args.rounds if args.rounds is not None else MAX_ROUNDS
    for _step in range(MAX_STEPS):
        state = referee.state
        left = {t.side for t in state.tokens.values() if not pilot.hints.out(t)}
        if len(left) <= 1:
            out.print(f"The fight is over: {next(iter(left), 'nobody')} left standing.")
            return
        if state.round >= first + cap:
            out.print(f"Stopped after {cap} round{'s' if cap != 1 else ''}.")
            return
        actor = ruleset.whose_turn(state)
        token = state.tokens.get(actor) if actor is not None else None
        if token is not None and token.side not in sides:
            line = next(script, None)
            if line is None:
                out.print(f"Stopped at the turn of {token.name} ({token.side}): not on "
                          "autopilot, and no script line left.")
                return
            _script_line(referee, line[0], line[1], dice, args, out)
            continue
        cmd = EndTurn() if actor is None else autopilot.next_command(pilot, driver, actor)
        try:
            events = referee.execute(cmd, dice)
        except RuleError:
            cmd = EndTurn()  # the preview allowed it and the rules did not: the turn ends
            events = referee.execute(cmd, dice)
        _print_events(referee, cmd, events, args, out,
                      f"  (autopilot: {token.name})" if token is not None else "")


def _fixed_dice(text: str | None) -> DiceSource | None:
    """The faces of ``--dice``, or None for the encounter's stream."""
    if text is None:
        return None
    try:
        return FixedDice(int(v) for v in text.replace(" ", "").split(",") if v)
    except ValueError:
        raise UsageError("--dice takes whole numbers separated by commas: 4,6,1",
                         "tacmap play") from None

