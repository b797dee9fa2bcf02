"""Files: encounter files, the roster, Universal VTT maps, map images, the report."""
