"""The device logic (core plus link) as the host talks to it, byte for byte."""

from __future__ import annotations

import zlib

from firmware import clock_core as cc
from firmware.device import BOOT_ID_BYTES, ClockDevice, boot_id_from
from firmware.protocol import Decoder, Frame, encode


def frames(device: ClockDevice) -> list[Frame]:
    return Decoder().feed(device.link.take_output())  # everything, heard or not


def test_hello_answers_with_identity_and_status() -> None:
    d = ClockDevice(0, boot_id=12)
    d.receive(encode(Frame(0, 0, "HELO", ["77"])), 5)
    got = frames(d)
    assert [f.kind for f in got] == ["HI", "ST"]
    assert got[0].args[:3] == ["1.2.0", "12", "77"]
    assert got[1].args[-1] == "77"


def test_new_session_resets_sequence_numbers_same_session_keeps_them() -> None:
    d = ClockDevice(0, boot_id=1)
    d.receive(encode(Frame(0, 0, "HELO", ["5"])), 0)
    d.receive(encode(Frame(1, 0, "BEEP", ["10"])), 1)
    d.receive(encode(Frame(0, 0, "HELO", ["5"])), 2)  # the same host, reconnecting
    d.receive(encode(Frame(1, 0, "BEEP", ["10"])), 3)  # its resend: a duplicate
    assert d.take_beeps() == [(10, 0, 1)]
    d.receive(encode(Frame(0, 0, "HELO", ["6"])), 4)  # a new host starts from 1
    d.receive(encode(Frame(1, 0, "BEEP", ["20"])), 5)
    assert d.take_beeps() == [(20, 0, 1)]


def test_presses_wait_for_the_host_and_keep_their_timestamps() -> None:
    d = ClockDevice(0, boot_id=1)
    d.button(cc.RIGHT, 1000)
    d.button(cc.LEFT, 4000)
    d.tick(60000)
    assert d.output(60000) == b""  # nobody listening: nothing written
    d.receive(encode(Frame(0, 0, "HELO", ["9"])), 61000)
    d.tick(61000)
    presses = [f for f in frames(d) if f.kind == "PR"]
    assert [(f.args[0], f.args[2]) for f in presses] == [("1", "1000")]
    d.receive(encode(Frame(0, presses[0].seq, "AK")), 61001)
    presses = [f for f in frames(d) if f.kind == "PR"]
    assert [(f.args[0], f.args[2]) for f in presses] == [("2", "4000")]


def test_flag_is_queued_with_its_exact_time() -> None:
    d = ClockDevice(0, boot_id=1)
    d.core.configure_countdown(5000, 0)
    d.core.start(cc.LEFT, 0)
    d.tick(7000)
    flags = [f for f in frames(d) if f.kind == "FL"]
    assert [f.args for f in flags] == [["L", "5000"]]
    assert d.take_beeps() == [(1000, 200, 3)]


def test_bad_command_is_reported_and_acknowledged() -> None:
    d = ClockDevice(0, boot_id=1)
    d.receive(encode(Frame(1, 0, "GO", ["X"])), 0)
    got = frames(d)
    assert [(f.kind, f.ack) for f in got] == [("AK", 1), ("ER", 1)]
    assert got[1].args == ["1", "no such side: 'X'"]
    d.receive(encode(Frame(0, 0, "ST", ["echo"])), 1)  # noise from a loop-back: ignored
    assert frames(d) == []


def test_status_period_depends_on_the_host() -> None:
    d = ClockDevice(0, boot_id=1)
    sent = []
    for t in range(0, 3000, 10):
        d.tick(t)
        sent += [t for f in frames(d) if f.kind == "ST"]
    assert sent == [0, 1000, 2000]  # nobody listening: once a second
    d.receive(encode(Frame(0, 0, "HB")), 3000)
    sent = []
    for t in range(3000, 4000, 10):
        d.tick(t)
        sent += [t for f in frames(d) if f.kind == "ST"]
    assert sent == [3000, 3250, 3500, 3750]


def test_a_boot_id_has_thirty_bits_and_is_never_zero() -> None:
    """Two boots with one id look like one boot to the host, which then drops the new boot's
    first presses as already acted on: the id spans 30 bits (it spanned 16), and 0 (no boot)
    is never drawn."""
    assert boot_id_from(bytes(BOOT_ID_BYTES)) == 1
    assert boot_id_from(b"\xff" * BOOT_ID_BYTES) == (1 << 30) - 1
    assert boot_id_from(b"\x01\x00\x00\x00") == 1 << 24
    assert boot_id_from(b"\x12\x34\x56\x78") == 0x12345678


def test_an_older_hosts_repeated_hello_does_not_acknowledge_a_rebooted_clocks_press() -> None:
    """An older host says HELO with the last number it took from the clock's previous boot,
    and says it again until the HI arrives: that stale ack must not clear this boot's press 1,
    which the host has never seen."""
    d = ClockDevice(0, boot_id=5)
    d.button(cc.LEFT, 10)
    for t in (20, 270):  # the first hello and its repeat (the HI lost or still on its way)
        d.receive(encode(Frame(0, 1, "HELO", ["42"])), t)
        d.tick(t)
    assert d.link.pending is not None and d.link.pending.kind == "PR"
    d.receive(encode(Frame(0, 1, "AK")), 300)  # the host, once it has taken that press
    assert d.link.pending is None


def frame_with_valid_crc(body: str) -> bytes:
    """A frame the codec would never write (its text is not ASCII) but whose CRC is right."""
    data = body.encode()
    return b"#" + data + b"*" + f"{zlib.crc32(data):08X}".encode() + b"\n"


def test_a_frame_with_other_scripts_digits_is_dropped_as_malformed() -> None:
    """An Arabic-Indic one passes str.isdigit() and int() reads it as 1: a GO whose sequence
    number is written so must be dropped and counted like any malformed frame, not
    acted on and acknowledged."""
    d = ClockDevice(0, boot_id=1)
    d.receive(encode(Frame(0, 0, "HELO", ["5"])), 0)
    d.link.take_output()
    d.receive(frame_with_valid_crc("\u0661|0|GO|L"), 10)
    d.receive(frame_with_valid_crc("1|\u00b2|GO|L"), 20)
    assert d.core.state == cc.STATE_HOLD and frames(d) == []
    assert d.link.decoder.errors == 2
    d.receive(encode(Frame(1, 0, "GO", ["L"])), 30)  # the sender's resend, in ASCII
    assert d.core.running == cc.LEFT
