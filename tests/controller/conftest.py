"""Fixtures the controller tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """gpiozero's mock pins, reset afterwards (the LEDs and buzzer without a Raspberry Pi)."""
    f = MockFactory()
    yield f
    f.reset()
