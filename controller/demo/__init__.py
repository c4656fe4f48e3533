"""The demo: a real match played by simulated players in front of the full referee pipeline."""
