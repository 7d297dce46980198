"""What an app's `Cursor` makes of a column value, whatever a device wrote into the column.

A provider's columns have types by affinity only: `content insert --bind date:s:abc` stores text in
an INTEGER column, as on a phone. The real apps read it with `Cursor.getLong` (SQLite's own
conversion: the text's leading integer or 0, a real truncated, NULL as 0, clamped to 64 bits) and
show a date of 1970 where the sim's apps crashed on the text.
"""

from __future__ import annotations

import math
import re

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_LEADING_INTEGER = re.compile(rb"\s*([+-]?\d+)")


def get_long(value: object) -> int:
    """`value` as `Cursor.getLong` returns it."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return 0 if math.isnan(value) else int(min(max(value, INT64_MIN), INT64_MAX))
    if isinstance(value, str):
        value = value.encode("utf-8", errors="surrogateescape")
    if isinstance(value, bytes):
        found = _LEADING_INTEGER.match(value[:64])
        return min(max(int(found.group(1)), INT64_MIN), INT64_MAX) if found else 0
    return 0


def get_int(value: object) -> int:
    """`value` as `Cursor.getInt` returns it: `getLong`'s value cast to 32 bits, as Java casts."""
    return (get_long(value) + 2**31) % 2**32 - 2**31


def get_string(value: object) -> str:
    """`value` as a TextView shows `Cursor.getString`: NULL as nothing, a number as its digits."""
    return "" if value is None else str(value)
