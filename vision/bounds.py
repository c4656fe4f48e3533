"""Range checks for the numbers of the vision configuration, run when a section is built.

A number out of its range does not fail where it is read: a negative marker size reaches
OpenCV, a zero downscale divides by zero, a zero ``max_count`` reads every board empty and
sure. So each configuration dataclass checks its fields in ``__post_init__`` against the
:class:`Bound` of each field, and a bad value is a :class:`ConfigError` naming the full key
(``vision.<section>.<field>``) and the value, whether it came from a TOML file or from code.

Only ``engine.errors`` is imported, so ``vision.geometry`` (numpy only) may use it too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from engine.errors import ConfigError


@dataclass(frozen=True)
class Bound:
    """The range a number may take: ``low`` to ``high``; ``low`` itself refused when
    ``open_low`` (a size, scale or divisor of 0); ``unit`` follows the number in messages."""

    low: float
    high: float
    open_low: bool = False
    unit: str = ""

    def admits(self, value: float) -> bool:
        """True when the value is finite and within the range."""
        if not math.isfinite(value) or value > self.high:
            return False
        return value > self.low if self.open_low else value >= self.low

    def describe(self) -> str:
        """The range in words, for the message that refuses a value."""
        unit = f" {self.unit}" if self.unit else ""
        if isinstance(self.low, int) and isinstance(self.high, int):
            return f"an integer from {self.low} to {self.high}{unit}"
        if self.low == 0.0 and self.open_low:
            of = f" of {self.unit}" if self.unit else ""
            return f"a positive finite number{of} (at most {self.high:g}{unit})"
        if self.open_low:
            return f"a finite number above {self.low:g} and at most {self.high:g}{unit}"
        return f"a finite number from {self.low:g} to {self.high:g}{unit}"


# Ranges used by several sections.
SHARE = Bound(0.0, 1.0)  # a fraction or a probability
POSITIVE = Bound(0.0, 1e4, open_low=True)  # a scale, width or divisor
NON_NEGATIVE = Bound(0.0, 1e4)  # a threshold or weight that may be switched off with 0
# Distances counted in checker diameters: a board is about 13 across, so 100 is "everywhere"
# (a larger one would only build enormous masks).
CHECKERS = Bound(0.0, 100.0, unit="checker diameters")
GREY = Bound(0.0, 255.0, unit="grey levels")
# A corner coordinate beyond this many pixels lies outside any camera's picture (hand-given
# corners and the configuration's ``vision.corners``).
MAX_CORNER_PX = 100_000.0


def _bad(key: str, bound: Bound, value: Any) -> ConfigError:
    return ConfigError(f"{key} must be {bound.describe()}, not {value!r}")


def _check_number(key: str, value: Any, bound: Bound) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{key} must be a number, not {value!r}")
    if not bound.admits(float(value)):
        raise _bad(key, bound, value)


def check_fields(obj: Any, section: str, bounds: Mapping[str, Bound],
                 default: Bound = NON_NEGATIVE) -> None:
    """Check every number (and every number of a tuple) of dataclass ``obj`` against its
    field's bound (``default`` for a field not listed); ``None`` (not set) passes.
    ``section`` is the key's prefix, e.g. ``vision.checkers``."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        if value is None or isinstance(value, bool) or hasattr(value, "__dataclass_fields__"):
            continue
        key = f"{section}.{f.name}"
        bound = bounds.get(f.name, default)
        if isinstance(value, tuple):
            for item in value:
                number = isinstance(item, int | float) and not isinstance(item, bool)
                if not number or not bound.admits(float(item)):
                    raise ConfigError(f"each number of {key} must be {bound.describe()}, "
                                      f"not {value!r}")
        elif isinstance(value, int | float):
            _check_number(key, value, bound)


def check_length(obj: Any, section: str, name: str, length: int) -> None:
    """A tuple field of ``obj`` (when set) must hold exactly ``length`` numbers."""
    value = getattr(obj, name)
    if value is not None and len(value) != length:
        raise ConfigError(f"{section}.{name} must hold {length} numbers, not {value!r}")


def check_order(obj: Any, section: str, low: str, high: str) -> None:
    """Field ``low`` of ``obj`` must be below field ``high`` (a range's two ends)."""
    a, b = getattr(obj, low), getattr(obj, high)
    if not a < b:
        raise ConfigError(f"{section}.{low} must be below {section}.{high} ({b!r}), not {a!r}")


__all__ = ["CHECKERS", "GREY", "MAX_CORNER_PX", "NON_NEGATIVE", "POSITIVE", "SHARE", "Bound",
           "check_fields", "check_length", "check_order"]
