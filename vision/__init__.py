"""Vision: frames in, board readings with probabilities out. Never imports engine rules or controller."""
