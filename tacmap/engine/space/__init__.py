"""Space: the grid and its diagonals, walls and sight, moves, templates, the ruler."""
