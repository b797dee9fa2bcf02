"""The rule engine: pure Python, no Qt. Everything the window does goes through here."""
