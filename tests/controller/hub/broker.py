"""A real Mosquitto for tests and the benchmark: loopback only, a free port, restartable; and a
throw-away CA with a server certificate for its TLS listener."""

from __future__ import annotations

import getpass
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

MOSQUITTO = "/usr/sbin/mosquitto"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(condition: object, timeout_s: float, what: str, interval_s: float = 0.02) -> None:
    """Poll ``condition()`` until true; fail naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        if condition():  # type: ignore[operator]
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(interval_s)


class Broker:
    """``mosquitto -c CONF`` listening on 127.0.0.1 only; start, kill and start again."""

    def __init__(self, workdir: Path, *, extra_config: str = "", port: int | None = None) -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.extra_config = extra_config
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        """``mqtt://127.0.0.1:PORT``."""
        return f"mqtt://127.0.0.1:{self.port}"

    def write_config(self) -> Path:
        conf = self.workdir / "mosquitto.conf"
        conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "persistence false\n"
            "max_queued_messages 0\n"
            "max_inflight_messages 0\n"
            "set_tcp_nodelay true\n"
            # Started as root, mosquitto would switch to its own user, which cannot read the
            # test's temporary files; as anyone else this line changes nothing.
            f"user {getpass.getuser()}\n"
            f"log_dest file {self.workdir / 'mosquitto.log'}\n"
            + ("allow_anonymous true\n" if "allow_anonymous" not in self.extra_config else "")
            + self.extra_config
        )
        return conf

    def start(self) -> Broker:
        """Start and wait until it accepts connections."""
        conf = self.write_config()
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self.starts += 1

        def accepting() -> bool:
            assert self.process is not None
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise AssertionError(f"mosquitto exited: {err}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return True
            except OSError:
                return False

        wait_for(accepting, 10, "mosquitto to accept connections")
        return self

    def kill(self) -> None:
        """SIGKILL: the broker forgets everything (no persistence)."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        """SIGTERM and wait."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()
        self.process = None

    def __enter__(self) -> Broker:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


# ``openssl ca`` signs with chosen dates (``x509 -req`` takes only a number of days from now)
_CA_CONFIG = """[ca]
default_ca = test
[test]
database = index.txt
new_certs_dir = .
certificate = ca.pem
private_key = ca.key
rand_serial = yes
unique_subject = no
default_md = sha256
policy = any
[any]
commonName = supplied
"""


def make_certificates(folder: Path, names: str = "IP:127.0.0.1", *,
                      expired: bool = False) -> tuple[Path, Path, Path]:
    """A throw-away CA and a server certificate for ``names`` (its subjectAltName; the first
    is its common name too), valid for two days or ``expired`` since 2020 (openssl, seconds).
    Called again on the same folder: a new server certificate of the same CA."""
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (folder / n for n in ("ca.key", "ca.pem", "srv.key", "srv.csr",
                                                       "srv.pem"))
    (folder / "ext.cnf").write_text(f"subjectAltName={names}\n")
    (folder / "ca.cnf").write_text(_CA_CONFIG)
    run = lambda *a: subprocess.run(a, check=True, capture_output=True, cwd=folder)  # noqa: E731
    if not ca.exists():
        (folder / "index.txt").write_text("")
        run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key),
            "-out", str(ca), "-days", "2", "-subj", "/CN=hakem test CA")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr),
        "-subj", f"/CN={names.split(',')[0].split(':', 1)[1]}")
    dates = (["-startdate", "20200101000000Z", "-enddate", "20200102000000Z"] if expired
             else ["-days", "2"])
    run("openssl", "ca", "-config", "ca.cnf", "-batch", "-notext", "-in", str(csr), "-out",
        str(cert), "-extfile", "ext.cnf", *dates)
    return ca, cert, key


def tls_broker(folder: Path, *logins: tuple[str, str], names: str = "IP:127.0.0.1",
               expired: bool = False) -> tuple[Broker, Path]:
    """A started Mosquitto that takes only these (user, password) logins (anyone without
    any), over TLS with a certificate for ``names`` of a CA of its own (:func:`make_certificates`);
    and that CA's file. The caller stops it."""
    ca, cert, key = make_certificates(folder / "certs", names, expired=expired)
    login = "allow_anonymous true\n"
    if logins:
        passwd = folder / "passwd"
        passwd.write_text("")
        for user, password in logins:
            subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, password], check=True,
                           capture_output=True)
        passwd.chmod(0o600)
        login = f"allow_anonymous false\npassword_file {passwd}\n"
    # the certificate lines follow the loopback listener line: a TLS listener
    secure = Broker(folder / "secure", port=free_port(), extra_config=(
        f"{login}cafile {ca}\ncertfile {cert}\nkeyfile {key}\n"))
    return secure.start(), ca
