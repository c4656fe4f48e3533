"""The dice benchmark's stage clock (``tests.bench.stages``): each stage counts its own time
(a stage inside another is taken out of it), a generator's steps count to its stage, the rest
is what no stage holds, and leaving restores the reader's own functions. Time here is a fake
clock the stand-in stages move on, so nothing depends on the machine's speed."""

from __future__ import annotations

import types
from collections.abc import Iterator

import pytest

from tests.bench import stages
from tests.bench.stages import STAGES, StageClock


def _reader(clock: list[float]) -> types.ModuleType:
    """A stand-in for ``vision.dice.board``: every stage function, each moving the clock on by
    a known time (seconds), the second chance calling a face fit inside it."""
    module = types.ModuleType("fake_board")

    def spend(ms: float) -> None:
        clock[0] += ms / 1000.0

    def candidates(*_: object) -> Iterator[int]:
        for k in range(3):
            spend(1.0)  # 1 ms a step
            yield k

    def second_chance(*_: object) -> None:
        spend(4.0)
        module.read_candidate()  # looked up as the reader does, at call time

    for names in STAGES.values():
        for name in names:
            setattr(module, name, lambda *_a, **_k: spend(0.0))
    module.hybrid_candidates = candidates
    module.read_candidate = lambda *_a: spend(2.0)
    module.give_second_chance = second_chance
    module.on_checker = lambda *_a: spend(0.5)
    return module


def test_each_stage_counts_its_own_time(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    monkeypatch.setattr(stages.time, "thread_time", lambda: now[0])
    module = _reader(now)
    own = {name: getattr(module, name) for names in STAGES.values() for name in names}

    def read() -> None:
        for _ in module.hybrid_candidates():
            module.read_candidate()
        module.give_second_chance()
        module.on_checker()
        now[0] += 0.25 / 1000.0  # the loop's own work: no stage's

    clock = StageClock(module)
    with clock:
        clock.run(read)
        with pytest.raises(RuntimeError):
            clock.__enter__()
    clock.__exit__(None, None, None)  # left twice: nothing more to restore
    assert clock.reads == 1
    assert clock.ms["candidates"] == pytest.approx(3.0)
    assert clock.ms["face fit"] == pytest.approx(3 * 2.0 + 2.0)  # the one inside counts here
    assert clock.ms["second chances"] == pytest.approx(4.0)  # ... not here
    assert clock.ms["on checker"] == pytest.approx(0.5)
    assert clock.total == pytest.approx(3.0 + 8.0 + 4.0 + 0.5 + 0.25)
    assert clock.rest == pytest.approx(0.25)
    assert all(getattr(module, name) is fn for name, fn in own.items())
