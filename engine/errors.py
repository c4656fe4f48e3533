"""The project's one exception tree.

Every error the product raises on purpose derives from :class:`HakemError`; leaf classes also
inherit the builtin a caller would expect (``ValueError``, ``OSError``...), so plain ``except
ValueError`` still works. Messages are lowercase and name the offending value. This module has
no imports so that every package (``vision`` included) may use it without depending on the rules.
"""


class HakemError(Exception):
    """Root of every error hakem raises deliberately."""


class InvalidInputError(HakemError, ValueError):
    """A value given to hakem (argument, text, file content) is malformed."""


class PositionError(InvalidInputError):
    """A position (Position ID, Mangala JSON, checker counts) is malformed or impossible."""


class DiceError(InvalidInputError):
    """Dice text or values are malformed (not two digits 1..6)."""


class RecordFormatError(InvalidInputError):
    """A match record or journal line is malformed; the message names the line."""


class RuleViolationError(HakemError, ValueError):
    """An action the rules forbid was requested (a double when the cube may not be turned...)."""


class ImageError(InvalidInputError):
    """An image cannot be used: unreadable, empty, corners outside it, no board found."""


class ConfigError(InvalidInputError):
    """A configuration file or value is wrong; the message names the key."""


class DeviceError(HakemError, OSError):
    """A piece of hardware (camera, clock link, GPIO) failed or is missing."""


class ProtocolError(HakemError, ValueError):
    """A message on the clock link or the hub is malformed or fails its checksum."""
