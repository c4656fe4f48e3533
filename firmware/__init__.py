"""The match clock's MicroPython program; its pure core also runs on CPython for tests and the simulator."""
