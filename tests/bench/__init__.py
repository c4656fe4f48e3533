"""Benchmarks, run as ``python -m tests.bench.<name>``."""

# the table's BLAS setting (one thread, see ``controller``), taken before any bench loads numpy
import controller  # noqa: F401
