"""The side panels: they draw the ruleset's view-models and send commands, nothing else."""
