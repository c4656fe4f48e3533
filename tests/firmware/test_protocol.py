"""The frame codec against the shared vectors and zlib's CRC-32 (an outside implementation)."""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol
from firmware.protocol import Decoder, Frame, decode, encode

VECTORS = json.loads((Path(protocol.__file__).parent / "protocol_vectors.json").read_text())


def test_crc_matches_zlib() -> None:
    rng = random.Random(6)
    for n in range(200):
        data = bytes(rng.randrange(256) for _ in range(n))
        assert protocol.crc32(data) == zlib.crc32(data)
    assert protocol.crc32(b"123456789") == 0xCBF43926


@pytest.mark.parametrize("vector", VECTORS["valid"], ids=lambda v: v["note"])
def test_valid_vectors_decode_and_encode(vector: dict) -> None:
    frame = Frame(vector["seq"], vector["ack"], vector["type"], vector["args"])
    data = vector["frame"].encode()
    assert decode(data) == frame
    assert encode(frame) == data
    body = data[1:].split(b"*")[0]
    assert int(data.split(b"*")[1][:8], 16) == zlib.crc32(body)


@pytest.mark.parametrize("vector", VECTORS["invalid"], ids=lambda v: v["note"])
def test_invalid_vectors_are_refused(vector: dict) -> None:
    data = vector["frame"].encode()
    with pytest.raises(ValueError):
        decode(data)
    decoder = Decoder()
    assert decoder.feed(data) == []
    assert decoder.errors == 1


def test_encode_refuses_bad_fields() -> None:
    with pytest.raises(ValueError):
        encode(Frame(1, 0, "SHOW", ["a|b"]))
    with pytest.raises(ValueError):
        encode(Frame(1, 0, "show"))
    with pytest.raises(ValueError):
        encode(Frame(70000, 0, "AK"))
    with pytest.raises(ValueError):
        encode(Frame(1, 0, "SHOW", ["x" * 200]))


def test_decoder_resynchronises_after_noise_and_cut_frames() -> None:
    frames = [Frame(i, i - 1, "PR", [str(i), "L"]) for i in range(1, 6)]
    wire = b"noise\n" + encode(frames[0]) + encode(frames[1])[:9] + encode(frames[2])
    wire += b"\x00\xff" + encode(frames[3]) + encode(frames[4])
    decoder = Decoder()
    got: list[Frame] = []
    for i in range(0, len(wire), 7):  # arbitrary chunking
        got += decoder.feed(wire[i : i + 7])
    assert got == [frames[0], frames[2], frames[3], frames[4]]
    assert decoder.errors == 1


def test_sequence_numbers_wrap_and_compare() -> None:
    assert protocol.next_seq(65535) == 1
    assert protocol.next_seq(1) == 2
    assert protocol.seq_is_new(1, 65535)
    assert protocol.seq_is_new(5, 0)
    assert not protocol.seq_is_new(5, 5)
    assert not protocol.seq_is_new(4, 5)


ARG = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=126, blacklist_characters="#|*"),
    max_size=12,
)
FRAMES = st.builds(
    Frame,
    st.integers(0, 65535),
    st.integers(0, 65535),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=4),
    st.lists(ARG, max_size=6),
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(FRAMES)
def test_any_frame_round_trips(frame: Frame) -> None:
    assert decode(encode(frame)) == frame


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(FRAMES, min_size=1, max_size=5), st.data())
def test_damaged_stream_yields_only_frames_that_were_sent(frames: list[Frame], data) -> None:
    """Whatever bytes are flipped, dropped or repeated, the decoder returns a subsequence of
    the frames sent, never an invented one (CRC-32)."""
    wire = bytearray(b"".join(encode(f) for f in frames))
    for _ in range(data.draw(st.integers(0, 4))):
        i = data.draw(st.integers(0, len(wire) - 1))
        action = data.draw(st.sampled_from(["flip", "drop", "repeat"]))
        if action == "flip":
            wire[i] ^= 1 << data.draw(st.integers(0, 7))
        elif action == "drop":
            del wire[i]
        else:
            wire.insert(i, wire[i])
        if not wire:
            break
    got = Decoder().feed(bytes(wire))
    it = iter(frames)
    assert all(any(g == f for f in it) for g in got)
