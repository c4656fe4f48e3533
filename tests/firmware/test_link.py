"""The reliable link on its own: two ends, a lossy byte pipe between them, integer time."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.link import Link
from firmware.protocol import Decoder


def pump(a: Link, b: Link, now: int, lose: float = 0.0, rng: random.Random | None = None) -> list:
    """One exchange: polls both, carries bytes (whole writes lost at rate ``lose``)."""
    got = []
    a.poll(now)
    b.poll(now)
    for src, dst, tag in ((a, b, "b"), (b, a, "a")):
        data = src.take_output()
        if data and rng is not None and rng.random() < lose:
            continue
        got += [(tag, f.kind, f.args) for f in dst.receive(data, now)]
    return got


def test_in_order_exactly_once_despite_losses() -> None:
    rng = random.Random(1)
    a, b = Link(0), Link(0)
    for i in range(50):
        a.send("PR", [str(i)])
    delivered = []
    for t in range(0, 200000, 10):
        delivered += [args[0] for tag, kind, args in pump(a, b, t, 0.3, rng) if kind == "PR"]
        if a.backlog() == 0:
            break
    assert delivered == [str(i) for i in range(50)]
    assert a.resent > 0 and b.duplicates > 0


def test_duplicate_frame_is_acknowledged_again_but_not_delivered() -> None:
    a, b = Link(0), Link(0)
    a.send("GO", ["L"])
    a.poll(0)
    frame = a.take_output()
    assert [f.kind for f in b.receive(frame, 1)] == ["GO"]
    b.take_output()
    assert b.receive(frame, 2) == []
    ack = Decoder().feed(b.take_output())
    assert [(f.kind, f.ack) for f in ack] == [("AK", 1)]


def test_heartbeat_and_timeout() -> None:
    a, b = Link(0), Link(0)
    a.poll(249)
    assert a.take_output() == b""
    a.poll(250)
    beat = a.take_output()
    assert b"|HB*" in beat
    assert b.receive(beat, 250) == []  # heartbeats are not delivered
    assert b.connected(1249) and not b.connected(1250)


def test_paused_end_ignores_sequenced_frames_until_released() -> None:
    a, b = Link(0), Link(0)
    a.send("PR", ["1"])
    a.poll(0)
    frame = a.take_output()
    b.paused = True
    assert b.receive(frame, 1) == [] and b.take_output() == b""
    b.paused = False
    assert [f.args for f in b.receive(frame, 2)] == [["1"]]


def test_resend_is_slower_while_the_peer_is_silent() -> None:
    a = Link(0)
    a.send("PR", ["1"])
    a.poll(0)
    a.take_output()
    a.poll(499)
    assert b"|PR|" not in a.take_output()
    a.poll(500)
    assert b"|PR|" in a.take_output()


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["ok", "lose", "repeat", "lose-back"]), min_size=50, max_size=300))
def test_any_loss_pattern_delivers_in_order_exactly_once(pattern: list[str]) -> None:
    """Each exchange's bytes may be lost, repeated, or the answer lost; whatever the pattern,
    what arrives is the queue, in order, once, as soon as the line works again."""
    a, b = Link(0), Link(0)
    for i in range(5):
        a.send("PR", [str(i)])
    delivered: list[str] = []
    t = 0
    for fault in [*pattern, *["ok"] * 60]:
        t += 20
        a.poll(t)
        b.poll(t)
        forward = a.take_output()
        if fault == "lose":
            forward = b""
        elif fault == "repeat":
            forward += forward
        delivered += [f.args[0] for f in b.receive(forward, t) if f.kind == "PR"]
        back = b.take_output()
        if fault != "lose-back":
            a.receive(back, t)
    assert delivered == ["0", "1", "2", "3", "4"]
    assert a.backlog() == 0
