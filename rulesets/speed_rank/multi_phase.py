"""Speed Rank's actions over several phases: sprints and spells, sustained or cancelled.

README.md, "Taking multiple phases". A sprint or a spell is a ``Plan`` on the
round's timeline; one that crosses into the next round must be sustained (its
cost paid again) or cancelled in phase S, and a spell takes effect at the start
of its caster's side's turn in its last phase. These actions ask the ruleset
(``Rules``: rules.py's ``SpeedRank``) for the round, legality and damage, so
this module never imports rules.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from msgspec import UNSET, UnsetType
from msgspec.structs import replace

from tacmap.api import (
    Act,
    Encounter,
    Odds,
    Placed,
    Preview,
    Resolution,
    RuleError,
    Said,
    Space,
    Template,
    TimedAction,
    Token,
    ValueChanged,
    describe,
    grid,
    odds,
    placement,
    removal,
    tokens_inside,
)

from .data import SAVE_NAMES, ActionCosts, Cost, Data, SaveKind, Spell, Weapon
from .round import PHASE_FAST, PHASE_S, AttackMark, Plan, Round


class Rules(Protocol):
    """What sprints and spells ask of the ruleset."""

    data: Data
    costs: ActionCosts
    space: Space

    def dist(self, cells: float) -> str: ...
    def round_of(self, state: Encounter) -> Round: ...
    def set_round(self, ctx: Resolution, new: Round, note: str) -> Round: ...
    def phase_text(self, phase: str | int) -> str: ...
    def shift(self, rnd: Round, side: str) -> int: ...
    def ready(self, state: Encounter, token: Token, what: str, *, weapon: Weapon | None = None,
              spell: bool = False, cost: Sequence[Cost] = (), moving: bool = False,
              decision: bool = False) -> Round: ...
    def place(self, ctx: Resolution, token: Token, label: str, span: int, note: str,
              cost: Sequence[Cost], *, weapon: Weapon | None = None, spell: bool = False,
              plan: Plan | None = None, attack: AttackMark | None = None,
              spans: bool = False) -> Round: ...
    def charge(self, rnd: Round, token: Token,
               cost: Sequence[Cost]) -> tuple[tuple[str, int, int], ...]: ...
    def final_piece(self, rnd: Round, a: TimedAction) -> bool: ...
    def running(self, rnd: Round, plan: Plan) -> bool: ...
    def drop_plan(self, ctx: Resolution, actor: str, label: str, why: str) -> None: ...
    def known_spells(self, token: Token) -> list[str]: ...
    def immobile(self, token: Token) -> str: ...
    def alive(self, state: Encounter) -> list[Token]: ...
    def gap(self, state: Encounter, a: Token, b: Token) -> float: ...
    def aim_problem(self, state: Encounter, token: Token, target: Token, cells: float,
                    what: str, ranged: bool = True, verb: str = "") -> str: ...
    def save(self, ctx: Resolution, token: Token, kind: SaveKind,
             against: Token | None = None) -> str: ...
    def hurt(self, ctx: Resolution, target: Token, amount: int, why: str) -> None: ...
    def condition(self, ctx: Resolution, token: Token, cond: str, on: bool = True) -> None: ...
    def save_bonus(self, state: Encounter, token: Token, against: Token | None = None) -> int: ...
    def degree(self, total: int, target: int) -> str: ...


def spans(rnd: Round, token: Token, label: str) -> str:
    """Where ``token``'s ``label`` runs: "phases S to 4", ", then phase S of round 3"."""
    pieces = [a for a in rnd.timeline.actions if a.actor == token.id and a.label == label]
    out = []
    for a in pieces:
        where = f"phases {a.start} to {a.end}" if a.start != a.end else f"phase {a.start}"
        out.append(where if a.round == rnd.timeline.round else f"{where} of round {a.round}")
    return ", then ".join(out)


def sprint(rules: Rules, ctx: Resolution, token: Token, cmd: Act) -> None:
    """The sprint action: runs over [actions] sprint_phases phases from this one."""
    rules.ready(ctx.state, token, "sprint", cost=rules.costs.sprint)
    stop = rules.immobile(token)
    if stop:
        raise RuleError(f"{token.name} is {stop} and cannot sprint")
    acts = rules.data.actions
    rules.place(ctx, token, "sprint", acts.sprint_phases,
                f"{token.name} sprints, {rules.dist(acts.sprint_cells_per_phase)} a phase",
                rules.costs.sprint, spans=True,
                plan=Plan(token.id, "sprint", "sprint"))


def spell_span(rules: Rules, rnd: Round, token: Token, spell: Spell) -> int:
    """Phases from now until ``spell`` takes effect, both ends included.

    Spell Speed is added to the Fast phase (moved by the side's 1 or 10), or to the
    phase the casting starts in when that is later; a delay adds phases after that.
    """
    floor = PHASE_FAST + rules.shift(rnd, token.side)
    done = max(rnd.phase_i, floor) + spell.speed + spell.delay
    return done - rnd.phase_i + 1


def cast(rules: Rules, ctx: Resolution, token: Token, cmd: Act) -> None:
    """The cast action: a memorized spell at a token or an area, landing as ``spell_span`` says.

    A spell with a template is aimed at an area (``cmd.area``), which stays on the
    map, labelled with the spell, until the spell lands or ends.
    """
    state = ctx.state
    key = cmd.detail.strip()
    if key not in rules.data.spells:
        known = ", ".join(sorted(set(rules.known_spells(token)))) or "none"
        raise RuleError(f"{token.name} has no spell {key!r} memorized (left: {known})")
    spell = rules.data.spells[key]
    if key not in rules.known_spells(token):
        raise RuleError(f"{token.name} has no {spell.name} memorized")
    rules.ready(state, token, f"cast {spell.name}", spell=True, cost=rules.costs.cast)
    area: Template | None = None
    if spell.template:
        area = aimed_area(rules, state, token, spell, cmd.area)
        at = f"({area.origin[0]},{area.origin[1]})"
    else:
        if not cmd.target:
            raise RuleError(f"{spell.name} needs a target")
        target = state.token(cmd.target)
        in_range(rules, state, token, target, spell)
        at = target.name
    rnd = rules.round_of(state)
    span = spell_span(rules, rnd, token, spell)
    placed = None
    if area is not None:
        placed = placement(state, area, spell.name, walls=rules.space.walls(state))
    plan = Plan(token.id, spell.name, "spell", key, cmd.target if area is None else "",
                placed.placed.id if placed is not None else UNSET)
    rules.place(ctx, token, spell.name, span,
                f"{token.name} begins casting {spell.name} at {at}, to take effect "
                "at the end", rules.costs.cast, spell=True, spans=True, plan=plan)
    if placed is not None:
        ctx.emit(placed)
    cast = (*tuple(token.values.get("spells_cast") or ()), key)
    ctx.emit(ValueChanged(token.id, "spells_cast", token.values.get("spells_cast"), cast,
                          f"{spell.name} used from memory"))
    if span == 1:
        # Cast and done in this very phase: its turn has already begun, so it lands now.
        spell_effect(rules, ctx, token, rules.round_of(ctx.state).plans[-1])


def aimed_area(rules: Rules, state: Encounter, caster: Token, spell: Spell,
               area: Template | UnsetType) -> Template:
    """``area`` if it is ``spell``'s template, seen and in range from ``caster``; else RuleError."""
    size = int(spell.radius)
    if not isinstance(area, Template):
        raise RuleError(f"{spell.name} is aimed at a place: give it its area "
                        f"(a {spell.template} of {rules.dist(size)})")
    if (area.shape, area.size) != (spell.template, size):
        raise RuleError(f"{spell.name}'s area is a {spell.template} of {rules.dist(size)}, "
                        f"not a {area.shape} of {rules.dist(area.size)}")
    area_in_range(rules, state, caster, area, spell)
    return area


def area_in_range(rules: Rules, state: Encounter, caster: Token, area: Template,
                  spell: Spell) -> None:
    """RuleError unless ``caster`` can see the centre of ``area`` within the spell's range."""
    x, y = area.origin
    if not (0 <= x < state.map.width and 0 <= y < state.map.height):
        raise RuleError(f"({x},{y}) is off the map")
    gap = grid.edge_distance(state.diagonal, caster.cell, caster.size, area.origin, 1)
    where = f"({x},{y})"
    if gap > spell.range:
        raise RuleError(f"{where} is {rules.dist(gap)} away; {spell.name} reaches "
                        f"{rules.dist(spell.range)}")
    walls = rules.space.walls(state)
    corners = grid.footprint(caster.cell, caster.size)
    if all(walls.sight_blocked(c, area.origin) for c in corners):
        raise RuleError(f"{caster.name} cannot see {where}")


def in_range(rules: Rules, state: Encounter, caster: Token, target: Token,
             spell: Spell) -> None:
    """RuleError unless ``caster`` can see ``target`` within the spell's range."""
    problem = rules.aim_problem(state, caster, target, spell.range, spell.name,
                                verb="reaches")
    if problem:
        raise RuleError(problem)


def own_plan(rules: Rules, rnd: Round, token: Token, detail: str,
             among: Iterable[tuple[str, str]]) -> tuple[str, str]:
    mine = [p for p in among if p[0] == token.id]
    if detail:
        mine = [p for p in mine if p[1] == detail]
    if len(mine) == 1:
        return mine[0]
    if not mine:
        what = f" called {detail!r}" if detail else ""
        raise RuleError(f"{token.name} has no such action{what} to sustain or cancel")
    raise RuleError(f"{token.name} has {len(mine)} of those; name one in detail: "
                    f"{', '.join(p[1] for p in mine)}")


def sustain(rules: Rules, ctx: Resolution, token: Token, cmd: Act) -> None:
    """In phase S, keep an action carried into this round, paying its cost again."""
    rnd = rules.ready(ctx.state, token, "sustain", decision=True)
    if not rnd.pending or all(p[0] != token.id for p in rnd.pending):
        raise RuleError(f"{token.name} has no action carried into this round to sustain")
    if rnd.phase_i != PHASE_S:
        raise RuleError("a carried action is sustained or cancelled in the Starting Phase")
    actor, label = own_plan(rules, rnd, token, cmd.detail, rnd.pending)
    plan = rnd.plan(actor, label)
    kind = plan.kind if plan is not None else "sprint"
    costs = rules.data.action_costs
    cost = costs.cast if kind == "spell" else costs.sprint
    new = replace(rnd, pending=tuple(p for p in rnd.pending if p != (actor, label)),
                  spent=rules.charge(rnd, token, cost))
    extra = "; no further memorized spell is used" if kind == "spell" else ""
    rules.set_round(ctx, new, f"{rules.phase_text(rnd.phase)}: {token.name} sustains {label} "
                    f"({spans(new, token, label)}), spending "
                    f"{' and '.join(cost) + ' actions' if len(cost) > 1 else f'a {cost[0]} action'}"
                    f"{extra}")


def cancel(rules: Rules, ctx: Resolution, token: Token, cmd: Act) -> None:
    """Stop one of the token's own running sprints or spells."""
    rnd = rules.ready(ctx.state, token, "cancel", decision=True)
    mine = [(p.actor, p.label) for p in rnd.plans if rules.running(rnd, p)]
    actor, label = own_plan(rules, rnd, token, cmd.detail, mine)
    rules.drop_plan(ctx, actor, label, f"{token.name} cancels it")


def due_spells(rules: Rules, ctx: Resolution) -> None:
    """The spells of the side whose turn begins that end in this phase take effect."""
    state = ctx.state
    rnd = rules.round_of(state)
    if not rnd.plans:
        return  # no spell under way: most turns of a fight
    side = rnd.current_side
    for a in rnd.timeline.ending_at(rnd.phase):
        plan = rnd.plan(a.actor, a.label)
        caster = state.tokens.get(a.actor)
        if plan is None or plan.kind != "spell" or caster is None or caster.side != side:
            continue
        if rules.final_piece(rnd, a):
            spell_effect(rules, ctx, caster, plan)


def spell_effect(rules: Rules, ctx: Resolution, caster: Token, plan: Plan) -> None:
    """Damage, saves and conditions of ``plan``'s spell, on its target or in its area.

    A spell aimed at an area hits every living token inside its template now, then
    the template leaves the map.
    """
    state = ctx.state
    spell = rules.data.spells[plan.spell]
    ctx.emit(Said(f"{caster.name}'s {spell.name} takes effect", caster.id))
    if isinstance(plan.area, str):
        placed = plan_area(state, plan)
        if placed is None:
            ctx.emit(Said(f"{spell.name} has no area left on the map and is lost", caster.id))
            return
        try:
            area_in_range(rules, state, caster, placed.template, spell)
        except RuleError as err:
            ctx.emit(Said(f"{spell.name} is lost: {err}", caster.id))
            ctx.emit(removal(state, placed.id))
            return
        inside = set(tokens_inside(placed.template, state, rules.space.walls(state)))
        victims = [t for t in rules.alive(state) if t.id in inside]
        if not victims:
            ctx.emit(Said(f"{spell.name} ({describe(placed.template, 'squares')}) "
                          "catches nobody", caster.id))
        hit(rules, ctx, caster, spell, victims)
        ctx.emit(removal(ctx.state, placed.id))
        return
    target = state.tokens.get(plan.target)
    if target is None or not target.alive:
        ctx.emit(Said(f"{spell.name} finds no target and is lost", caster.id))
        return
    try:
        in_range(rules, state, caster, target, spell)
    except RuleError as err:
        ctx.emit(Said(f"{spell.name} is lost: {err}", caster.id))
        return
    victims = [target] if spell.radius <= 0 else [
        t for t in rules.alive(state) if rules.gap(state, target, t) <= spell.radius]
    hit(rules, ctx, caster, spell, victims)


def plan_area(state: Encounter, plan: Plan) -> Placed | None:
    """The template on the map that ``plan``'s spell is aimed at (None: none, or gone)."""
    return next((p for p in state.templates if p.id == plan.area), None) \
        if isinstance(plan.area, str) else None


def hit(rules: Rules, ctx: Resolution, caster: Token, spell: Spell,
        victims: Sequence[Token]) -> None:
    """Each victim saves, takes the damage and gains the condition ``spell`` says."""
    state = ctx.state
    for v in victims:
        saved = False
        if spell.save:
            saved = rules.save(ctx, v, spell.save, against=caster) != "failed"
        if spell.count > 0 and not (saved and not spell.save_halves):
            roll = ctx.roll(caster.id, spell.count, spell.sides, f"{spell.name} on {v.name}")
            amount = max(0, roll.total + spell.bonus)
            if saved:
                amount //= 2
            if amount:
                rules.hurt(ctx, v, amount, spell.name)
        if spell.condition and not saved and v.alive:
            until = state.round + spell.rounds - 1
            ctx.emit(ValueChanged(v.id, f"{spell.condition}_until",
                                  v.values.get(f"{spell.condition}_until"), until,
                                  f"{spell.name}: {spell.condition} through round {until}"))
            rules.condition(ctx, v, spell.condition)


#: The actions of this module, by the ``act`` name the GM gives them.
ACTIONS: dict[str, Callable[[Rules, Resolution, Token, Act], None]] = {
    "sprint": sprint, "cast": cast, "sustain": sustain, "cancel": cancel,
}


def spell_card(rules: Rules, state: Encounter, cmd: Act, base: Preview) -> Preview:
    """A spell's card: its damage dice, the target's save, and the chance it drops.

    The dice are thrown when the spell lands, so the card says so: "No dice decide
    this" would be wrong for a Magic Missile's 1d4+1.
    """
    spell = rules.data.spells.get(cmd.detail)
    if base.legal and spell is not None and spell.template:
        # The trial resolve stops at the first die it would throw, which may come before
        # the area is judged: judge it here, or the card offers what the referee refuses.
        try:
            aimed_area(rules, state, state.token(cmd.actor), spell, cmd.area)
        except RuleError as err:
            return Preview(False, str(err))
    if not base.legal or spell is None or not (spell.count or spell.save):
        return base
    caster = state.token(cmd.actor)
    target = state.tokens.get(cmd.target)
    p_save = 0.0
    lines = []
    if spell.count:
        bonus = f"{spell.bonus:+d}" if spell.bonus else ""
        lines.append(f"{spell.name}: {spell.count}d{spell.sides}{bonus} damage, rolled "
                     "when the spell takes effect")
    if spell.save and target is not None:
        need = rules.data.saves.target(spell.save)
        save_bonus = rules.save_bonus(state, target, caster)
        p_save = odds.die(rules.data.saves.die).chance(
            lambda r: rules.degree(r + save_bonus, need) != "failed")
        after = "half damage" if spell.save_halves else "no effect"
        lines.append(f"{target.name}'s {SAVE_NAMES.get(spell.save, spell.save)}: "
                     f"d{rules.data.saves.die} {save_bonus:+d} against {need}; "
                     f"a made save means {after}")
    elif spell.save:
        lines.append(f"Each token inside saves ({SAVE_NAMES.get(spell.save, spell.save)}); "
                     f"a made save means {'half damage' if spell.save_halves else 'no effect'}")
    else:
        lines.append("No save: it always takes effect")
    full = (odds.dice(spell.count, spell.sides) + spell.bonus).map(lambda x: max(0, x)) \
        if spell.count else odds.Distribution.constant(0)
    drop = 0.0
    if target is not None and spell.count:
        margin = target.hp - rules.data.attack.dead_at
        drop = (1 - p_save) * full.at_least(margin)
        if spell.save_halves:
            drop += p_save * full.map(lambda x: x // 2).at_least(margin)
    damage = full.items() if spell.count else ()
    return Preview(True, odds=Odds(1 - p_save, damage, drop, lines=tuple(lines)),
                   notes=base.notes)
