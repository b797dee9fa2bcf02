"""The ruleset author's kit: scenarios, the every-action check, the scaffold, the schema."""
