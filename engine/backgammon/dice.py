"""Dice: parsing the two-digit text form and the 21 distinct rolls."""

from __future__ import annotations

from engine.errors import DiceError

Dice = tuple[int, int]

#: The 21 distinct rolls, doubles first then the 15 non-doubles (higher die first).
ALL_ROLLS: tuple[Dice, ...] = tuple((d, d) for d in range(1, 7)) + tuple(
    (a, b) for a in range(2, 7) for b in range(1, a)
)


def parse_dice(text: str) -> Dice:
    """Parse dice text such as ``31``, ``3-1`` or ``3 1`` into ``(3, 1)`` (order kept)."""
    digits = [ch for ch in str(text) if not ch.isspace() and ch not in "-,/"]
    if len(digits) != 2 or not all(ch in "123456" for ch in digits):
        raise DiceError(f"dice must be two digits 1..6, not {text!r}")
    return int(digits[0]), int(digits[1])


def check_dice(dice: tuple[int, int]) -> Dice:
    """Return ``dice`` as a pair of ints 1..6, or raise :class:`DiceError`."""
    try:
        a, b = dice
    except (TypeError, ValueError):
        raise DiceError(f"dice must be a pair of values 1..6, not {dice!r}") from None
    if not (isinstance(a, int) and isinstance(b, int) and 1 <= a <= 6 and 1 <= b <= 6):
        raise DiceError(f"dice must be two values 1..6, not {dice!r}")
    return a, b


def is_double(dice: Dice) -> bool:
    """True for 11, 22, ... 66 (BG-MOVE-5: played four times)."""
    return dice[0] == dice[1]


def dice_text(dice: Dice) -> str:
    """The two-digit text, higher die first (``31``)."""
    a, b = dice
    return f"{max(a, b)}{min(a, b)}"
