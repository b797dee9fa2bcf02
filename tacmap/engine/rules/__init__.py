"""Rules: the Ruleset base, round structures, stat blocks, view-models, dice, odds."""
