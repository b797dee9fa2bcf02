"""Reflex (seed 000): declare from the slowest, act from the fastest, pools kept for the round.

Command flow at the table (README.md has the whole story):

* ``start_combat`` puts every living character in the RFX order; equal RFX roll
  off once (a d20) for the whole encounter. Round 1 opens in the declaration
  phase.
* Declaration phase, lowest RFX first: ``act`` with ``declare:attack`` (target,
  weapon in ``detail``), ``declare:knock_down``, ``declare:dodge``,
  ``declare:assist`` (an ally), ``declare:stand`` or ``declare:other``;
  ``end_turn`` declares nothing. A declaration is locked for the round.
* Once everyone has declared, every declared combat roll is thrown and kept.
* Action phase, highest RFX first: ``move``, then the declared action
  (``attack`` the declared target and, with a melee weapon, a second target;
  ``act`` ``knock_down`` or ``stand``), and ``end_turn``. ``act`` ``allow_roll``
  is the GM allowing one more combat roll (``extra:attack``, ``extra:knock_down``).
"""

from __future__ import annotations

from msgspec.structs import replace

from tacmap.api import (
    Act,
    Attack,
    Command,
    Declared,
    DeclareThenAct,
    DiceRolled,
    Encounter,
    EndTurn,
    Hints,
    Manifest,
    Move,
    MovePlan,
    Preview,
    Reorder,
    Resolution,
    RoundChanged,
    RuleError,
    Ruleset,
    Said,
    ScheduleChanged,
    StartCombat,
    Token,
    condition_change,
    emit_move,
    faces,
    grid,
    plural,
)

from . import strike
from .data import Data, Weapon
from .round import ROLLING, Edge, Kind, Plan, Pool, Round

PRONE, STAGGERED = strike.PRONE, strike.STAGGERED
#: Act keys of the declaration phase, after ``declare:``.
DECLARE: tuple[Kind, ...] = ("attack", "knock_down", "dodge", "assist", "stand", "other")
#: Declared actions performed on the character's turn: End turn waits for them.
LOCKED: tuple[Kind, ...] = ("attack", "knock_down", "stand")


class Reflex(Ruleset):
    """Seed 000 on the engine's DeclareThenAct."""

    def __init__(self, manifest: Manifest) -> None:
        super().__init__(manifest)
        self.data = d = manifest.tables(Data)
        self._reachable: dict[tuple[object, ...], bool] = {}  # can_reach, by walls and cells
        block = self.stat_block
        block.need("rfx", "int")
        block.need("defence", "int")
        block.need(d.knock_down.pool, "int", where="knock_down.pool")
        block.need(d.pools.dodge, "int", where="pools.dodge")
        block.need(d.pools.assist, "int", where="pools.assist")
        for w in d.weapons.values():
            block.need(w.pool, "int", where=f"weapons.{w.key}.pool")
        block.need("weapons", "choices", among=d.weapons, table="weapons")

    # ------------------------------------------------------------------ stat block

    def stat(self, token: Token, key: str) -> int:
        """A whole-number stat of the token, or its default from [stat_block]."""
        return int(self.stat_block.value(token.stats, key))

    def weapons_of(self, token: Token) -> list[Weapon]:
        """The weapons the token can declare an attack with (fists when it lists none)."""
        keys = self.stat_block.value(token.stats, "weapons") or ("unarmed",)
        found = [self.data.weapons[k] for k in dict.fromkeys(keys) if k in self.data.weapons]
        return found or [self.data.weapons["unarmed"]]

    def pool_stat(self, plan: Plan) -> str:
        """The stat whose dice a declared action rolls."""
        if plan.action == "attack":
            return self.data.weapons[plan.weapon].pool
        if plan.action == "knock_down":
            return self.data.knock_down.pool
        return self.data.pools.dodge if plan.action == "dodge" else self.data.pools.assist

    @staticmethod
    def who(state: Encounter, token_id: str | None) -> str:
        """A token's name for the log (its id once it is gone)."""
        if token_id is None:
            return "nobody"
        token = state.tokens.get(token_id)
        return token.name if token else token_id

    # ------------------------------------------------------------------ the round

    def round_of(self, state: Encounter) -> Round:
        """The round in ``state.schedule``, or RuleError before combat."""
        if not isinstance(state.schedule, Round):
            raise RuleError("combat has not started: the GM starts it and the lowest RFX "
                            "declares first")
        return state.schedule

    def set_round(self, ctx: Resolution, new: Round, note: str) -> None:
        """Replace the round, with ``note`` for the log."""
        ctx.emit(ScheduleChanged(ctx.state.schedule, new, note))

    def order_text(self, state: Encounter, order: DeclareThenAct) -> str:
        """``"Brak (RFX 2), Ana (RFX 4, roll-off 15)"`` in declaration order."""
        rfx, rolls = dict(order.keys), dict(order.rolloffs)
        return ", ".join(
            f"{self.who(state, w)} (RFX {rfx[w]}"
            + (f", roll-off {', '.join(map(str, rolls[w]))}" if rolls.get(w) else "") + ")"
            for w in order.declare_order)

    def _next(self, state: Encounter, order: DeclareThenAct) -> str:
        if order.round_over:
            return "the round is over"
        if order.current is None:
            return "nobody is left in the order"
        verb = "declares" if order.phase == "declare" else "acts"
        return f"{self.who(state, order.current)} {verb} next"

    def leave(self, ctx: Resolution, token: Token, why: str) -> None:
        """``token`` is out of the fight: it leaves the RFX order, and the round goes on."""
        rnd = self.round_of(ctx.state)
        if token.id not in (w for w, _ in rnd.order.keys):
            return
        order = rnd.order.remove(token.id)
        self.set_round(ctx, replace(rnd, order=order), f"{why}; {self._next(ctx.state, order)}")
        self._settle(ctx)

    def left(self, ctx: Resolution, token: Token) -> None:
        """A removed token leaves the RFX order, and its declaration is dropped with a line."""
        rnd = ctx.state.schedule
        if not isinstance(rnd, Round):
            return
        plan = rnd.plan(token.id)
        dropped = f": its declaration is dropped ({plan.words})" \
            if plan is not None and token.id not in rnd.order.acted else ""
        self.leave(ctx, token, f"{token.name} is removed from the map{dropped}")

    def _settle(self, ctx: Resolution) -> None:
        """After a change of the order: roll the pools once everyone has declared, and
        begin the next round once everyone has acted."""
        rnd = self.round_of(ctx.state)
        if rnd.order.phase == "act" and not rnd.rolled:
            self._roll_pools(ctx, rnd)
            rnd = self.round_of(ctx.state)
        if rnd.order.round_over and rnd.order.keys:
            self._new_round(ctx, rnd)

    def _roll_pools(self, ctx: Resolution, rnd: Round) -> None:
        """The start of the action phase: every declared combat roll is thrown and kept."""
        state = ctx.state
        edges = list(rnd.edges)
        for tid in rnd.order.act_order:
            t = state.tokens.get(tid)
            if t is not None and t.alive and PRONE in t.conditions:
                edges.append(Edge(tid, "disadvantage", "prone"))
        pools: list[Pool] = []
        for tid in rnd.order.act_order:
            plan, t = rnd.plan(tid), state.tokens.get(tid)
            if plan is None or plan.action not in ROLLING or t is None or not t.alive:
                continue
            stat = self.pool_stat(plan)
            roll = ctx.roll(tid, self.stat(t, stat), self.data.dice.sides,
                            f"{stat} pool, kept for the round: {plan.words}")
            pools.append(Pool(tid, stat, roll.faces, 0, plan.words))
        new = replace(rnd, pools=tuple(pools), edges=tuple(edges), rolled=True)
        kept = []
        for p in pools:
            at = strike.win_at(self.data, new.edges_of(p.owner))
            edge = f" (wins on {at}+: {new.edges_of(p.owner)[0].why})" \
                if at != self.data.dice.win_at else ""
            kept.append(f"{self.who(state, p.owner)} {strike.wins(p, at)} VL{edge}")
        summary = f"pools kept: {', '.join(kept)}" if kept else "no pools to roll"
        self.set_round(ctx, new, f"round {rnd.order.round}, action phase (highest RFX first): "
                                 f"{summary}; {self._next(state, rnd.order)}")

    def _new_round(self, ctx: Resolution, rnd: Round) -> None:
        state = ctx.state
        ctx.emit(RoundChanged(state.round, state.round + 1))
        for t in list(state.tokens.values()):
            if STAGGERED in t.conditions:
                ctx.emit(condition_change(t, STAGGERED, False))
        order = rnd.order.new_round()
        kept = ", ".join(f"{self.who(state, w)} {', '.join(map(str, seq))}"
                         for w, seq in order.rolloffs)
        tail = f"; roll-offs kept: {kept}" if kept else ""
        self.set_round(ctx, Round(order),
                       f"round {order.round}, declaration phase (lowest RFX first): "
                       f"{self.order_text(state, order)}{tail}; {self._next(state, order)}")

    # ------------------------------------------------------------------ who may do what

    def declaring(self, state: Encounter, actor: str) -> tuple[Round, Token]:
        """The round and token, if ``actor`` is due to declare now; else RuleError."""
        rnd = self.round_of(state)
        token = state.token(actor)
        said = rnd.order.action_of(actor)
        if said is not None:
            raise RuleError(f"{token.name} has already declared “{said}”: a declared action "
                            "is locked for the round")
        if rnd.order.phase != "declare":
            raise RuleError(f"the declaration phase is over: {token.name} declares next round")
        if not token.alive:
            raise RuleError(f"{token.name} is down")
        cur = rnd.order.current
        if cur != actor:
            raise RuleError(f"it is {self.who(state, cur)}'s turn to declare, not "
                            f"{token.name}'s (the lowest RFX declares first)")
        return rnd, token

    def acting(self, state: Encounter, actor: str) -> tuple[Round, Token]:
        """The round and token, if it is ``actor``'s turn of the action phase; else RuleError."""
        rnd = self.round_of(state)
        token = state.token(actor)
        order = rnd.order
        if order.phase == "declare":
            raise RuleError(f"nobody acts yet: it is the declaration phase "
                            f"({self.who(state, order.current)} declares)")
        if not token.alive:
            raise RuleError(f"{token.name} is down")
        if order.current != actor:
            if order.action_of(actor) is None:
                raise RuleError(f"{token.name} declared nothing this round and acts next round")
            if actor in order.acted:
                raise RuleError(f"{token.name} has already acted this round")
            raise RuleError(f"it is {self.who(state, order.current)}'s turn to act, not "
                            f"{token.name}'s (the highest RFX acts first)")
        return rnd, token

    def plan_for(self, state: Encounter, token: Token, kind: str, target: str,
                 detail: str) -> Plan:
        """The declaration ``kind`` of ``token`` at ``target``, checked; RuleError if not."""
        if kind not in DECLARE:
            raise RuleError(f"there is no declaration {kind!r} (declare: {', '.join(DECLARE)})")
        if kind == "attack":
            carried = self.weapons_of(token)
            weapon = next((w for w in carried if w.key == detail), None) if detail \
                else carried[0]
            if weapon is None:
                raise RuleError(f"{token.name} carries no {detail} "
                                f"(carries: {', '.join(w.name for w in carried)})")
            foe = self._foe(state, token, target)
            return Plan(token.id, "attack", foe.id, weapon.key,
                        f"attack {foe.name} with the {weapon.name}")
        if kind == "knock_down":
            foe = self._foe(state, token, target)
            return Plan(token.id, "knock_down", foe.id, words=f"knock {foe.name} down")
        if kind == "assist":
            ally = self._other(state, token, target, "assist")
            if ally.side != token.side:
                raise RuleError(f"{ally.name} is not on {token.name}'s side")
            return Plan(token.id, "assist", ally.id, words=f"assist {ally.name}")
        if kind == "dodge":
            return Plan(token.id, "dodge", words="defend (dodge)")
        if kind == "stand":
            if PRONE not in token.conditions:
                raise RuleError(f"{token.name} is not prone")
            return Plan(token.id, "stand", words="stand up")
        return Plan(token.id, "other", words=detail.strip()[:120] or "something else, no roll")

    def _other(self, state: Encounter, token: Token, target: str, what: str) -> Token:
        if not target:
            raise RuleError(f"say whom {token.name} will {what}")
        other = state.token(target)
        if other.id == token.id:
            raise RuleError(f"{token.name} cannot {what} themself")
        if not other.alive:
            raise RuleError(f"{other.name} is down")
        return other

    def _foe(self, state: Encounter, token: Token, target: str) -> Token:
        foe = self._other(state, token, target, "attack")
        if foe.side == token.side:
            raise RuleError(f"{foe.name} is on {token.name}'s side")
        return foe

    def in_reach(self, state: Encounter, token: Token, target: Token, weapon: Weapon) -> None:
        """RuleError unless ``target`` is within the weapon's reach or range, in sight."""
        ranged = weapon.kind == "ranged"
        problem = self.aim_problem(state, token, target,
                                   weapon.range if ranged else weapon.reach,
                                   f"the {weapon.name}", ranged)
        if problem:
            raise RuleError(problem)

    def strike_check(self, state: Encounter, actor: str, target: str, kind: str,
                     weapon_key: str = "") -> tuple[Round, Token, Token, Weapon]:
        """A strike with the declared action now: round, attacker, target, weapon."""
        rnd, token = self.acting(state, actor)
        plan = rnd.plan(actor)
        if plan is None or plan.action != kind:
            said = f"“{plan.words}”" if plan else "nothing"
            what = "an attack" if kind == "attack" else "a knock-down"
            raise RuleError(f"{token.name} declared {said}, not {what}: a declared action is "
                            "locked for the round")
        weapon = self.data.weapons[plan.weapon or "unarmed"]
        if kind == "attack" and weapon_key and weapon_key != weapon.key:
            raise RuleError(f"{token.name} declared an attack with the {weapon.name}: a declared "
                            "action is locked for the round")
        engaged = rnd.targets_of(actor)
        foe = self._foe(state, token, target)
        if not engaged:
            if foe.id != plan.target:
                raise RuleError(f"{token.name} declared “{plan.words}”: a declared action is "
                                "locked for the round")
        elif kind != "attack" or weapon.kind != "melee":
            raise RuleError(f"{token.name} has made the declared {plan.words.split(' ')[0]}")
        elif len(engaged) >= self.data.attack.melee_targets:
            raise RuleError(f"{token.name} has engaged {plural(len(engaged), 'target')}: a "
                            f"melee attack engages at most {self.data.attack.melee_targets}")
        elif foe.id in engaged:
            raise RuleError(f"{token.name} has already attacked {foe.name} this round")
        if rnd.main_pool(actor) is None:
            raise RuleError(f"{token.name} has no pool rolled this round")
        self.in_reach(state, token, foe, weapon if kind == "attack" else self.data.weapons[
            "unarmed"])
        return rnd, token, foe, weapon

    def can_reach(self, state: Encounter, rnd: Round, token: Token, target: Token,
                  weapon: Weapon) -> bool:
        """Whether ``target`` is in the weapon's reach now or after some move within the
        metres ``token`` has left this round (walls respected)."""
        try:
            self.in_reach(state, token, target, weapon)
            return True
        except RuleError:
            pass
        left = max(0.0, self.data.round.move_metres - rnd.metres(token.id))
        if left <= 1e-9:
            return False
        size = token.size
        walls = self.space.walls(state)
        # Walls, cells and metres alone decide it: each search of the map is made once.
        key = (walls, state.diagonal, state.map.width, state.map.height, token.cell, size,
               left, target.cell, target.size, weapon.key)
        known = self._reachable.get(key)
        if known is not None:
            return known
        if len(self._reachable) > 4096:
            self._reachable.clear()
        field = grid.distance_field(state.diagonal, token.cell, left,
                                    (state.map.width - size + 1, state.map.height - size + 1),
                                    walls.step_test(size))
        found = False
        for x, y in field.cost:
            try:
                self.in_reach(state, replace(token, x=x, y=y), target, weapon)
                found = True
                break
            except RuleError:
                continue
        self._reachable[key] = found
        return found

    def duty(self, state: Encounter, rnd: Round, token: Token) -> tuple[str, str]:
        """"They are locked into performing that action in this round": (why ``token`` may
        not end its turn yet, why its declared action is lost); both empty when neither.

        Only an attack, a knock-down and standing up are performed on the turn; a dodge or
        an assist works through its kept pool and "something else" is the GM's narration.
        """
        plan = rnd.plan(token.id)
        if plan is None or plan.action not in LOCKED or rnd.targets_of(token.id):
            return "", ""
        owed = (f"{token.name} declared “{plan.words}” and is locked into performing it "
                "this round: do it before ending the turn")
        if plan.action == "stand":
            if PRONE not in token.conditions:
                return "", f"{token.name} is no longer prone"
            return owed, ""
        target = state.tokens.get(plan.target)
        if target is None or not target.alive:
            return "", f"{self.who(state, plan.target)} is down"
        weapon = self.data.weapons[plan.weapon or "unarmed"] if plan.action == "attack" \
            else self.data.weapons["unarmed"]
        if self.can_reach(state, rnd, token, target, weapon):
            return owed, ""
        left = max(0.0, self.data.round.move_metres - rnd.metres(token.id))
        try:
            self.in_reach(state, token, target, weapon)
            why = f"{target.name} is out of reach"
        except RuleError as err:
            why = str(err)
        return "", (f"{why}, and no move of the {left:g} m {token.name} has left this round "
                    "brings it in reach" if left > 1e-9 else
                    f"{why}, and {token.name} has no move left this round")

    def extra_check(self, state: Encounter, actor: str, target: str, kind: str,
                    weapon_key: str) -> tuple[Token, Token, Weapon]:
        """An extra combat roll the GM allowed: attacker, target, weapon."""
        rnd, token = self.acting(state, actor)
        if rnd.extra_left(actor, self.data.round.combat_rolls - 1) <= 0:
            plan = rnd.plan(actor)
            if plan is None or plan.action not in ROLLING:
                said = f"“{plan.words}”" if plan else "nothing"
                raise RuleError(f"{token.name} declared {said}, not a combat roll: a declared "
                                "action is locked for the round; the GM can allow a roll")
            raise RuleError(f"{token.name} has made their combat roll this round "
                            f"({self.data.round.combat_rolls} a round); the GM can allow another")
        plan = self.plan_for(state, token, kind, target, weapon_key)
        weapon = self.data.weapons[plan.weapon or "unarmed"]
        foe = state.tokens[plan.target]
        self.in_reach(state, token, foe, weapon)
        return token, foe, weapon

    # ------------------------------------------------------------------ judging

    def resolve(self, ctx: Resolution, cmd: Command) -> None:
        if isinstance(cmd, StartCombat):
            self._start(ctx, cmd)
        elif isinstance(cmd, EndTurn):
            self._end_turn(ctx, cmd)
        elif isinstance(cmd, Attack):
            self._attack(ctx, cmd.actor, cmd.target, cmd.weapon)
        elif isinstance(cmd, Move):
            self._move(ctx, cmd)
        elif isinstance(cmd, Act):
            self._act(ctx, cmd)
        elif isinstance(cmd, Reorder):
            raise RuleError("in Reflex the order comes from RFX (lowest declares first, highest "
                            "acts first) and the roll-offs; change a character's RFX instead")
        else:
            super().resolve(ctx, cmd)

    def _start(self, ctx: Resolution, cmd: StartCombat) -> None:
        state = ctx.state
        if isinstance(state.schedule, Round):
            raise RuleError("combat has already started")
        if cmd.order:
            raise RuleError("in Reflex the order comes from RFX; start without an order")
        keys = [(t.id, self.stat(t, "rfx")) for t in state.tokens.values() if t.alive]
        ctx.emit(RoundChanged(state.round, 1))
        # House rule rolloff_die: "a D6 (though D20s work better)"; d20 is [rolloff] die.
        die = 6 if self.house_rule(state, "rolloff_die") == "d6" else self.data.rolloff.die
        order, rolls = DeclareThenAct.start(keys, ctx.dice, die)
        for who, why, roll in rolls:
            ctx.emit(DiceRolled(who, why, roll))
        self.set_round(ctx, Round(order),
                       f"round 1, declaration phase (lowest RFX first): "
                       f"{self.order_text(state, order)}; {self._next(state, order)}")

    def hp_set(self, ctx: Resolution, token: Token) -> None:
        """GM damage or Set HP down to the dead-at line drops the token as an attack would."""
        strike.drop(self, ctx, token)

    def joined(self, ctx: Resolution, token: Token) -> None:
        """A newcomer takes its place by RFX, rolling off against anyone it ties with."""
        if not isinstance(ctx.state.schedule, Round) or not token.alive:
            return
        rnd = ctx.state.schedule
        order, rolls = rnd.order.add(token.id, self.stat(token, "rfx"), ctx.dice)
        for who, why, roll in rolls:
            ctx.emit(DiceRolled(who, why, roll))
        when = "declares when due" if order.phase == "declare" else \
            "declares from the next round (the declarations are made)"
        self.set_round(ctx, replace(rnd, order=order),
                       f"{token.name} joins with RFX {self.stat(token, 'rfx')} and {when}")

    def _end_turn(self, ctx: Resolution, cmd: EndTurn) -> None:
        state = ctx.state
        rnd = self.round_of(state)
        cur = rnd.order.current
        token = state.tokens.get(cur) if cur else None
        if cur is not None and (token is None or not token.alive):
            order = rnd.order.remove(cur)
            self.set_round(ctx, replace(rnd, order=order),
                           f"{self.who(state, cur)} is out of the fight; "
                           f"{self._next(state, order)}")
            self._settle(ctx)
            return
        if token is None:
            raise RuleError("nobody is left in the RFX order")
        if cmd.actor and cmd.actor != cur:
            verb = "declare" if rnd.order.phase == "declare" else "act"
            raise RuleError(f"it is {token.name}'s turn to {verb}, not "
                            f"{self.who(state, cmd.actor)}'s")
        if rnd.order.phase == "declare":
            plan = Plan(token.id, "nothing", words="nothing this round")
            order = rnd.order.declare(token.id, plan.words)
            after = "everyone has declared" if order.phase == "act" else \
                self._next(state, order)
            self.set_round(ctx, replace(rnd, order=order, plans=(*rnd.plans, plan)),
                           f"{token.name} declares nothing this round; {after}")
        else:
            owed, lost = self.duty(state, rnd, token)
            if owed:
                raise RuleError(owed)
            declared = rnd.plan(token.id)
            gone = f"{token.name}'s declared action is lost ({declared.words}): {lost}; " \
                if lost and declared is not None else ""
            order = rnd.order.act(token.id)
            self.set_round(ctx, replace(rnd, order=order),
                           f"{gone}{token.name} is done; {self._next(state, order)}")
        self._settle(ctx)

    def _declare(self, ctx: Resolution, cmd: Act, kind: str) -> None:
        state = ctx.state
        rnd, token = self.declaring(state, cmd.actor)
        plan = self.plan_for(state, token, kind, cmd.target, cmd.detail)
        order = rnd.order.declare(token.id, plan.words)
        after = "everyone has declared" if order.phase == "act" else self._next(state, order)
        self.set_round(ctx, replace(rnd, order=order, plans=(*rnd.plans, plan)),
                       f"{token.name} declares: {plan.words} (locked); {after}")
        self._settle(ctx)

    def _attack(self, ctx: Resolution, actor: str, target: str, weapon_key: str) -> None:
        state = ctx.state
        rnd, token, foe, weapon = self.strike_check(state, actor, target, "attack", weapon_key)
        second = bool(rnd.targets_of(actor))
        prone_second = strike.second_target(rnd, token, foe, "attack", weapon)
        pool = rnd.main_pool(actor)
        assert pool is not None
        new = replace(rnd, engaged=(*rnd.engaged, (actor, foe.id)))
        what = f"second target {foe.name}" if second else foe.name
        self.set_round(ctx, new, f"{token.name} engages {what} with the {weapon.name}, "
                                 f"with the kept {pool.stat} pool [{faces(pool.kept)}]")
        if prone_second:
            strike.gain_edge(self, ctx, token, "advantage",
                             f"engages prone {foe.name} as second melee target")
        pool = self.round_of(state).main_pool(actor)
        assert pool is not None
        strike.strike(self, ctx, token, state.tokens[foe.id], pool, "attack", weapon,
                      f"({weapon.name})")

    def _act(self, ctx: Resolution, cmd: Act) -> None:
        head, _, tail = cmd.action.partition(":")
        if head == "declare":
            self._declare(ctx, cmd, tail)
        elif cmd.action == "knock_down":
            self._knock_down(ctx, cmd)
        elif cmd.action == "stand":
            self._stand(ctx, cmd)
        elif cmd.action == "allow_roll":
            self._allow_roll(ctx, cmd)
        elif cmd.action == "shout":
            self._shout(ctx, cmd)
        elif head == "extra" and tail in ("attack", "knock_down"):
            self._extra(ctx, cmd, tail)
        else:
            raise RuleError(f"Reflex has no action {cmd.action!r} (actions: declare:<kind>, "
                            "knock_down, stand, shout, allow_roll, extra:attack, "
                            "extra:knock_down)")

    def _knock_down(self, ctx: Resolution, cmd: Act) -> None:
        state = ctx.state
        rnd, token, foe, weapon = self.strike_check(state, cmd.actor, cmd.target, "knock_down")
        pool = rnd.main_pool(token.id)
        assert pool is not None
        self.set_round(ctx, replace(rnd, engaged=(*rnd.engaged, (token.id, foe.id))),
                       f"{token.name} tries to knock {foe.name} down, with the kept "
                       f"{pool.stat} pool [{faces(pool.kept)}]")
        strike.strike(self, ctx, token, foe, pool, "knock_down", weapon, "")

    def _stand(self, ctx: Resolution, cmd: Act) -> None:
        rnd, token = self.acting(ctx.state, cmd.actor)
        plan = rnd.plan(token.id)
        if plan is None or plan.action != "stand":
            raise RuleError(f"{token.name} did not declare standing up: a declared action is "
                            "locked for the round")
        if PRONE not in token.conditions:
            raise RuleError(f"{token.name} is not prone")
        self.set_round(ctx, replace(rnd, engaged=(*rnd.engaged, (token.id, token.id))),
                       f"{token.name} stands up")
        ctx.emit(condition_change(token, PRONE, False))

    def shout_check(self, state: Encounter, actor: str, target: str) -> tuple[Token, Token | None]:
        """Who shouts, and to whom: "it doesn't take an action to shout out something"."""
        self.round_of(state)
        token = state.token(actor)
        if not token.alive:
            raise RuleError(f"{token.name} is down")
        if not target:
            return token, None
        return token, self._other(state, token, target, "shout to")

    def _shout(self, ctx: Resolution, cmd: Act) -> None:
        """A shout: free at any time of the round, neither a declaration nor a combat roll."""
        token, to = self.shout_check(ctx.state, cmd.actor, cmd.target)
        words = cmd.detail.strip()[:120]
        said = f": “{words}”" if words else ""
        ctx.emit(Said(f"{token.name} shouts{f' to {to.name}' if to else ''}{said} (free: not "
                      "an action, not a combat roll)", token.id))

    def _allow_roll(self, ctx: Resolution, cmd: Act) -> None:
        """The GM allows ``cmd.actor`` one more combat roll this round (logged, undoable)."""
        rnd = self.round_of(ctx.state)
        token = ctx.state.token(cmd.actor)
        if not token.alive:
            raise RuleError(f"{token.name} is down")
        n = rnd.extra_allowed(token.id) + 1
        allowed = (*(p for p in rnd.allowed if p[0] != token.id), (token.id, n))
        self.set_round(ctx, replace(rnd, allowed=allowed),
                       f"GM override: {token.name} may make {plural(n, 'extra combat roll')} "
                       "this round")

    def _extra(self, ctx: Resolution, cmd: Act, kind: str) -> None:
        state = ctx.state
        token, foe, weapon = self.extra_check(state, cmd.actor, cmd.target, kind, cmd.detail)
        stat = weapon.pool if kind == "attack" else self.data.knock_down.pool
        words = f"attack {foe.name} with the {weapon.name}" if kind == "attack" else \
            f"knock {foe.name} down"
        roll = ctx.roll(token.id, self.stat(token, stat), self.data.dice.sides,
                        f"extra combat roll ({stat} pool, GM allowed): {words}")
        rnd = self.round_of(state)
        pool = Pool(token.id, stat, roll.faces, 0, words, extra=True)
        self.set_round(ctx, replace(rnd, pools=(*rnd.pools, pool)),
                       f"{token.name} makes an extra combat roll: {words}")
        strike.strike(self, ctx, token, foe, pool, "attack" if kind == "attack" else
                      "knock_down", weapon, f"({weapon.name}, extra roll)")

    # ------------------------------------------------------------------ moving

    def move_check(self, state: Encounter, token: Token) -> float | None:
        """Metres ``token`` may move now (None before combat); RuleError if it may not."""
        if not isinstance(state.schedule, Round):
            return None
        if state.schedule.order.phase == "declare":
            raise RuleError("nobody moves in the declaration phase: characters move on their "
                            "turn of the action phase")
        rnd, token = self.acting(state, token.id)
        return max(0.0, self.data.round.move_metres - rnd.metres(token.id))

    def move_budget(self, state: Encounter, token: Token) -> float | None:
        try:
            return self.move_check(state, token)
        except RuleError:
            return 0.0

    def move_refusal(self, state: Encounter, token: Token, plan: MovePlan) -> str | None:
        try:
            budget = self.move_check(state, token)
        except RuleError as err:
            return str(err)
        if budget is not None and plan.cost > budget + 1e-9:
            return f"{token.name} can move {budget:g} m more this round, this path is " \
                   f"{plan.cost:g} m"
        return self.strands(state, token, plan) if budget is not None else None

    def strands(self, state: Encounter, token: Token, plan: MovePlan) -> str | None:
        """Why this move is refused because it would make the declared action impossible
        (a walk out of reach is not a way out of a locked declaration), or None."""
        rnd = self.round_of(state)
        owed, _ = self.duty(state, rnd, token)
        if not owed:
            return None
        end = plan.cells[-1]
        after = replace(rnd, moved=(*(p for p in rnd.moved if p[0] != token.id),
                                    (token.id, rnd.metres(token.id) + plan.cost)))
        _, lost = self.duty(state, after, replace(token, x=end[0], y=end[1]))
        if not lost:
            return None
        declared = rnd.plan(token.id)
        words = declared.words if declared is not None else "an action"
        return (f"{token.name} declared “{words}” and is locked into performing it this "
                f"round: this move would leave it out of reach ({lost})")

    def move_uses(self, state: Encounter, token: Token, plan: MovePlan) -> str:
        budget = self.move_budget(state, token)
        if budget is None:
            return ""
        left = self.manifest.units.of(max(0.0, budget - plan.cost))
        return f"free (no combat roll spent): {left} left to move this round"

    def _move(self, ctx: Resolution, cmd: Move) -> None:
        state = ctx.state
        token = state.token(cmd.actor)
        budget = self.move_check(state, token)
        plan = self.plan(state, token, cmd.path)
        if plan.blocked:
            raise RuleError(plan.blocked)
        if budget is not None:
            if plan.cost > budget + 1e-9:
                raise RuleError(f"{token.name} can move {budget:g} m more this round, this "
                                f"path is {plan.cost:g} m")
            stranded = self.strands(state, token, plan)
            if stranded:
                raise RuleError(stranded)
            rnd = self.round_of(state)
            moved = rnd.metres(token.id) + plan.cost
            rest = tuple(p for p in rnd.moved if p[0] != token.id)
            self.set_round(ctx, replace(rnd, moved=(*rest, (token.id, moved))),
                           f"{token.name} moves {plan.cost:g} m (free: not a combat roll); "
                           f"{self.data.round.move_metres - moved:g} m left this round")
        emit_move(ctx, token, plan)

    # ------------------------------------------------------------------ previews

    def preview(self, state: Encounter, cmd: Command, version: object = None) -> Preview:
        try:
            if isinstance(cmd, Attack):
                rnd, token, foe, weapon = self.strike_check(state, cmd.actor, cmd.target,
                                                            "attack", cmd.weapon)
                return self._odds(state, token, foe, "attack", weapon, rnd.main_pool(token.id))
            if isinstance(cmd, Act) and cmd.action == "knock_down":
                rnd, token, foe, weapon = self.strike_check(state, cmd.actor, cmd.target,
                                                            "knock_down")
                return self._odds(state, token, foe, "knock_down", weapon,
                                  rnd.main_pool(token.id))
            if isinstance(cmd, Act) and cmd.action in ("declare:attack", "declare:knock_down"):
                _, token = self.declaring(state, cmd.actor)
                plan = self.plan_for(state, token, cmd.action[8:], cmd.target, cmd.detail)
                return self._odds(state, token, state.tokens[plan.target], plan.action,
                                  self.data.weapons[plan.weapon or "unarmed"], None)
            if isinstance(cmd, Act) and cmd.action in ("extra:attack", "extra:knock_down"):
                token, foe, weapon = self.extra_check(state, cmd.actor, cmd.target,
                                                      cmd.action[6:], cmd.detail)
                return self._odds(state, token, foe, cmd.action[6:], weapon, None)
        except RuleError as err:
            return Preview(False, str(err))
        return super().preview(state, cmd, version)

    def _odds(self, state: Encounter, token: Token, foe: Token, kind: str, weapon: Weapon,
              pool: Pool | None) -> Preview:
        stat = weapon.pool if kind == "attack" else self.data.knock_down.pool
        size = self.stat(token, stat)
        chances = strike.strike_odds(self, state, token, foe,
                                     "attack" if kind == "attack" else "knock_down",
                                     weapon, pool, size, PRONE in token.conditions)
        if pool is not None:
            note = f"kept {pool.stat} pool [{faces(pool.kept)}]"
        else:
            note = f"{token.name} rolls {size}d{self.data.dice.sides} ({stat})"
        return Preview(True, odds=chances, notes=(note,))

    # ------------------------------------------------------------------ panels

    def declared(self, state: Encounter) -> list[Declared]:
        """Declarations aimed at a token, each until its actor's turn in the action phase
        ends: spoken at the table, lowest RFX first, so the player view shows them too."""
        rnd = state.schedule
        if not isinstance(rnd, Round):
            return []
        return [Declared(p.actor, p.words or p.action, target=p.target)
                for p in rnd.plans
                if p.target in state.tokens and p.actor in state.tokens
                and p.actor not in rnd.order.acted]

    def forecast_hints(self) -> Hints:
        """What the autopilot needs to know here (README "The autopilot")."""
        # A later declarer sees who is aimed at whom; only playing on shows when a dodge,
        # whose VL comes off every attack on the dodger, beats an attack of its own.
        return Hints(weigh=("declare:dodge",))

    def out_of_fight(self, token: Token) -> bool:
        """Down at ``hp.dead_at`` (0 HP), where the rules mark it ``dead`` and it leaves the
        RFX order; a heal does not raise it, so only the mark counts (README)."""
        return not token.alive


def create(manifest: Manifest) -> Ruleset:
    """The Reflex ruleset."""
    return Reflex(manifest)
