"""UTF-8 as toybox's C reads it: one character's length (utf8towc) and its columns (wcwidth)."""

from __future__ import annotations

import unicodedata


def char_length(line: bytes, i: int) -> int:
    """toybox's utf8towc: bytes in the character at `i` (0 for NUL), or -1 when not UTF-8."""
    first = line[i]
    if first < 0x80:
        return 1 if first else 0
    if first < 0xC2 or first > 0xF4:
        return -1
    size = 2 if first < 0xE0 else 3 if first < 0xF0 else 4
    chunk = line[i : i + size]
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError:
        return -1
    return size if len(text) == 1 else -1


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
