"""A context manager whose exit closes it: the one ``with`` protocol of the table's devices
and files (the clock link, the LEDs, the journal, the demo's harness)."""

from __future__ import annotations

from typing import Self


class ClosedOnExit:
    """``with thing:`` closes it on the way out, however the block ends; ``close`` must be
    safe to call twice (the block may close it first)."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
