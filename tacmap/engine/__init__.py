"""The rule engine: pure Python, no Qt. Everything the window does goes through here.

Its modules are grouped by part; arrows point down (DESIGN §1). Rulesets import none of
them directly: ``tacmap.api`` is their one door.

- ``model``: records and state. Typed records and their JSON, the encounter and its
  tokens, commands (what the user asks) and events (the only way state changes).
- ``space``: the grid and its diagonal rules, walls and sight (shapely), planned moves
  and the reaches they leave, fog of war, area templates, the ruler.
- ``rules``: what a ruleset builds on. The Ruleset base and the registry, round
  structures and turns, stat blocks, offered actions and view-models, dice, notation
  and exact odds.
- ``play``: the referee (execute, undo, redo, replay), the GM's tools, narration,
  headless play and forecasts, the bench figures.
- ``files``: encounter files, the roster, Universal VTT maps, map images, the fight
  report.
"""
