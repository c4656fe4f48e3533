"""Frame codec of the clock link, shared by the Pico firmware and the host.

One frame is one ASCII line ``#SEQ|ACK|TYPE|ARG...*CRC`` ended by ``\\n``: SEQ is the sender's
sequence number (1..65535, 0 for frames that are not acknowledged), ACK the last sequence number
accepted from the peer, CRC the CRC-32 (zlib's) of the bytes between ``#`` and ``*`` in eight
upper-case hex digits. Written in the subset of Python that MicroPython and CPython share: no
typing imports, no f-strings, no dataclasses (hardware_docs/serial-protocol.md is the spec).
"""

START = b"#"
END = b"\n"
CRC_MARK = b"*"
SEP = "|"
MAX_FRAME = 160  # bytes from '#' to '\n' inclusive
SEQ_MAX = 65535  # sequence numbers run 1..SEQ_MAX and wrap to 1; 0 means "not sequenced"
FORBIDDEN = "#|*"


def _crc_table() -> "list[int]":
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (0xEDB88320 ^ (c >> 1)) if c & 1 else (c >> 1)
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32(data: bytes) -> int:
    """CRC-32 as zlib computes it (reflected polynomial 0xEDB88320), table driven."""
    c = 0xFFFFFFFF
    table = _TABLE
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def hex8(value: int) -> str:
    """Eight upper-case hex digits."""
    digits = "0123456789ABCDEF"
    out = ""
    for shift in (28, 24, 20, 16, 12, 8, 4, 0):
        out += digits[(value >> shift) & 15]
    return out


def next_seq(seq: int) -> int:
    """The sequence number after ``seq`` (1..SEQ_MAX, skipping 0)."""
    return 1 if seq >= SEQ_MAX else seq + 1


def seq_is_new(seq: int, last: int) -> bool:
    """True when ``seq`` comes after ``last`` (0: nothing accepted yet) in the wrapping space."""
    if last == 0:
        return True
    d = (seq - last) % SEQ_MAX
    return 0 < d <= SEQ_MAX // 2


class Frame:
    """One decoded frame: sequence number, acknowledgement, type and text arguments."""

    def __init__(self, seq: int, ack: int, kind: str, args: "list[str] | None" = None) -> None:
        self.seq = seq
        self.ack = ack
        self.kind = kind
        self.args = list(args) if args else []

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return False
        return (self.seq, self.ack, self.kind, self.args) == (
            other.seq,
            other.ack,
            other.kind,
            other.args,
        )

    def __repr__(self) -> str:
        return (
            "Frame("
            + ", ".join([str(self.seq), str(self.ack), repr(self.kind), repr(self.args)])
            + ")"
        )


def _check_number(value: int, name: str) -> None:
    if value < 0 or value > SEQ_MAX:
        raise ValueError(name + " out of range 0.." + str(SEQ_MAX) + ": " + str(value))


def _check_kind(kind: str) -> None:
    if not kind or len(kind) > 4:
        raise ValueError("frame type must be 1 to 4 letters: " + repr(kind))
    for ch in kind:
        if ch < "A" or ch > "Z":
            raise ValueError("frame type must be upper-case letters: " + repr(kind))


def _check_arg(arg: str) -> None:
    for ch in arg:
        if ch < " " or ch > "~" or ch in FORBIDDEN:
            raise ValueError("character not allowed in a frame argument: " + repr(arg))


def encode(frame: Frame) -> bytes:
    """The bytes of one frame, ``#`` to ``\\n``; raises ValueError on a bad field."""
    _check_number(frame.seq, "seq")
    _check_number(frame.ack, "ack")
    _check_kind(frame.kind)
    parts = [str(frame.seq), str(frame.ack), frame.kind]
    for arg in frame.args:
        _check_arg(arg)
        parts.append(arg)
    body = SEP.join(parts).encode()
    data = START + body + CRC_MARK + hex8(crc32(body)).encode() + END
    if len(data) > MAX_FRAME:
        raise ValueError("frame longer than " + str(MAX_FRAME) + " bytes: " + str(len(data)))
    return data


def is_digits(text: str) -> bool:
    """True for one or more ASCII digits 0-9 and nothing else. str.isdigit() would also take
    '²' or Arabic-Indic digits, which int() then reads as numbers the sender never wrote."""
    return len(text) > 0 and all("0" <= ch <= "9" for ch in text)


def _parse_number(text: str, name: str) -> int:
    if len(text) > 5 or not is_digits(text):
        raise ValueError("bad " + name + " field: " + repr(text))
    value = int(text)
    _check_number(value, name)
    return value


def decode_body(body: bytes) -> Frame:
    """Parse what lies between ``#`` and ``\\n``; raises ValueError (checksum, syntax)."""
    mark = body.rfind(CRC_MARK)
    if mark < 0:
        raise ValueError("frame without checksum")
    text = body[mark + 1 :]
    payload = body[:mark]
    if len(text) != 8:
        raise ValueError("checksum must be 8 hex digits")
    if text != hex8(crc32(payload)).encode():
        raise ValueError("checksum mismatch")
    for b in payload:
        if b < 0x20 or b > 0x7E:  # the spec's frames are printable ASCII only
            raise ValueError("byte outside printable ascii in frame: " + hex(b))
    fields = payload.decode().split(SEP)
    if len(fields) < 3:
        raise ValueError("frame needs seq, ack and type")
    seq = _parse_number(fields[0], "seq")
    ack = _parse_number(fields[1], "ack")
    _check_kind(fields[2])
    args = fields[3:]
    for arg in args:
        _check_arg(arg)
    return Frame(seq, ack, fields[2], args)


def decode(data: bytes) -> Frame:
    """Decode exactly one whole frame ``#...\\n``; raises ValueError."""
    if len(data) < 2 or data[:1] != START or data[-1:] != END:
        raise ValueError("a frame starts with '#' and ends with a newline")
    return decode_body(data[1:-1])


class Decoder:
    """Splits a byte stream into frames; noise, truncated and corrupted frames are counted."""

    def __init__(self) -> None:
        self._buf = b""
        self.errors = 0

    def feed(self, data: bytes) -> "list[Frame]":
        """Add received bytes; return the frames they complete, in order."""
        buf = self._buf + bytes(data)
        frames = []
        while True:
            start = buf.find(START)
            if start < 0:
                buf = b""
                break
            end = buf.find(END, start + 1)
            again = buf.find(START, start + 1)
            if again >= 0 and (end < 0 or again < end):
                self.errors += 1  # a frame cut short: resynchronise on the next '#'
                buf = buf[again:]
                continue
            if end < 0:
                buf = buf[start:]
                if len(buf) > MAX_FRAME:
                    self.errors += 1
                    buf = b""
                break
            body = buf[start + 1 : end]
            buf = buf[end + 1 :]
            if len(body) + 2 > MAX_FRAME:
                self.errors += 1
                continue
            try:
                frames.append(decode_body(body))
            except ValueError:
                self.errors += 1
        self._buf = buf
        return frames
