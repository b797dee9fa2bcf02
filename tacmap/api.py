"""The one module a ruleset imports from tacmap: ruleset API 2 (``api = 2`` in ruleset.toml).

What API 2 promises a ruleset folder: every name below keeps its name, its place in
this module and its meaning (a class's methods and fields, a function's arguments)
for as long as tacmap offers API 2; where the engine keeps them is its own business
and may change. New names may join; a name that has to go or change meaning raises
the API to 3, and rulesets/GUIDE.md ("API versions") then says what changed. A
plug-in that imports from ``tacmap.engine`` instead is on its own. ``grid`` and
``odds`` are whole modules (``grid.edge_distance``, ``odds.highest``).
"""

from __future__ import annotations

from tacmap.engine.model.commands import Act, Attack, Command, EndTurn, Move, Reorder, StartCombat
from tacmap.engine.model.convert import Invalid
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.events import (
    ConditionChanged,
    DataChanged,
    DiceRolled,
    HpChanged,
    LeftReach,
    RoundChanged,
    Said,
    ScheduleChanged,
    TemplatePlaced,
    TemplateRemoved,
    TokenMoved,
    ValueChanged,
    condition_change,
)
from tacmap.engine.model.records import Float, Int, Json, Record, Text
from tacmap.engine.model.state import Cell, Encounter, MapSpec, Placed, Template, Token, party_side
from tacmap.engine.model.words import article, faces, plural, possessive
from tacmap.engine.play.benching import attack_figures, attack_runner, duel
from tacmap.engine.play.hints import Hints
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules import odds, turns
from tacmap.engine.rules.dice import MAX_DICE, FixedDice, Roll
from tacmap.engine.rules.ruleset import (
    API_VERSION,
    BenchFigure,
    Entry,
    Grid,
    Manifest,
    Resolution,
    Ruleset,
    RulesetData,
    Table,
    token_error,
)
from tacmap.engine.rules.schedule import (
    SPEED_PHASES,
    DeclareThenAct,
    FixedPhases,
    OrderedTurns,
    PhaseTimeline,
    Schedule,
    SideInitiative,
    TimedAction,
    earliest,
    phase_index,
    speed_rank,
)
from tacmap.engine.rules.turns import Occasion, Trigger, TurnData, TurnRuleset, emit_move
from tacmap.engine.rules.views import (
    ActionOption,
    Aim,
    AreaSpec,
    Declared,
    Odds,
    OrderRow,
    PoolView,
    Preview,
    Reaction,
    RowState,
    Spread,
    Timeline,
    TimelineItem,
    TurnOrder,
)
from tacmap.engine.space import grid
from tacmap.engine.space.geometry import line_of_sight, reach_crossing
from tacmap.engine.space.movement import MovePlan, Space
from tacmap.engine.space.templates import describe, placement, removal, tokens_inside

__all__ = ["API_VERSION"]

# The ruleset: the class a plug-in subclasses, its manifest and typed tables, its refusals.
__all__ += ["BenchFigure", "Entry", "Grid", "Invalid", "Manifest", "Resolution", "RuleError",
            "Ruleset", "RulesetData", "Table", "token_error"]

# Records and state: the encounter and its tokens, and records for a ruleset's own values.
__all__ += ["Cell", "Encounter", "Float", "Int", "Json", "MapSpec", "Placed", "Record",
            "Template", "Text", "Token", "party_side"]

# Commands a ruleset judges, and the events it emits (the only way state changes).
__all__ += ["Act", "Attack", "Command", "ConditionChanged", "DataChanged", "DiceRolled",
            "EndTurn", "HpChanged", "LeftReach", "Move", "Reorder", "RoundChanged", "Said",
            "ScheduleChanged", "StartCombat", "TemplatePlaced", "TemplateRemoved",
            "TokenMoved", "ValueChanged", "condition_change"]

# Space: the grid's cells and diagonal rules, sight and reach, planned moves, area templates.
__all__ += ["MovePlan", "Space", "describe", "grid", "line_of_sight", "placement",
            "reach_crossing", "removal", "tokens_inside"]

# Rounds and turns: the round structures a ruleset composes (who is due, in which phase, in
# what order) and the turn machinery (`TurnRuleset`: order, moves, reactions on the way).
__all__ += ["SPEED_PHASES", "DeclareThenAct", "FixedPhases", "Occasion", "OrderedTurns",
            "PhaseTimeline", "Schedule", "SideInitiative", "TimedAction", "Trigger", "TurnData",
            "TurnRuleset", "earliest", "emit_move", "phase_index", "speed_rank", "turns"]

# Dice and odds: rolls with every face, fixed dice for tests, exact odds for the odds card.
__all__ += ["MAX_DICE", "FixedDice", "Roll", "odds"]

# Panels: the view-models the window draws (turn order, actions, previews, pools, timeline).
__all__ += ["ActionOption", "Aim", "AreaSpec", "Declared", "Odds", "OrderRow", "PoolView",
            "Preview", "Reaction", "RowState", "Spread", "Timeline", "TimelineItem",
            "TurnOrder"]

# Words: small English helpers for the log and the panels.
__all__ += ["article", "faces", "plural", "possessive"]

# Play and bench: the referee that judges through the ruleset, `tacmap bench` figures, and
# the forecast's hints (`Hints`).
__all__ += ["Hints", "Referee", "attack_figures", "attack_runner", "duel"]
