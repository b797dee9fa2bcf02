"""``tacmap balance``: proposals that bring a fight to the GM's target (issue 39)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tacmap.engine.files import storage
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.state import Encounter, Token, sides_of
from tacmap.engine.play.balance import Proposal, balance, changed_side, parse_target
from tacmap.engine.play.forecast import Forecast, default_jobs
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry

#: What plays the fights of a balance, said with every answer (issue 39 item 3).
POLICIES = {"greedy": "the forecast's greedy policy plays every side",
            "autopilot": "the autopilot plays every side"}


def add_parser(sub: Any) -> None:
    """The ``balance`` sub-command."""
    p = sub.add_parser("balance", help="propose changes that bring a fight to a target")
    p.add_argument("file", metavar="FILE", help="the encounter file (.tacmap) to balance")
    p.add_argument("--target", required=True, metavar="TARGET",
                   help='what the fight should come to: "party wins 75%%", "party wins 60%% '
                        '± 10%%", "party wins 75%%, at most 1 down in half the fights"')
    p.add_argument("--side", default=None, metavar="SIDE",
                   help="the side to change (default: the side other than the party)")
    p.add_argument("--like", action="append", default=[], metavar="TOKEN",
                   help="a token (id or name) whose copies may join that side too "
                        "(repeatable)")
    p.add_argument("--from", dest="roster", default=None, metavar="WORDS",
                   help="combatants of the roster (the window's, of this ruleset) whose "
                        "name or tags hold WORDS may join that side too")
    p.add_argument("--pick", type=int, default=1, metavar="K",
                   help="the proposal --out takes (default 1, the best)")
    p.add_argument("--out", default=None, metavar="OUT",
                   help="write the encounter with the picked proposal to OUT (a new file; "
                        "FILE itself is never changed)")
    p.add_argument("--jobs", type=int, default=None, metavar="J",
                   help="worker processes (default: the number of cores)")
    p.add_argument("--policy", choices=tuple(POLICIES), default="greedy",
                   help="who plays the fights: the forecast's greedy policy (the default, "
                        "the faster) or the autopilot")
    p.add_argument("--json", action="store_true", help="print the proposals as JSON")


def run(registry: Registry, args: argparse.Namespace, folders: list[str]) -> int:
    """Run ``tacmap balance``."""
    if args.jobs is not None and not 1 <= args.jobs <= 256:
        raise InputError("--jobs takes 1 to 256")
    if not 1 <= args.pick <= 3:
        raise InputError("--pick takes 1, 2 or 3 (the proposals shown)")
    loaded = storage.load(args.file, registry)
    state = loaded.state
    ruleset = registry.get(state.ruleset)
    sides = sides_of(state)
    target = parse_target(args.target, sides)
    side = changed_side(state, target, args.side)
    pool = [_token(state, name) for name in args.like]
    if args.roster is not None:
        pool += _from_roster(state.ruleset, args.roster)
    if args.out:
        storage.check_target(args.out)  # a folder or a pipe is refused before the search
    told = (lambda line: print(line, file=sys.stderr, flush=True)) \
        if sys.stderr.isatty() else None
    from tacmap.engine.play.autopilot import by_side  # the autopilot's engine: on use only

    found = balance(state, ruleset, target, side, pool, jobs=args.jobs or default_jobs(),
                    folders=folders, told=told,
                    policy=by_side if args.policy == "autopilot" else None)
    if not found:
        raise InputError(f"no change to {side} fits on this map")
    if args.json:
        print(json.dumps({"target": target.describe(), "side": side,
                          "policy": POLICIES[args.policy],
                          "proposals": [_json(p) for p in found]}, indent=2,
                         ensure_ascii=False))
    else:
        print(text(found, target.describe(), side, target.side, POLICIES[args.policy]))
    if args.out:
        if args.pick > len(found):
            raise InputError(f"--pick {args.pick}: there are {len(found)} proposals")
        referee = Referee(state, ruleset, list(loaded.log))
        try:
            referee.execute(found[args.pick - 1].command)
        except RuleError as err:
            raise InputError(f"the proposal does not fit the encounter: {err}") from None
        try:
            storage.save(args.out, referee.state, referee.log, loaded.images)
        except OSError as err:
            raise InputError(f"{args.out}: cannot write ({err.strerror})") from None
        print(f"{args.out}: written with proposal {args.pick} ({found[args.pick - 1].words})")
    return 0


def text(found: list[Proposal], target: str, side: str, winner: str, policy: str) -> str:
    """The proposals as ``tacmap balance`` prints them."""
    lines = [f"Balance to: {target} (changing {side}; {policy})"]
    for k, p in enumerate(found, 1):
        lines.append(f"{k}. {p.words}: {_summary(p.result, winner)}; {sureness(p)}")
    return "\n".join(lines)


def sureness(p: Proposal) -> str:
    """How sure the proposal meets the target, from its 95% interval."""
    if p.miss > 0:
        return "misses the target"
    _chance, lo, hi = p.result.win(p.target.side)
    if p.target.win - p.target.tolerance <= lo and hi <= p.target.win + p.target.tolerance:
        return "meets the target (its 95% interval lies within it)"
    return "meets the target (its 95% interval reaches past it: play it again to be surer)"


def _summary(result: Forecast, side: str) -> str:
    p, lo, hi = result.win(side)
    losses = ", ".join(f"{k}: {100 * q:.0f}%" for k, q in result.losses(side).items())
    return (f"{side} {100 * p:.1f}% to win ({100 * lo:.1f}–{100 * hi:.1f}%, "
            f"{result.fights} fights); {side} down {losses}")


def _json(p: Proposal) -> dict[str, Any]:
    return {"change": p.words, "meets": p.miss == 0, "miss": p.miss, "sure": sureness(p),
            "forecast": p.result.to_json()}


def _token(state: Encounter, name: str) -> Token:
    """The token ``name`` (an id or a name) of ``state``; InputError if none."""
    for t in state.tokens.values():
        if name in (t.id, t.name):
            return t
    raise InputError(f"--like names no token of this encounter: {name!r}")


def _from_roster(ruleset_id: str, words: str) -> list[Token]:
    """The roster's combatants of ``ruleset_id`` whose name or tags hold ``words``."""
    from tacmap.engine.files.roster import combatants
    from tacmap.ui.settings import roster_file  # the window's roster (no Qt in settings)

    try:
        return combatants(roster_file(), ruleset_id, words)
    except InputError as err:
        raise InputError(f"--from: {err}") from None
