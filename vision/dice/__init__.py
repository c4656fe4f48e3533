"""Dice vision: find dice, read their upward faces, judge how they rest, render them as props."""
