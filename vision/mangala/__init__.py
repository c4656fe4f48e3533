"""Mangala vision: the board's geometry, a renderer of boards and stones, and the stone reader.

``geometry`` (cells and calibration), ``render`` (synthetic frames), ``reader`` (a probability
per stone count for each of the 14 cells, and how well a hypothesis explains a frame).
"""
