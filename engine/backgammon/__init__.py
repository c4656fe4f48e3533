"""Backgammon (tavla) rules: positions, legal plays, judging, cube, match, records."""
