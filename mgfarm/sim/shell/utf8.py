"""UTF-8 as toybox's C reads it: one character's length (utf8towc) and its columns (wcwidth)."""

from __future__ import annotations

import unicodedata


def char_length(data: bytes, i: int) -> int:
    """toybox's utf8towc on data[i:]: bytes of the character there, 0 for a NUL, -1 when it is not
    UTF-8, -2 when it goes on past the end."""
    lead = data[i]
    if lead < 0x80:
        return 1 if lead else 0
    if not 0xC2 <= lead <= 0xF4:
        return -1
    size = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    value = lead & (0x7F >> size)
    for k in range(1, size):
        if i + k >= len(data):
            return -2
        if data[i + k] & 0xC0 != 0x80:
            return -1
        value = value << 6 | data[i + k] & 0x3F
    if value < (0x80, 0x800, 0x10000)[size - 2] or value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
        return -1
    return size


def wcwidth(c: str) -> int:
    """Columns a character takes as wcwidth counts them: -1 for what is not printable."""
    if ord(c) < 32 or 0x7F <= ord(c) < 0xA0:
        return -1
    category = unicodedata.category(c)
    if category in ("Cn", "Cs", "Co"):
        return -1
    if category in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
