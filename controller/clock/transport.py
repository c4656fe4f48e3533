"""Byte transports for the clock link: a pyserial port (a USB device, ``loop://``, a pty) and
the interface the link needs. Every failure is a ``DeviceError``; reads never block."""

from __future__ import annotations

import contextlib
import errno
import os
import select
import time
import tty
from typing import Any, Protocol

import serial

from engine.errors import DeviceError

BAUDRATE = 115200


class Transport(Protocol):
    """A byte pipe that can be lost (a cable pulled) and opened again."""

    name: str

    @property
    def is_open(self) -> bool: ...

    def open(self) -> None:
        """Open the pipe; ``DeviceError`` when it is not there."""

    def close(self) -> None:
        """Close; safe to call twice."""

    def read(self) -> bytes:
        """Whatever bytes have arrived (possibly none); ``DeviceError`` when the pipe is lost."""

    def write(self, data: bytes) -> None:
        """Send bytes; ``DeviceError`` when the pipe is lost."""

    def wait(self, timeout_s: float) -> None:
        """Block until bytes may be readable or ``timeout_s`` has passed (real time only)."""


class SerialTransport:
    """A pyserial port by name or URL: ``/dev/ttyACM0``, ``/dev/pts/3``, ``loop://``."""

    def __init__(self, port: str, baudrate: int = BAUDRATE) -> None:
        self.name = port
        self.baudrate = baudrate
        self._port: Any = None

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def open(self) -> None:
        if self._port is not None:
            return
        try:
            self._port = serial.serial_for_url(
                self.name, baudrate=self.baudrate, timeout=0, write_timeout=1
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise DeviceError(f"cannot open clock port {self.name}: {_reason(exc)}") from exc

    def close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    def _lost(self, exc: Exception) -> DeviceError:
        self.close()
        return DeviceError(f"clock port {self.name} lost: {_reason(exc)}")

    def read(self) -> bytes:
        if self._port is None:
            raise DeviceError(f"clock port {self.name} is not open")
        try:
            waiting = self._port.in_waiting
            data: bytes = self._port.read(waiting or 1)
        except (serial.SerialException, OSError) as exc:
            raise self._lost(exc) from exc
        return data

    def write(self, data: bytes) -> None:
        if self._port is None:
            raise DeviceError(f"clock port {self.name} is not open")
        if not data:
            return
        try:
            self._port.write(data)
        except (serial.SerialException, OSError) as exc:
            raise self._lost(exc) from exc

    def wait(self, timeout_s: float) -> None:
        fileno = getattr(self._port, "fileno", None)
        if self._port is None or fileno is None:
            time.sleep(timeout_s)
            return
        try:
            select.select([fileno()], [], [], timeout_s)
        except (OSError, ValueError, serial.SerialException):
            time.sleep(timeout_s)


def _reason(exc: Exception) -> str:
    if getattr(exc, "errno", None) == errno.ENOENT:
        return "no such port"
    if getattr(exc, "errno", None) == errno.EACCES:
        return "permission denied (is the user in the dialout group?)"
    text = str(exc).strip() or type(exc).__name__
    return text[0].lower() + text[1:] if text else text


class FdTransport:
    """A file descriptor the caller owns the far end of: the clock's side of a pty pair.
    Writes nobody reads are dropped, as a USB serial device drops them with no host."""

    def __init__(self, fd: int, name: str) -> None:
        self.name = name
        self._fd: int | None = fd
        os.set_blocking(fd, False)

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def open(self) -> None:
        if self._fd is None:
            raise DeviceError(f"cannot open clock port {self.name}: closed")

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def read(self) -> bytes:
        if self._fd is None:
            raise DeviceError(f"clock port {self.name} is not open")
        try:
            return os.read(self._fd, 4096)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:  # nobody has the other end open
                return b""
            raise DeviceError(f"clock port {self.name} lost: {_reason(exc)}") from exc

    def write(self, data: bytes) -> None:
        if self._fd is None:
            raise DeviceError(f"clock port {self.name} is not open")
        view = memoryview(data)
        while view:
            try:
                done = os.write(self._fd, view)
            except (BlockingIOError, InterruptedError):
                return  # the buffer is full: drop, the link resends
            except OSError as exc:
                if exc.errno == errno.EIO:
                    return
                raise DeviceError(f"clock port {self.name} lost: {_reason(exc)}") from exc
            view = view[done:]

    def wait(self, timeout_s: float) -> None:
        if self._fd is None:
            time.sleep(timeout_s)
            return
        select.select([self._fd], [], [], timeout_s)


class PtyPair:
    """A pseudo-terminal pair standing in for a USB serial cable: the clock side is
    ``clock_side`` (a transport), the host opens ``port_name`` with pyserial."""

    def __init__(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        self._slave: int | None = slave  # kept open so the clock side never reads EIO
        self.port_name = os.ttyname(slave)
        self.clock_side = FdTransport(master, f"{self.port_name} (clock side)")

    def close(self) -> None:
        """Destroy the pair (the cable is gone); safe to call twice."""
        self.clock_side.close()
        slave, self._slave = self._slave, None
        if slave is not None:
            os.close(slave)
