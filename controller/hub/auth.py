"""Director logins: scrypt-hashed passwords and expiring session tokens.

Only a hash of each session token is stored, so a copy of the database opens no session.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Final

from engine.errors import InvalidInputError

SCRYPT_N: Final = 2**14
SCRYPT_R: Final = 8
SCRYPT_P: Final = 1
MIN_PASSWORD: Final = 8
_USER_RE: Final = re.compile(r"[A-Za-z0-9_.@-]{1,64}")


class AuthError(InvalidInputError):
    """A user name or password is not acceptable."""


@dataclass(frozen=True)
class PasswordHash:
    """A salted scrypt hash with its cost parameters (kept so they can be raised later)."""

    salt: bytes
    digest: bytes
    n: int = SCRYPT_N
    r: int = SCRYPT_R
    p: int = SCRYPT_P


DUMMY_HASH: Final = PasswordHash(secrets.token_bytes(16), secrets.token_bytes(32))
"""What a login for an unknown account is checked against: default cost, a random digest no
password reaches (made once, without hashing, so importing costs nothing)."""


def check_user_name(name: str) -> str:
    """Return ``name`` if it is a valid director account name."""
    if not _USER_RE.fullmatch(name):
        raise AuthError(f"bad user name {name!r}: 1-64 letters, digits, '_', '.', '@', '-'")
    return name


def hash_password(password: str, *, n: int = SCRYPT_N) -> PasswordHash:
    """Hash a new password; refuses ones shorter than MIN_PASSWORD characters."""
    if len(password) < MIN_PASSWORD:
        raise AuthError(f"password too short: {len(password)} characters (at least {MIN_PASSWORD})")
    salt = secrets.token_bytes(16)
    return PasswordHash(salt, _scrypt(password, salt, n, SCRYPT_R, SCRYPT_P), n, SCRYPT_R, SCRYPT_P)


def verify_password(password: str, stored: PasswordHash) -> bool:
    """True when ``password`` matches (constant-time comparison)."""
    digest = _scrypt(password, stored.salt, stored.n, stored.r, stored.p)
    return hmac.compare_digest(digest, stored.digest)


def verify_unknown(password: str) -> bool:
    """Check ``password`` against DUMMY_HASH and answer False: a login for an account that does
    not exist costs what a wrong password for one that does, so its timing names no account."""
    verify_password(password, DUMMY_HASH)
    return False


def new_token() -> str:
    """A fresh session token (256 random bits)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the database keeps of a session token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=64 * 2**20,
                          dklen=32)
