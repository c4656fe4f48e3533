"""One end of the reliable clock link: sequence numbers, acks, resends and heartbeats.

Stop-and-wait: one sequenced frame is in flight at a time and is resent until the peer's ACK
field names it; the receiver accepts each sequence number once and acknowledges duplicates
again. Every frame carries the latest ACK, and an idle end sends a heartbeat, so a lost ACK is
repaired by the next frame and a silent peer is noticed within ``timeout_ms``. Pure: the caller
passes the time in milliseconds and moves the bytes; the firmware and the host both use it.
"""

from firmware.protocol import Decoder, Frame, encode, next_seq, seq_is_new

ACK = "AK"
HEARTBEAT = "HB"


class Link:
    """Reliable delivery over a byte stream that may corrupt, drop or repeat bytes."""

    def __init__(
        self,
        now_ms: int,
        resend_ms: int = 100,
        idle_resend_ms: int = 500,
        heartbeat_ms: int = 250,
        timeout_ms: int = 1000,
    ) -> None:
        self.resend_ms = resend_ms
        self.idle_resend_ms = idle_resend_ms
        self.heartbeat_ms = heartbeat_ms
        self.timeout_ms = timeout_ms
        self.decoder = Decoder()
        self.tx_seq = 0
        self.pending = None  # type: Frame | None
        self.pending_sent_ms = -1
        self.queue = []  # type: list[tuple[str, list[str]]]
        self.rx_last = 0
        self.last_rx_ms = -1
        self.last_tx_ms = now_ms
        self.paused = False
        self.take_acks = True  # False: ACK fields are ignored (a peer not yet identified)
        self._out = []  # type: list[bytes]
        self.sent = 0
        self.resent = 0
        self.duplicates = 0

    # sending -------------------------------------------------------------------------------
    def send(self, kind: str, args: "list[str] | None" = None) -> None:
        """Queue a frame for reliable, in-order, exactly-once delivery."""
        self.queue.append((kind, list(args) if args else []))

    def send_now(self, kind: str, args: "list[str] | None", now_ms: int) -> None:
        """Send an unsequenced frame (status, heartbeat, hello): no ack, no resend."""
        self._write(Frame(0, self.rx_last, kind, args), now_ms)

    def send_hello(self, kind: str, args: "list[str] | None", now_ms: int) -> None:
        """Send an unsequenced frame with ACK 0: a hello may reach a peer that rebooted and
        reuses the sequence number ``rx_last`` names, which a stale ack would wrongly clear."""
        self._write(Frame(0, 0, kind, args), now_ms)

    def _write(self, frame: Frame, now_ms: int) -> None:
        self._out.append(encode(frame))
        self.last_tx_ms = now_ms

    def _send_next(self, now_ms: int) -> None:
        if self.pending is None and self.queue and not self.paused:
            kind, args = self.queue.pop(0)
            self.tx_seq = next_seq(self.tx_seq)
            self.pending = Frame(self.tx_seq, 0, kind, args)
            self._transmit_pending(now_ms)

    def _transmit_pending(self, now_ms: int) -> None:
        frame = self.pending
        if frame is None:
            return
        frame.ack = self.rx_last
        self._write(frame, now_ms)
        self.pending_sent_ms = now_ms
        self.sent += 1

    def resend_soon(self) -> None:
        """Resend the frame in flight at the next poll (the peer has just come back)."""
        self.pending_sent_ms = -1

    def backlog(self) -> int:
        """Sequenced frames not yet acknowledged (in flight and queued)."""
        return len(self.queue) + (0 if self.pending is None else 1)

    def take_output(self) -> bytes:
        """The bytes to write to the wire since the last call."""
        data = b"".join(self._out)
        self._out = []
        return data

    # receiving -----------------------------------------------------------------------------
    def receive(self, data: bytes, now_ms: int) -> "list[Frame]":
        """Feed received bytes; return the frames to act on (new sequenced and unsequenced)."""
        return [f for f in self.decoder.feed(data) if self.accept(f, now_ms)]

    def accept(self, frame: Frame, now_ms: int) -> bool:
        """Process one decoded frame (its ACK, its sequence number); True if it is to be acted
        on. While paused (no handshake yet) sequenced frames are ignored and not acknowledged,
        so that they come again once the peer is known."""
        self.last_rx_ms = now_ms
        if (
            self.pending is not None
            and frame.ack == self.pending.seq
            and self.take_acks
            and not self.paused
        ):
            self.pending = None
            self._send_next(now_ms)
        if frame.seq == 0:
            return frame.kind != ACK and frame.kind != HEARTBEAT
        if self.paused:
            return False
        fresh = seq_is_new(frame.seq, self.rx_last)
        if fresh:
            self.rx_last = frame.seq
        else:
            self.duplicates += 1
        self._write(Frame(0, self.rx_last, ACK), now_ms)
        return fresh

    def reset_rx(self) -> None:
        """Forget the peer's sequence numbers (a new host session, a rebooted clock)."""
        self.rx_last = 0

    def connected(self, now_ms: int) -> bool:
        """True while the peer has been heard within ``timeout_ms``."""
        return self.last_rx_ms >= 0 and now_ms - self.last_rx_ms < self.timeout_ms

    # time ----------------------------------------------------------------------------------
    def poll(self, now_ms: int) -> None:
        """Send what is due: the next queued frame, a resend, a heartbeat."""
        if self.paused:
            return
        if self.pending is None:
            self._send_next(now_ms)
        else:
            wait = self.resend_ms if self.connected(now_ms) else self.idle_resend_ms
            if self.pending_sent_ms < 0 or now_ms - self.pending_sent_ms >= wait:
                self.resent += 1
                self._transmit_pending(now_ms)
        if now_ms - self.last_tx_ms >= self.heartbeat_ms:
            self._write(Frame(0, self.rx_last, HEARTBEAT), now_ms)
