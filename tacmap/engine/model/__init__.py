"""Records and state: typed records, the encounter and its tokens, commands, events."""
