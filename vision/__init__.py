"""Vision: frames in, board readings with probabilities out. Never imports engine rules or
controller (only ``engine.errors`` for the shared exception tree).

Modules, one per stage:

- ``sources``: frame sources (picamera2 on a Pi, OpenCV ``VideoCapture``, image folders).
- ``stillness``: the motion gate; only still frames are read.
- ``geometry``: the board model in millimetres, image slot order, canonical rasters.
- ``calibration``: corners by hand or from the four ArUco markers (``markers`` prints them).
- ``checkers``: disc evidence along every column and the bar; column hypotheses with
  probabilities (stacks laid over a full column included).
- ``occlusion``: hands and arms over the board; which slots are hidden.
- ``board_reader``: the reading behind ``hakem vision read`` (DESIGN.md JSON).
- ``scoring``: how well a hypothesis (counts per slot) explains a reading, for the referee.
- ``render``: the synthetic scene renderer (deterministic by seed) with props for dice/cube.
- ``overlay``: annotated pictures for ``hakem vision calibrate``.
- ``config``: every threshold, typed (``[vision]`` in a table's TOML file).
"""

import os

# One OpenBLAS thread, as ``controller`` sets it (see there why), for the tools that import the
# vision package first (``tests.eval``, ``tests.bench``, ``hakem vision`` run as a module): it must
# come before numpy loads OpenBLAS, and else their dice networks ran on spinning threads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

