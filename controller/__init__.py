"""The table: referee state machine, runtime, hardware adapters, configuration and command line."""

import os

# The table's matrix products are small (the dice networks' layers, a few hundred rows at most):
# OpenBLAS spreads such a product over its threads, which wake and spin for it at a cost above
# what they save, and far above it while another process holds a core (the reading thread
# spins on them: the dice networks took 1.2 ms a still frame on the demo's recording, not 0.2).
# One thread, unless the environment says otherwise; this must come before numpy loads OpenBLAS,
# so the table's processes import this package first (``hakem``: ``controller.cli``). Readings
# are the same either way (tests.bench.digest).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
