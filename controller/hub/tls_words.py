"""Why a connection to the broker failed, when TLS is the reason: the broker's certificate names
another host, is signed by a CA this side does not trust, or has expired. Said as such, with the
setting to change; the hub and a table had said they could not reach the broker, which sent a
director looking for a network fault."""

from __future__ import annotations

import ssl
import sys

from controller.hub.link import LinkConfig, ssl_reason

# OpenSSL's X509_V_ERR_* codes (openssl/x509_vfy.h) for the failures a hall meets
_UNTRUSTED = frozenset({2, 18, 19, 20, 21})  # no trusted issuer; self-signed on the way
_NOT_YET_VALID = 9
_EXPIRED = 10
_MISMATCH = frozenset({62, 64})  # host name, IP address


def failed_connect_words(config: LinkConfig) -> str | None:
    """What is wrong, for paho's ``on_connect_fail`` (which paho calls while it handles the
    connection's exception, so the exception is at hand here); None when TLS is not the
    reason (the broker not reached at all)."""
    return tls_problem(config, sys.exc_info()[1])


def tls_problem(config: LinkConfig, exc: BaseException | None) -> str | None:
    """``exc``, a failed TLS handshake with the broker, in words naming what to change; None
    for any other failure."""
    if not config.tls or not isinstance(exc, ssl.SSLError):
        return None
    names = config.names
    if not isinstance(exc, ssl.SSLCertVerificationError):
        return (f"the TLS handshake with the broker failed ({ssl_reason(exc)}): is port "
                f"{config.port} its TLS listener?")
    code = exc.verify_code
    if code in _MISMATCH:
        return (f"the broker's certificate does not match host {config.host!r}: name the broker "
                f"in {names.url} as its certificate does, or give the broker a certificate for "
                f"{config.host!r}")
    if code in _UNTRUSTED:
        signer = (f"the CA in {config.ca_file}" if config.ca_file
                  else "a CA this machine trusts (no CA file given)")
        return (f"the broker's certificate is not signed by {signer}: give the CA that signed "
                f"it in {names.ca_file}")
    if code == _EXPIRED:
        return ("the broker's certificate has expired: give the broker a new one, or set this "
                "machine's date if it is wrong")
    if code == _NOT_YET_VALID:
        return ("the broker's certificate is not valid yet: set this machine's date if it is "
                "wrong")
    return f"the broker's certificate is refused: {str(exc.verify_message).lower()}"
