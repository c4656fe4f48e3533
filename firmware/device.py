"""The clock as a device: the core, the link to the host, displays and buzzer requests.

Pure like the core: ``main.py`` feeds it button presses, received bytes and the time, and
carries its output (bytes to write, display texts, beeps) to the hardware; the host-side
simulator feeds it the same way. It keeps running with no host and queues every press and
flag until the host acknowledges it (hardware_docs/serial-protocol.md lists the messages).
"""

from firmware import clock_core as core
from firmware.link import Link
from firmware.protocol import Frame, is_digits

FIRMWARE_VERSION = "1.2.0"
STATUS_MS = 250  # status period while a host listens (it doubles as the heartbeat)
IDLE_STATUS_MS = 1000  # and while nobody listens
MAX_BEEP_MS = 5000
SIDE_NAMES = ("L", "R")
BUTTON_NAMES = ("L", "R", "H")
UNSEQUENCED = ("HELO", "Q")  # the only commands acted on without a sequence number


BOOT_ID_BYTES = 4


def boot_id_from(random_bytes: bytes) -> int:
    """A boot id from ``BOOT_ID_BYTES`` random bytes: 30 bits (a MicroPython small int), never
    0. Two boots drawing the same id would look like one to the host, which would then drop
    the new boot's first presses as already acted on: 1 in about 10**9, not 1 in 65,535."""
    value = 0
    for b in random_bytes[:BOOT_ID_BYTES]:
        value = value << 8 | b
    return (value & 0x3FFFFFFF) or 1


def side_name(side: int) -> str:
    """``L``, ``R`` or ``-`` for nobody."""
    return SIDE_NAMES[side] if side >= 0 else "-"


def parse_side(text: str) -> int:
    """``L``/``R`` to LEFT/RIGHT; raises ValueError."""
    if text == "L":
        return core.LEFT
    if text == "R":
        return core.RIGHT
    raise ValueError("no such side: " + repr(text))


def _int(text: str, name: str) -> int:
    if not is_digits(text):
        raise ValueError(name + " is not a number: " + repr(text))
    return int(text)


class ClockDevice:
    """The firmware's whole behaviour; the hardware layer only moves bytes, pins and time."""

    def __init__(self, now_ms: int, boot_id: int) -> None:
        self.core = core.ClockCore(now_ms)
        self.link = Link(now_ms)
        # Acks count only once a host has said hello to this boot: a host that has not yet
        # noticed a reboot acks the old boot's sequence numbers (serial-protocol.md, Boot id).
        self.link.take_acks = False
        self.boot_id = boot_id
        self.session = 0
        self.last_status_ms = -(1 << 30)
        self.beeps = []  # type: list[tuple[int, int, int]]
        self.message = ""
        self.message_until_ms = -1
        self.errors = 0

    # inputs --------------------------------------------------------------------------------
    def button(self, button: int, now_ms: int) -> core.Press:
        """A debounced press of LEFT, RIGHT or HOLD_BUTTON at ``now_ms``: acted on at once."""
        self._flag_check(now_ms)
        press = self.core.press(button, now_ms)
        self._flag_check(now_ms)
        self.link.send(
            "PR",
            [
                str(press.number),
                BUTTON_NAMES[press.button],
                str(press.t_ms),
                side_name(press.running),
                str(press.times[0]),
                str(press.times[1]),
                str(press.delay_left),
                press.state,
            ],
        )
        self.link.poll(now_ms)
        return press

    def receive(self, data: bytes, now_ms: int) -> None:
        """Bytes from the host."""
        self._flag_check(now_ms)
        for frame in self.link.decoder.feed(data):
            if frame.kind == "HELO":
                frame.ack = 0  # acks nothing: an older host's names the old boot's number
            if not self.link.accept(frame, now_ms):
                continue
            if frame.seq == 0 and frame.kind not in UNSEQUENCED:
                self.errors += 1  # no exactly-once for it: an echo, a stray or foreign frame
                continue
            try:
                self._command(frame, now_ms)
            except (ValueError, IndexError) as exc:
                self.errors += 1
                if frame.seq != 0:
                    self.link.send_now("ER", [str(frame.seq), _safe(str(exc))], now_ms)
        self._flag_check(now_ms)

    def tick(self, now_ms: int) -> None:
        """Let time pass: flag fall, resends, heartbeat and the periodic status."""
        self._flag_check(now_ms)
        period = STATUS_MS if self.link.connected(now_ms) else IDLE_STATUS_MS
        if now_ms - self.last_status_ms >= period:
            self._status(now_ms)
        self.link.poll(now_ms)

    def output(self, now_ms: int) -> bytes:
        """Bytes to write to the host. Nothing while no host has been heard for a second: the
        link resends once one says hello, and a USB write waiting for an absent host can never
        delay reading the buttons."""
        data = self.link.take_output()
        return data if self.host_present(now_ms) else b""

    # outputs for the hardware layer -----------------------------------------------------------
    def display(self, now_ms: int) -> "tuple[str, str]":
        """What the two displays show: a message from the host, or both times."""
        if self.message and now_ms < self.message_until_ms:
            text = self.message + "        "
            return text[:4], text[4:8]
        times = self.core.times(now_ms)
        return core.format_time(times[0]), core.format_time(times[1])

    def take_beeps(self) -> "list[tuple[int, int, int]]":
        """Buzzer requests (on ms, off ms, count) since the last call."""
        beeps = self.beeps
        self.beeps = []
        return beeps

    def host_present(self, now_ms: int) -> bool:
        """True while the host has been heard within the link's timeout."""
        return self.link.connected(now_ms)

    # internals -----------------------------------------------------------------------------
    def _flag_check(self, now_ms: int) -> None:
        side = self.core.update(now_ms)
        if side != core.NOBODY:
            self.link.send("FL", [side_name(side), str(self.core.flag_ms)])
            self.beeps.append((1000, 200, 3))

    def _status(self, now_ms: int) -> None:
        c = self.core
        times = c.times(now_ms)
        self.link.send_now(
            "ST",
            [
                str(now_ms),
                c.mode,
                c.state,
                side_name(c.running),
                str(times[0]),
                str(times[1]),
                str(c.delay_left),
                str(c.presses),
                side_name(c.flagged),
                str(self.session),
            ],
            now_ms,
        )
        self.last_status_ms = now_ms

    def _hello(self, now_ms: int) -> None:
        c = self.core
        self.link.send_now(
            "HI",
            [
                FIRMWARE_VERSION,
                str(self.boot_id),
                str(self.session),
                c.mode,
                str(c.delay_ms),
                str(c.start_ms[0]),
            ],
            now_ms,
        )

    def _command(self, frame: Frame, now_ms: int) -> None:
        kind = frame.kind
        args = frame.args
        c = self.core
        if kind == "HELO":
            session = _int(args[0], "session")
            if session != self.session:
                # A new host: its sequence numbers start afresh. Presses not yet acknowledged
                # stay queued and go to the new host.
                self.session = session
                self.link.reset_rx()
            self.link.take_acks = True
            self.link.resend_soon()
            self._hello(now_ms)
            self._status(now_ms)
        elif kind == "Q":
            self._status(now_ms)
        elif kind == "CFG":
            if args[0] == core.MODE_DELAY:
                c.configure_delay(_int(args[1], "delay"), _int(args[2], "reserve"), now_ms)
            elif args[0] == core.MODE_COUNTDOWN:
                c.configure_countdown(_int(args[1], "time"), now_ms)
            else:
                raise ValueError("no such mode: " + repr(args[0]))
            self._status(now_ms)
        elif kind == "SET":
            c.set_times(_int(args[0], "left time"), _int(args[1], "right time"), now_ms)
            self._status(now_ms)
        elif kind == "RST":
            c.reset(now_ms)
            self._status(now_ms)
        elif kind == "GO":
            c.start(parse_side(args[0]), now_ms)
            self._status(now_ms)
        elif kind == "HOLD":
            c.hold(now_ms)
            self._status(now_ms)
        elif kind == "RES":
            if not c.resume(now_ms):  # running, never started or flagged: say so (ER)
                raise ValueError("nothing held to resume (clock state: " + c.state + ")")
            self._status(now_ms)
        elif kind == "BEEP":
            on = _int(args[0], "beep length")
            off = _int(args[1], "beep pause") if len(args) > 1 else 0
            count = _int(args[2], "beep count") if len(args) > 2 else 1
            if on > MAX_BEEP_MS or off > MAX_BEEP_MS or count < 1 or count > 10:
                raise ValueError("beep out of range")
            self.beeps.append((on, off, count))
        elif kind == "SHOW":
            self.message = args[0][:8]
            self.message_until_ms = now_ms + _int(args[1], "show time")
        else:
            raise ValueError("unknown command: " + kind)


def _safe(text: str) -> str:
    out = ""
    for ch in text:
        out += "_" if ch < " " or ch > "~" or ch in "#|*" else ch
    return out[:60]
