"""A command the clock refuses (ER) leaves the clock exactly as it was: no half-applied
configuration, and commands that must be sequenced are not acted on when unsequenced."""

from __future__ import annotations

from firmware import clock_core as cc
from firmware.device import ClockDevice
from firmware.protocol import Decoder, Frame, encode

TOO_LONG = str(cc.MAX_TIME_MS + 1)


def snapshot(d: ClockDevice) -> tuple[object, ...]:
    c = d.core
    return (c.mode, c.delay_ms, list(c.start_ms), c.times(0), c.state, c.running)


def test_refused_configuration_changes_nothing() -> None:
    d = ClockDevice(0, boot_id=3)
    d.receive(encode(Frame(0, 0, "HELO", ["9"])), 0)
    before = snapshot(d)
    d.receive(encode(Frame(1, 0, "CFG", ["countdown", TOO_LONG])), 0)
    d.receive(encode(Frame(2, 0, "CFG", ["delay", "5000", TOO_LONG])), 0)
    assert snapshot(d) == before
    errors = [f for f in Decoder().feed(d.link.take_output()) if f.kind == "ER"]
    assert [f.args[0] for f in errors] == ["1", "2"]


def test_unsequenced_command_is_not_acted_on() -> None:
    """Only HELO and Q may come unsequenced; a GO without a sequence number has no
    exactly-once guarantee (a repeat would act twice), so the clock ignores it."""
    d = ClockDevice(0, boot_id=3)
    d.receive(encode(Frame(0, 0, "HELO", ["9"])), 0)
    go = encode(Frame(0, 0, "GO", ["L"]))
    d.receive(go, 10)
    assert d.core.state == cc.STATE_HOLD and d.core.running == cc.NOBODY
    d.receive(encode(Frame(0, 0, "Q", [])), 20)
    assert [f.kind for f in Decoder().feed(d.link.take_output())][-1] == "ST"


def test_checksum_must_be_eight_upper_case_hex_digits() -> None:
    """The spec's checksum form only: int(..., 16) alone also takes ``0x``, ``_``, spaces
    and lower case, so a flipped case bit would pass unnoticed."""
    good = encode(Frame(1, 0, "GO", ["L"]))
    body, crc = good[:-10], good[-9:-1]
    assert len(Decoder().feed(good)) == 1
    for bad in (crc.lower(), b"0x" + crc[2:], b" " + crc[1:], crc[:4] + b"_" + crc[5:]):
        if bad == crc:
            continue
        d = Decoder()
        assert d.feed(body + b"*" + bad + b"\n") == [] and d.errors == 1, bad


def test_resume_with_nothing_held_is_refused_not_ignored() -> None:
    """RES when no turn is held (never started, running, flagged) cannot be carried out: the
    clock acknowledges it and answers ER, as for any other refused command, so the host
    learns it instead of waiting for a turn that never runs; the clock stays as it was."""
    d = ClockDevice(0, boot_id=3)
    d.receive(encode(Frame(0, 0, "HELO", ["9"])), 0)
    d.link.take_output()
    d.receive(encode(Frame(1, 0, "RES", [])), 10)  # on hold since power-on, nothing held
    d.receive(encode(Frame(2, 0, "GO", ["L"])), 20)
    d.receive(encode(Frame(3, 0, "RES", [])), 30)  # running: nothing held either
    got = [f for f in Decoder().feed(d.link.take_output()) if f.kind == "ER"]
    assert [f.args for f in got] == [
        ["1", "nothing held to resume (clock state: hold)"],
        ["3", "nothing held to resume (clock state: run)"],
    ]
    assert d.core.state == cc.STATE_RUN and d.core.running == cc.LEFT
    d.receive(encode(Frame(4, 0, "HOLD", [])), 40)
    d.receive(encode(Frame(5, 0, "RES", [])), 50)  # a held turn resumes as before
    assert [f.kind for f in Decoder().feed(d.link.take_output()) if f.kind == "ER"] == []
    assert d.core.state == cc.STATE_RUN and d.core.running == cc.LEFT
