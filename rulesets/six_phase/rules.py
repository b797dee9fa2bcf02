"""Six Phases (seed 002): six fixed phases a round; declare, roll a d20 each, resolve high to low.

Command flow at the table (README.md has the whole story):

* ``start_combat`` begins round 1 in phase 1, Declare spells.
* In each phase, every combatant due there declares (an ``act`` or a ``move``)
  or passes (``end_turn``). Once nobody is left to declare, every declaration
  rolls a d20 and they resolve from the highest roll down; an action an
  earlier result made impossible is struck out with its reason. Then play
  moves to the next phase where someone has something to declare (Monster
  morale and Spells play themselves), and after phase 6 the next round.
"""

from __future__ import annotations

import copy
from typing import Any

from msgspec.structs import replace

from tacmap.api import (
    Act,
    Attack,
    Cell,
    Command,
    DiceRolled,
    Encounter,
    EndTurn,
    FixedPhases,
    HpChanged,
    Manifest,
    Move,
    MovePlan,
    Odds,
    Preview,
    Resolution,
    RoundChanged,
    RuleError,
    Ruleset,
    Said,
    ScheduleChanged,
    StartCombat,
    Token,
    TokenMoved,
    ValueChanged,
    condition_change,
    grid,
    line_of_sight,
    party_side,
)

from . import actions, attacks
from .data import DECLARE_SPELLS, MELEE, MORALE, MOVEMENT, RANGED, SPELLS, Data, Weapon
from .round import Done, Plan, Round

#: Whole-number stats the rules read.
INT_STATS = ("hd", "dex", "str", "ins", "int", "cun", "cou", "dex_mod", "str_bonus",
             "evasion", "slots", "exhaustion")
#: The phase each kind of declaration belongs to.
PHASE_OF = {"cast": DECLARE_SPELLS, "move": MOVEMENT, "shoot": RANGED, "melee": MELEE,
            **{k: MELEE for k in actions.ACTIONS}}
#: Declarations that are attacks on an enemy (a fleeing monster makes none).
HOSTILE = ("cast", "shoot", "melee", *actions.AIMED)


class SixPhase(Ruleset):
    """Seed 002 on the engine's FixedPhases."""

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest)
        self.data: Data = manifest.tables(Data)
        block = self.stat_block
        block.need("kind", "choice", among=("character", "monster"))
        block.need("weapon", "choice", among=self.data.weapons, table="weapons")
        block.need("armour", "choice", among=self.data.armour, table="armour")
        block.need("spells", "choices", among=self.data.spells, table="spells")
        block.need("ranged", "text")
        for key in INT_STATS:
            block.need(key, "int")

    # ------------------------------------------------------------------ stats

    def dist(self, cells: float) -> str:
        """``cells`` in the ruleset's unit ([grid] unit and cell_size): ``"30 ft"``."""
        return self.manifest.units.of(cells)

    def stat(self, token: Token, key: str) -> Any:
        """A stat from the token's block, or its default."""
        return self.stat_block.value(token.stats, key)

    def check_token(self, token: Token) -> None:
        super().check_token(token)
        ranged = str(self.stat(token, "ranged"))
        if ranged and (ranged not in self.data.weapons
                       or self.data.weapons[ranged].kind != "ranged"):
            names = ", ".join(k for k, w in self.data.weapons.items() if w.kind == "ranged")
            from tacmap.api import token_error
            raise token_error(token, [f"ranged weapon {ranged!r} is not one of: {names}"])

    def melee_weapon(self, token: Token) -> Weapon:
        """The melee weapon equipped."""
        return self.data.weapons[str(self.stat(token, "weapon"))]

    def ranged_weapon(self, token: Token) -> Weapon | None:
        """The ranged weapon carried, or None."""
        key = str(self.stat(token, "ranged"))
        w = self.data.weapons.get(key)
        return w if w is not None and w.kind == "ranged" else None

    def notches(self, token: Token) -> dict[str, int]:
        """Notches by item."""
        raw = token.values.get("notches") or {}
        return {str(k): int(v) for k, v in raw.items()} if isinstance(raw, dict) else {}

    def _item_defense(self, token: Token, item: str, base: int) -> int:
        return max(0, base - self.notches(token).get(item, 0) * self.data.notches.defense)

    def melee_defense(self, token: Token) -> int:
        """"the weapons they have equipped plus their Dexterity modifier" (and armour)."""
        w = self.melee_weapon(token)
        armour = str(self.stat(token, "armour"))
        return (self._item_defense(token, w.key, w.defense)
                + self._item_defense(token, armour, self.data.armour[armour].defense)
                + int(self.stat(token, "dex_mod")))

    def ranged_defense(self, token: Token) -> int:
        """"their Dexterity modifier or any other evasion modifier they have"."""
        return int(self.stat(token, "dex_mod")) + int(self.stat(token, "evasion"))

    def wounds(self, token: Token) -> list[tuple[str, str, int]]:
        """(name, location, last round or 0 for lasting) of each Wound."""
        raw = token.values.get("wounds") or ()
        return [(str(w[0]), str(w[1]), int(w[2])) for w in raw]

    def effects(self, token: Token) -> set[str]:
        """What the token's Wounds do."""
        table = self.data.wounds
        return {table[loc].effect for _, loc, _ in self.wounds(token) if loc in table}

    def reach(self, state: Encounter, token: Token) -> float:
        return float(self.melee_weapon(token).reach)

    def gap(self, state: Encounter, a: Token, b: Token) -> float:
        """Cells between two tokens, edge to edge (adjacent: 1)."""
        return grid.edge_distance(state.diagonal, a.cell, a.size, b.cell, b.size)

    def in_melee(self, state: Encounter, a: Token, b: Token) -> bool:
        """Whether ``b`` is within ``a``'s melee reach."""
        return self.gap(state, a, b) <= self.reach(state, a)

    def sees(self, state: Encounter, a: Token, b: Token) -> bool:
        """Line of sight from ``a`` to ``b``."""
        return line_of_sight(self.space.walls(state), a, b)

    def enemies(self, state: Encounter, token: Token) -> list[Token]:
        """Living tokens of other sides."""
        return [t for t in state.tokens.values() if t.side != token.side and t.alive]

    def free(self, state: Encounter, token: Token, cell: Cell, start: Cell | None = None) -> bool:
        """Whether ``token`` could stand on ``cell``: on the map, nobody there, no wall between.

        With ``start``, ``cell`` must be one straight step from there (a shove's push), not
        reached by a way round a wall.
        """
        if not (0 <= cell[0] <= state.map.width - token.size
                and 0 <= cell[1] <= state.map.height - token.size):
            return False
        mine = set(grid.footprint(cell, token.size))
        for t in state.tokens.values():
            if t.id != token.id and mine & set(grid.footprint(t.cell, t.size)):
                return False
        if start is None:
            return not self.plan(state, token, (cell,)).blocked
        there = copy.copy(token)
        there.x, there.y = start
        mp = self.plan(state, there, (cell,))
        return not mp.blocked and mp.cells == (start, cell)

    def dodging(self, state: Encounter, token: Token) -> bool:
        """A dodge lasts "until the start of your next turn": the dodger's next action."""
        r = token.values.get("dodging")
        if not isinstance(r, int):
            return False
        return r == state.round or (r == state.round - 1 and token.values.get("acted")
                                    != state.round)

    def disadvantages(self, state: Encounter, token: Token, against: Token | None,
                      kind: str) -> list[str]:
        """Why a roll of ``token`` (aimed at ``against``) has disadvantage."""
        out = []
        if "disadvantage" in self.effects(token):
            out.append(f"{token.name}'s Wound")
        if against is not None and kind != "check" and self.dodging(state, against) \
                and self.sees(state, against, token):
            out.append(f"{against.name} is dodging")
        return out

    # ------------------------------------------------------------------ the round

    def round_of(self, state: Encounter) -> Round:
        """The round, or RuleError before combat."""
        if not isinstance(state.schedule, Round):
            raise RuleError("combat has not started: press Start combat first")
        return state.schedule

    def phase_text(self, index: int) -> str:
        """``"phase 3, Movement"``."""
        return f"phase {index + 1}, {self.data.round.phases[index]}"

    def immobile(self, token: Token) -> str:
        """Why ``token`` cannot move itself, or ``""``."""
        if token.values.get("grappled_by"):
            return f"{token.name} is held in a grapple"
        cond = next((c for c in token.conditions if c in self.data.actions.immobile), "")
        return f"{token.name} is {cond}" if cond else ""

    def due_reason(self, state: Encounter, rnd: Round, token: Token) -> str:
        """Why ``token`` has nothing to declare in this phase, or ``""`` when it is due."""
        i, r = rnd.index, state.round
        if not token.alive:
            return f"{token.name} is dead"
        if i in (MORALE, SPELLS):
            return f"nobody declares in {self.phase_text(i)}"
        if token.id in rnd.passed or rnd.plan(token.id) is not None:
            return f"{token.name} has declared in {self.phase_text(i)}"
        if i == MOVEMENT:
            if token.values.get("moved") == r:
                return f"{token.name} has moved this round"
            return self.immobile(token)
        if token.values.get("acted") == r:
            return f"{token.name} has acted this round"
        if i == DECLARE_SPELLS and not self.stat(token, "spells"):
            return f"{token.name} knows no spells"
        if i == RANGED and self.ranged_weapon(token) is None:
            return f"{token.name} has no ranged weapon"
        return ""

    def waiting(self, state: Encounter, rnd: Round) -> list[Token]:
        """Who still has to declare (or pass) in this phase, in token order."""
        if rnd.phases.step != "declare" or rnd.index in (MORALE, SPELLS):
            return []  # nobody declares in morale and spells (due_reason's second answer)
        # Asked at every step of a forecast: those who declared or passed are not asked again.
        done = {*rnd.passed, *(p.who for p in rnd.plans)}
        return [t for t in state.tokens.values()
                if t.id not in done and not self.due_reason(state, rnd, t)]

    def set_round(self, ctx: Resolution, new: Round, note: str) -> Round:
        """Replace the round, with ``note`` for the log."""
        ctx.emit(ScheduleChanged(ctx.state.schedule, new, note))
        return new

    def _start(self, ctx: Resolution, cmd: StartCombat) -> None:
        if isinstance(ctx.state.schedule, Round):
            raise RuleError("combat has already started")
        if not [t for t in ctx.state.tokens.values() if t.alive]:
            raise RuleError("there is nobody on the map to fight")
        ctx.emit(RoundChanged(ctx.state.round, 1))
        fp = FixedPhases.start(self.data.round.phases, self.data.round.die)
        self.set_round(ctx, Round(fp), f"Round 1 — {self.phase_text(0)}")
        self.settle(ctx)

    def settle(self, ctx: Resolution, force: bool = False) -> None:
        """Resolve the phase once nobody is left to declare; go on to the next one that has."""
        state = ctx.state
        for _ in range(14):
            rnd = self.round_of(state)
            if self.waiting(state, rnd) and not force:
                return
            force = False
            if rnd.index == MORALE:
                rnd = self._declare_morale(ctx, rnd)
            elif rnd.index == SPELLS:
                rnd = self._declare_spells(ctx, rnd)
            rnd = self.drop_gone(ctx, rnd)
            if rnd.index == DECLARE_SPELLS:
                # Declared now, cast in phase 5: "A spell declared in phase 1 resolves in 5".
                said = tuple(Done(DECLARE_SPELLS, p.who, f"declared: {p.label}", ())
                             for p in rnd.plans)
                rnd = replace(rnd, done=(*rnd.done, *said))
            elif rnd.plans:
                rnd = self.resolve_phase(ctx, rnd)
            self._next_phase(ctx, rnd)

    def drop_gone(self, ctx: Resolution, rnd: Round, removed: Token | None = None) -> Round:
        """Declarations of a token gone from the map or out of the fight are dropped, each
        with its line: nobody rolls or resolves for it, and the round never waits on it."""
        state = ctx.state

        def why(who: str) -> str:
            token = state.tokens.get(who)
            return "no longer on the map" if token is None else \
                "out of the fight" if self.out_of_fight(token) else ""

        gone = {p.who for p in (*rnd.plans, *rnd.spells) if why(p.who)}
        if not gone or rnd.phases.step != "declare":
            return rnd
        notes: dict[tuple[str, str], str] = {}
        for p in (*rnd.plans, *rnd.spells):
            if p.who in gone:
                token = state.tokens.get(p.who) or removed
                name = token.name if token is not None else p.who
                notes[p.who, p.label] = \
                    f"{name}'s declaration is dropped ({p.label}): {name} is {why(p.who)}"
        phases = replace(rnd.phases, entries=tuple(e for e in rnd.phases.entries
                                                    if e.who not in gone))
        new = replace(rnd, phases=phases, plans=tuple(p for p in rnd.plans if p.who not in gone),
                      spells=tuple(p for p in rnd.spells if p.who not in gone))
        return self.set_round(ctx, new, "; ".join(notes.values()))

    def left(self, ctx: Resolution, token: Token) -> None:
        """A removed token's declarations are dropped with the removal (undo brings both back)."""
        if isinstance(ctx.state.schedule, Round):
            self.drop_gone(ctx, ctx.state.schedule, token)

    def _declare_morale(self, ctx: Resolution, rnd: Round) -> Round:
        m = self.data.morale
        for t in ctx.state.tokens.values():
            if (t.alive and self.stat(t, "kind") == "monster" and m.condition not in t.conditions
                    and (t.hp <= t.max_hp * m.shaken_at or self.wounds(t))):
                rnd = rnd.declared(Plan(t.id, "morale", "morale check"))
        return rnd

    def _declare_spells(self, ctx: Resolution, rnd: Round) -> Round:
        for p in rnd.spells:
            rnd = rnd.declared(p)
        return replace(rnd, spells=())

    def _next_phase(self, ctx: Resolution, rnd: Round) -> None:
        fp = rnd.phases.next_phase(force=True)
        if fp.round == rnd.phases.round:
            self.set_round(ctx, replace(rnd, phases=fp, plans=(), passed=()),
                           f"Round {fp.round} — {self.phase_text(fp.index)}")
            return
        state = ctx.state
        for t in state.tokens.values():
            lasting = [w for w in self.wounds(t) if not 0 < w[2] <= state.round]
            if len(lasting) != len(self.wounds(t)):
                ctx.emit(ValueChanged(t.id, "wounds", t.values.get("wounds"),
                                      tuple(tuple(w) for w in lasting) or None,
                                      "a critical Wound heals"))
        ctx.emit(RoundChanged(state.round, state.round + 1))
        self.set_round(ctx, Round(fp, spells=rnd.spells, last=rnd.done),
                       f"Round {fp.round} — {self.phase_text(fp.index)}")

    def resolve_phase(self, ctx: Resolution, rnd: Round) -> Round:
        """Everyone who declared rolls a d20; resolve from the highest roll down."""
        state = ctx.state
        fp, rolls = rnd.phases.roll(ctx.dice)
        for who, why, roll in rolls:
            ctx.emit(DiceRolled(who, why, roll))
        order = ", ".join(f"{state.token(e.who).name} {e.roll}" for e in fp.entries)
        rnd = self.set_round(ctx, replace(rnd, phases=fp),
                             f"{self.phase_text(fp.index)}: d20 order {order}")
        rolled_with = {p.who: self._quiet_disadvantage(state, p) for p in rnd.plans}
        while (cur := rnd.phases.current) is not None:
            plan = rnd.plan(cur)
            assert plan is not None
            entry = rnd.phases.entry(cur)
            name = state.token(cur).name
            try:
                self.validate(state, plan, resolving=True)
            except RuleError as err:
                fp = rnd.phases.strike(str(err))
                done = Done(fp.index, cur, plan.label, entry.faces, str(err))
                # Regdar's sword: "his attack now misses despite rolling successfully".
                how = ("misses whatever its roll, struck out" if plan.key in attacks.KIND
                       else "is struck out")
                rnd = self.set_round(ctx, replace(rnd, phases=fp, done=(*rnd.done, done)),
                                     f"✗ {name}: {plan.label} ({entry.roll}) {how}: {err}")
                continue
            face = entry.faces[0]
            dis = self.plan_disadvantage(state, plan)
            if dis:
                # Disadvantage an earlier action in this phase conferred after the d20s were
                # rolled: "rolls a second d20 ... and uses that result". One the roll already
                # had: the lower of the two.
                conferred = not set(dis) & rolled_with[cur]
                fp, more = rnd.phases.reroll(cur, ctx.dice)
                for who, why, roll in more:
                    how = (f"used: an earlier action conferred disadvantage ({', '.join(dis)})"
                           if conferred else f"disadvantage: {', '.join(dis)}")
                    ctx.emit(DiceRolled(who, f"{why}, {how}", roll))
                faces = fp.entry(cur).faces
                face = faces[-1] if conferred else min(faces)
                rnd = replace(rnd, phases=fp)
            self.perform(ctx, plan, face)
            fp = rnd.phases.resolve_next()
            faces = fp.entry(cur).faces
            done = Done(fp.index, cur, plan.label, faces, used=face if len(faces) > 1 else 0)
            rnd = self.set_round(ctx, replace(rnd, phases=fp, done=(*rnd.done, done)),
                                 f"✓ {name}: {plan.label} ({entry.roll}) resolved")
        return rnd

    def _quiet_disadvantage(self, state: Encounter, plan: Plan) -> set[str]:
        """Why ``plan``'s roll has disadvantage as the d20s are rolled (none if it cannot go)."""
        try:
            return set(self.plan_disadvantage(state, plan))
        except RuleError:
            return set()

    def plan_disadvantage(self, state: Encounter, plan: Plan) -> tuple[str, ...]:
        """Why ``plan``'s roll has disadvantage now (empty: none)."""
        if plan.key in attacks.KIND:
            return attacks.spec(self, state, plan).disadvantage
        if plan.key in ("move", "dodge"):
            return ()
        token = state.token(plan.who)
        target = state.tokens.get(plan.target)
        return tuple(self.disadvantages(state, token, target, "check"))

    # ------------------------------------------------------------------ declaring

    def target_of(self, state: Encounter, plan: Plan) -> Token:
        """The living enemy ``plan`` is aimed at; RuleError otherwise."""
        if not plan.target:
            raise RuleError(f"{plan.label} needs a target")
        target = state.token(plan.target)
        token = state.token(plan.who)
        if target.id == token.id:
            raise RuleError(f"{token.name} cannot {plan.key} itself")
        if target.side == token.side:
            raise RuleError(f"{target.name} is on {token.name}'s side")
        if not target.alive:
            raise RuleError(f"{target.name} is dead")
        return target

    def validate(self, state: Encounter, plan: Plan, resolving: bool = False) -> None:
        """RuleError when ``plan`` cannot be carried out (now, or at its turn to resolve)."""
        token = state.token(plan.who)
        if not token.alive:
            raise RuleError(f"{token.name} is dead")
        if plan.key == "morale":
            return
        fleeing = self.data.morale.condition
        if plan.key in HOSTILE and fleeing in token.conditions:
            raise RuleError(f"{token.name} is {fleeing} and makes no attacks")
        if plan.key == "move":
            self._check_move(state, token, plan, resolving)
        elif plan.key in attacks.KIND:
            if plan.key == "melee" and "prone" in token.conditions \
                    and "stand_up" not in self.data.actions.bonus:
                raise RuleError(f"{token.name} is prone: stand up first")
            attacks.spec(self, state, plan)
        elif plan.key in actions.ACTIONS:
            actions.ACTIONS[plan.key][3](self, state, plan)
        else:
            raise RuleError(f"Six Phases has no action {plan.key!r}")

    def declare(self, ctx: Resolution, plan: Plan) -> None:
        """``plan`` is declared in this phase; once nobody is left, the phase resolves."""
        state = ctx.state
        rnd = self.round_of(state)
        token = state.token(plan.who)
        want = PHASE_OF[plan.key]
        if rnd.plan(token.id) is not None:
            raise RuleError(f"{token.name} has already declared "
                            f"{rnd.plan(token.id).label!r}; "  # type: ignore[union-attr]
                            "it is not possible to redeclare actions")
        if want != rnd.index:
            raise RuleError(f"{plan.label} is declared in {self.phase_text(want)}; "
                            f"this is {self.phase_text(rnd.index)}")
        why = self.due_reason(state, rnd, token)
        if why:
            raise RuleError(why)
        self.validate(state, plan)
        key = "moved" if plan.key == "move" else "acted"
        # The log's next line tells the declaration; this one tells what is now used up.
        what = "move" if key == "moved" else "action"
        ctx.emit(ValueChanged(token.id, key, token.values.get(key), state.round,
                              f"its {what} for round {state.round} is declared"))
        if plan.key == "cast":
            rnd = replace(rnd, phases=rnd.phases.declare(plan.who, plan.label),
                          plans=(*rnd.plans, plan), spells=(*rnd.spells, plan))
        else:
            rnd = rnd.declared(plan)
        self.set_round(ctx, rnd, f"{token.name} declares: {plan.label}")
        self.settle(ctx)

    def plan_for(self, state: Encounter, cmd: Command) -> Plan:
        """The declaration a command stands for."""
        if isinstance(cmd, Move):
            token = state.token(cmd.actor)
            x, y = cmd.path[-1]
            return Plan(cmd.actor, "move", f"move to ({x},{y})", path=tuple(cmd.path))
        if isinstance(cmd, Attack):
            token = state.token(cmd.actor)
            rnd = self.round_of(state)
            key = "shoot" if rnd.index == RANGED else "melee"
            cmd = Act(cmd.actor, key, cmd.target)
        assert isinstance(cmd, Act)
        token = state.token(cmd.actor)
        target = state.tokens.get(cmd.target)
        tname = target.name if target else cmd.target
        if cmd.action in attacks.KIND:
            what = {"melee": "attack", "shoot": "shoot", "cast": "cast"}[cmd.action]
            bits = [b for b in attacks.split_detail(cmd.detail, 3) if b]
            if cmd.action == "cast" and bits and bits[0] in self.data.spells:
                # "cast Firebolt at Gruk", not "cast Gruk (Firebolt …)".
                what = f"cast {self.data.spells[bits.pop(0)].name} at"
            more = f" ({', '.join(bits)})" if bits else ""
            return Plan(token.id, cmd.action, f"{what} {tname}{more}", cmd.target, cmd.detail)
        if cmd.action in actions.ACTIONS:
            label = actions.ACTIONS[cmd.action][0].lower()
            if cmd.target:
                label += f" {tname}"
            if cmd.detail:
                label += f" {cmd.detail}"
            return Plan(token.id, cmd.action, label, cmd.target, cmd.detail)
        raise RuleError(f"Six Phases has no action {cmd.action!r} (actions: melee, shoot, "
                        f"cast, {', '.join(actions.ACTIONS)}, and move, end_turn)")

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        if isinstance(cmd, StartCombat):
            self._start(ctx, cmd)
        elif isinstance(cmd, EndTurn):
            self._pass(ctx, cmd)
        elif isinstance(cmd, Move | Attack | Act):
            self.declare(ctx, self.plan_for(ctx.state, cmd))
        else:
            super().resolve(ctx, cmd)

    def _pass(self, ctx: Resolution, cmd: EndTurn) -> None:
        state = ctx.state
        rnd = self.round_of(state)
        waiting = self.waiting(state, rnd)
        if not cmd.actor:
            if not waiting:
                self.settle(ctx, force=True)
                return
            token = waiting[0]
        else:
            token = state.token(cmd.actor)
            why = self.due_reason(state, rnd, token)
            if why:
                raise RuleError(why)
        self.set_round(ctx, replace(rnd, passed=(*rnd.passed, token.id)),
                       f"{token.name} declares nothing in {self.phase_text(rnd.index)}")
        self.settle(ctx)

    # ------------------------------------------------------------------ resolving

    def perform(self, ctx: Resolution, plan: Plan, face: int) -> None:
        """Carry out ``plan`` with the d20 ``face``."""
        state = ctx.state
        token = state.token(plan.who)
        if plan.key == "morale":
            need = int(self.stat(token, "cou"))
            if face >= need:
                ctx.emit(Said(f"{token.name} holds its nerve ({face} against Courage {need})",
                              token.id))
            else:
                ctx.emit(Said(f"{token.name} loses its nerve ({face} against Courage {need})",
                              token.id))
                self.condition(ctx, token, self.data.morale.condition, True)
        elif plan.key == "move":
            self._move(ctx, token, plan)
        elif plan.key in attacks.KIND:
            if plan.key == "melee" and "prone" in token.conditions:
                ctx.emit(Said(f"{token.name} stands up (bonus action) before the attack",
                              token.id))
                actions.do_stand_up(self, ctx, plan, face)
                if not token.alive:
                    return
            attacks.perform(self, ctx, plan, attacks.spec(self, state, plan), face)
        else:
            actions.ACTIONS[plan.key][4](self, ctx, plan, face)

    def dex_check(self, ctx: Resolution, token: Token, enemy: Token | None, why: str) -> int:
        """A Dexterity check (plus ``enemy``'s Defense); returns the margin (< 0: failed)."""
        need = int(self.stat(token, "dex")) + (self.melee_defense(enemy) if enemy else 0)
        dis = self.disadvantages(ctx.state, token, None, "check")
        if not dis:
            roll = ctx.roll(token.id, 1, self.data.round.die, f"Dexterity check, {why} "
                                                              f"(needs {need})")
            return roll.total - need
        # A Wound's "disadvantage on checks": the lower of two d20s, as for an attack.
        roll = ctx.roll(token.id, 2, self.data.round.die,
                        f"Dexterity check, {why} (needs {need}; disadvantage: "
                        f"{', '.join(dis)}, the lower counts)")
        return min(roll.faces) - need

    def opportunity(self, ctx: Resolution, token: Token, what: str) -> None:
        """Every enemy in melee range gets an opportunity attack, avoided by Dexterity."""
        for enemy in self.enemies(ctx.state, token):
            if token.alive and self.in_melee(ctx.state, enemy, token):
                self._avoid(ctx, token, enemy, f"{what} next to {enemy.name}")

    def _avoid(self, ctx: Resolution, token: Token, enemy: Token, why: str) -> None:
        fleeing = self.data.morale.condition
        if fleeing in enemy.conditions:
            # A fleeing monster "makes no attacks" (README): an opportunity attack is one.
            ctx.emit(Said(f"{enemy.name} is {fleeing} and makes no opportunity attack", token.id))
            return
        margin = self.dex_check(ctx, token, enemy, why)
        if margin >= 0:
            ctx.emit(Said(f"{token.name} avoids {enemy.name}'s opportunity attack", token.id))
            return
        ctx.emit(Said(f"{enemy.name}'s opportunity attack hits {token.name} for the margin "
                      f"of failure, {-margin}", token.id))
        self.hurt(ctx, token, -margin, self.data.locations.default, f"{enemy.name}'s attack")

    def move_cells(self, token: Token) -> float:
        """Cells ``token`` may move this round (half with a "slow" Wound)."""
        cells = float(self.data.movement.cells)
        return cells / 2 if "slow" in self.effects(token) else cells

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        return self.move_cells(token)

    def move_refusal(self, state: Encounter, token: Token, plan: MovePlan) -> str | None:
        try:
            rnd = self.round_of(state)
        except RuleError as err:
            return str(err)
        if rnd.index != MOVEMENT:
            return f"moves are declared in {self.phase_text(MOVEMENT)}; this is " \
                   f"{self.phase_text(rnd.index)}"
        why = self.due_reason(state, rnd, token)
        if why:
            return why
        if plan.occupants:
            return "someone is standing there"
        return super().move_refusal(state, token, plan)

    def move_uses(self, state: Encounter, token: Token, plan: MovePlan) -> str:
        if not isinstance(state.schedule, Round):
            return ""
        # "Each combatant can move once and perform one action per round."
        action = "its action is spent" if token.values.get("acted") == state.round else \
            "its one action is still to come"
        return (f"declares the round's one move (it happens in d20 order in "
                f"{self.phase_text(MOVEMENT)}); {action}")

    def _check_move(self, state: Encounter, token: Token, plan: Plan, resolving: bool) -> None:
        why = self.immobile(token)
        if why:
            raise RuleError(why)
        mp = self.plan(state, token, plan.path)
        if mp.blocked:
            raise RuleError(mp.blocked)
        if mp.occupants:
            who = state.token(mp.occupants[0]).name
            raise RuleError(f"{who} already stands at ({plan.path[-1][0]},{plan.path[-1][1]})")
        if mp.cost > self.move_cells(token) + 1e-9:
            raise RuleError(f"{token.name} can move {self.dist(self.move_cells(token))}, "
                            f"this path is {self.dist(mp.cost)}")

    def _move(self, ctx: Resolution, token: Token, plan: Plan) -> None:
        state = ctx.state
        dest = plan.path[-1]
        if token.values.get("moved") != state.round:
            # An earlier contest for this space was lost: the move is not made.
            ctx.emit(Said(f"{token.name}'s move is lost: it was not first to "
                          f"({dest[0]},{dest[1]})", token.id))
            return
        if not self._first_to(ctx, token, dest):
            return
        before = min((self.gap(state, token, e) for e in self.enemies(state, token)),
                     default=0.0)
        mp = self.plan(state, token, plan.path)
        start = token.cell
        ctx.emit(TokenMoved(token.id, mp.cells, mp.cost))
        held = state.tokens.get(str(token.values.get("grappling") or ""))
        for enemy_id, _step in mp.leaves:
            enemy = state.token(enemy_id)
            if token.alive and enemy.alive and enemy is not held:
                self._avoid(ctx, token, enemy, f"leaving the melee of {enemy.name}")
        if held is not None and token.alive:
            to = (held.x + token.x - start[0], held.y + token.y - start[1])
            if self.free(state, held, to):
                ctx.emit(Said(f"{token.name} drags {held.name} along", token.id))
                ctx.emit(TokenMoved(held.id, (held.cell, to), 0.0))
            else:
                ctx.emit(Said(f"{held.name} cannot be dragged along", token.id))
                actions.release(self, ctx, token)
        after = min((self.gap(state, token, e) for e in self.enemies(state, token)),
                    default=0.0)
        if after < before:
            ctx.emit(ValueChanged(token.id, "advanced", token.values.get("advanced"),
                                  state.round, "moved towards the enemy"))

    def _first_to(self, ctx: Resolution, token: Token, dest: Cell) -> bool:
        """"If there is conflict of who will reach a space first, the player needs to succeed
        on a Dexterity check to be first": whether ``token`` reaches ``dest`` first.

        Every mover of the players' side bound there rolls; one who succeeds is first, one
        who fails is not. Otherwise a mover of another side is first (it needs no check),
        earliest in the d20 order; when every mover is a player and all fail, nobody is.
        Each loser's move is marked lost (``moved`` cleared) so it is not made later.
        """
        state = ctx.state
        rnd = self.round_of(state)
        bound = {p.who for p in rnd.plans if p.key == "move" and p.path[-1] == dest}
        rivals = [state.token(e.who) for e in rnd.phases.entries
                  if e.who in bound and e.who != token.id and not e.resolved
                  and state.token(e.who).values.get("moved") == state.round]
        if not rivals:
            return True
        at = f"({dest[0]},{dest[1]})"
        movers = [token, *rivals]
        party = party_side(state)
        made: list[Token] = []
        failed: list[Token] = []
        for t in movers:
            if t.side == party:
                ok = self.dex_check(ctx, t, None, f"to reach {at} first") >= 0
                (made if ok else failed).append(t)
        others = [t for t in movers if t.side != party]
        first = made[0] if made else others[0] if others else None
        if first is None:
            every = "both" if len(failed) == 2 else "all"
            ctx.emit(Said(f"{_names(failed)} {every} fail the Dexterity check: nobody reaches "
                          f"{at} first, and nobody moves there", token.id))
        elif made:
            ctx.emit(Said(f"{first.name} succeeds on the Dexterity check and reaches {at} "
                          "first", first.id))
        elif failed:
            ctx.emit(Said(f"{_names(failed)} {'fails' if len(failed) == 1 else 'fail'} the "
                          f"Dexterity check: {first.name} reaches {at} first", first.id))
        else:
            ctx.emit(Said(f"{first.name} reaches {at} first (no player among the movers: the "
                          "d20 order decides)", first.id))
        for t in movers:
            if t is not first:
                ctx.emit(ValueChanged(t.id, "moved", t.values.get("moved"), None,
                                      f"not first to {at}"))
        return first is token

    # ------------------------------------------------------------------ harm

    def condition(self, ctx: Resolution, token: Token, cond: str, on: bool) -> None:
        """Set or clear a condition."""
        if (cond in token.conditions) != on:
            ctx.emit(condition_change(token, cond, on))

    def add_notch(self, ctx: Resolution, token: Token, item: str, why: str) -> None:
        """``item`` takes one Notch."""
        old = token.values.get("notches")
        new = dict(self.notches(token))
        new[item] = new.get(item, 0) + 1
        ctx.emit(ValueChanged(token.id, "notches", old, new, f"{item} takes a Notch ({why})"))

    def hp_set(self, ctx: Resolution, token: Token) -> None:
        """GM damage that leaves 0 HP or less gives a Wound where other damage lands, as a
        blow does (damage of the maximum HP or more: instant death)."""
        before = ctx.hp_before(token)
        if token.alive and token.hp <= 0 and token.hp < before:
            self.wounded(ctx, token, before - token.hp, self.data.locations.default)

    def hurt(self, ctx: Resolution, token: Token, amount: int, location: str, why: str) -> None:
        """Damage; reaching 0 HP gives a Wound (damage of max HP or more: instant death)."""
        if not token.alive:
            return
        new = max(0, token.hp - amount)
        ctx.emit(HpChanged(token.id, token.hp, new, why))
        if new <= 0:
            self.wounded(ctx, token, amount, location)

    def wounded(self, ctx: Resolution, token: Token, amount: int, location: str) -> None:
        """``amount`` damage just took ``token`` to 0 HP: a Wound, or death from a blow of
        its whole maximum."""
        if amount >= token.max_hp:
            ctx.emit(Said(f"{token.name} would gain a Wound from {amount} damage, its maximum "
                          "HP: it dies instantly", token.id))
            self.condition(ctx, token, "dead", True)
            return
        self.wound(ctx, token, location, 0, "reduced to 0 HP")

    def wound(self, ctx: Resolution, token: Token, location: str, until: int, why: str) -> None:
        """``token`` gains a Wound at ``location`` (lasting to the end of round ``until``,
        or for good when 0); too many Wounds kill."""
        row = self.data.wounds[location]
        old = token.values.get("wounds")
        ctx.emit(ValueChanged(token.id, "wounds", old,
                              (*(old or ()), (row.name, location, until)),
                              f"Wound: {row.name} ({location}, {why})"))
        n = len(self.wounds(token))
        if self.stat(token, "kind") == "monster":
            limit = int(self.stat(token, "hd")) // self.data.death.monster_wound_divisor
            if n > limit:
                ctx.emit(Said(f"{token.name} has {n} Wounds, more than half its Hit Dice "
                              f"({limit}): it dies", token.id))
                self.condition(ctx, token, "dead", True)
            return
        slots = int(self.stat(token, "slots"))
        full = n + int(self.stat(token, "exhaustion"))
        if full >= slots:
            ctx.emit(Said(f"Wounds and Exhaustion fill all {slots} of {token.name}'s "
                          "inventory slots: it dies", token.id))
            self.condition(ctx, token, "dead", True)

    # ------------------------------------------------------------------ previews and panels

    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview:
        if isinstance(cmd, Act | Attack) and not isinstance(cmd, Move):
            try:
                plan = self.plan_for(state, cmd)
            except RuleError as err:
                return Preview(False, str(err))
            if plan.key in actions.CONTESTS:
                return self._contest_preview(state, cmd, plan, version)
            if plan.key in attacks.KIND:
                base = super().preview(state, cmd, version)
                if not base.legal:
                    return base
                s = attacks.spec(self, state, plan)
                notes = [*s.notes, f"needs {s.target_number} on the d20 (a natural 20 always "
                                   "hits, a natural 1 always misses)"]
                if s.disadvantage:
                    notes.append(f"disadvantage ({', '.join(s.disadvantage)}): the lower of "
                                 "two d20s")
                chances = attacks.attack_odds(self, s, self.target_of(state, plan))
                return Preview(True, odds=chances, notes=tuple(notes))
        return super().preview(state, cmd, version)

    def _contest_preview(self, state: Encounter, cmd: Command, plan: Plan,
                         version: object) -> Preview:
        """Shove, grapple, feint: the chance that the d20 reaches stat + Defense."""
        base = super().preview(state, cmd, version)
        if not base.legal:
            return base
        stat, word = actions.CONTESTS[plan.key]
        token, target = state.token(plan.who), self.target_of(state, plan)
        need = actions.contest(self, state, plan, stat)
        die = self.data.round.die
        dis = self.plan_disadvantage(state, plan)
        p = sum(1 for f in range(1, die + 1) if f >= need) / die
        p = p * p if dis else p
        notes = [f"{word} {self.stat(token, stat)} + {target.name}'s melee Defense "
                 f"{self.melee_defense(target)}: needs {need} on the d20"]
        if plan.key == "shove" and (attacks.split_detail(plan.detail, 1)[0] or "away") == "away":
            feet = self.data.grid.cell_size
            notes.append(f"away: the margin in feet, in whole {feet:g}-foot squares (a margin "
                         f"under {feet:g} moves {target.name} nowhere)")
        if plan.key in ("shove", "grapple"):
            notes.append(f"failing: {token.name} is hit for "
                         f"{self.data.attack.self_hit_base} minus the d20, if above 0")
        if dis:
            notes.append(f"disadvantage ({', '.join(dis)}): the lower of two d20s")
        return Preview(True, odds=Odds(p), notes=tuple(notes))

    def out_of_fight(self, token: Token) -> bool:
        """Dead only: at 0 HP a character takes a Wound and fights on; it is out when its
        Wounds fill its slots, a monster's exceed half its Hit Dice, or a blow of its
        maximum HP kills it outright, and each marks it ``dead``."""
        return not token.alive


def _names(tokens: list[Token]) -> str:
    """``"Ana"``, ``"Ana and Bo"``, ``"Ana, Bo and Cal"``."""
    names = [t.name for t in tokens]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def create(manifest: Manifest) -> Ruleset:
    """The Six Phases ruleset."""
    return SixPhase(manifest)
