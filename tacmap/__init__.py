"""tacmap: an offline desktop tactical battle map with a rule engine."""

__version__ = "0.1.0"
