"""The match clock's MicroPython program; its pure core also runs on CPython (tests, simulator)."""
