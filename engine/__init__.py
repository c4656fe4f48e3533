"""Rules engines for the table referee: pure Python, no I/O, no clock, no randomness of its own."""
