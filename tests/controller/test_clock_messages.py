"""The host codec against the shared test vectors (the same file the firmware tests check)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import firmware
from controller.clock import messages as m
from engine.errors import ProtocolError
from firmware.protocol import Decoder, Frame, decode

VECTORS = json.loads((Path(firmware.__file__).parent / "protocol_vectors.json").read_text())
KINDS = {
    "hello": m.Hello,
    "status": m.Status,
    "press": m.PressEvent,
    "flag": m.FlagEvent,
    "error": m.ErrorReport,
}


@pytest.mark.parametrize(
    "vector", [v for v in VECTORS["valid"] if "message" in v], ids=lambda v: v["note"]
)
def test_clock_frames_become_typed_messages(vector: dict) -> None:
    expected = dict(vector["message"])
    cls = KINDS[expected.pop("kind")]
    message = m.parse_message(decode(vector["frame"].encode()))
    assert type(message) is cls
    fields = dataclasses.asdict(message)
    if cls in (m.PressEvent, m.FlagEvent):
        del fields["boot"]  # filled in by the host, not on the wire
    fields = {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}
    assert fields == expected


def _command_vector(kind: str, args: list[str]) -> dict:
    return next(v for v in VECTORS["valid"] if v["type"] == kind and v["args"] == args)


def test_host_commands_match_the_vectors() -> None:
    for command in (
        m.configure_delay(12000, 840000),
        m.configure_countdown(900000),
        m.set_times(600000, 599500),
        m.start("left"),
        m.HOLD,
        m.RESUME,
        m.RESET,
        m.beep(100, 50, 3),
        m.show("SET 2", 2000),
    ):
        vector = _command_vector(*command)
        frame = decode(vector["frame"].encode())
        assert (frame.kind, frame.args) == command


def test_invalid_vectors_never_reach_the_host() -> None:
    decoder = Decoder()
    for vector in VECTORS["invalid"]:
        assert decoder.feed(vector["frame"].encode()) == []
    assert decoder.errors == len(VECTORS["invalid"])


def test_malformed_fields_are_protocol_errors() -> None:
    with pytest.raises(ProtocolError, match="bad side"):
        m.parse_message(Frame(0, 0, "ST", ["1", "delay", "run", "X", "1", "1", "0", "0", "-", "1"]))
    with pytest.raises(ProtocolError, match="need 8"):
        m.parse_message(Frame(3, 0, "PR", ["1"]))
    with pytest.raises(ProtocolError, match="bad mode"):
        m.parse_message(Frame(0, 0, "HI", ["1", "2", "3", "blitz", "0", "0"]))
    assert m.parse_message(Frame(0, 0, "ZZ")) is None


def test_bad_commands_are_refused_before_sending() -> None:
    with pytest.raises(ProtocolError):
        m.start("middle")  # type: ignore[arg-type]
    with pytest.raises(ProtocolError):
        m.show("a|b", 100)
    with pytest.raises(ProtocolError):
        m.configure_delay(-5, 1000)
    with pytest.raises(ProtocolError):
        m.beep(100, 0, 0)


@pytest.mark.parametrize("digits", ["\u0663", "\u00b2", "\uff11", "", "1 "])
def test_numbers_are_ascii_digits_only(digits: str) -> None:
    """int() reads Arabic-Indic and full-width digits as numbers; the clock writes ASCII 0-9
    only, so anything else in a number field is a bad message, not a time."""
    with pytest.raises(ProtocolError, match="bad flag time"):
        m.parse_message(Frame(0, 0, "FL", ["L", digits]))
