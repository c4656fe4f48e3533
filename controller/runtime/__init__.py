"""The runtime: camera, stillness gate, readers, referee, clock, LEDs, journal and records
wired together."""
