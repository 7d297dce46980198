"""Normalisation shared by checks: phone numbers, free text, numbers, dates, times, booleans."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

DATE_FORMATS = (
    "%Y-%m-%d",
    "%d/%m/%Y",
    "%m/%d/%Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
    "%d %b %Y",
    "%Y/%m/%d",
)
TIME_FORMATS = ("%H:%M", "%H:%M:%S", "%I:%M %p", "%I:%M%p", "%I %p", "%I%p")


def digits(value: Any) -> str:
    """Only the digits of a value."""
    return re.sub(r"\D", "", str(value or ""))


def same_number(a: Any, b: Any) -> bool:
    """Phone numbers match when their last ten digits do (ignores +1, spaces, dashes, brackets)."""
    da, db = digits(a), digits(b)
    return bool(da) and da[-10:] == db[-10:]


def text(value: Any) -> str:
    """Case-folded, whitespace-collapsed, trailing punctuation dropped."""
    return re.sub(r"\s+", " ", str(value or "")).strip().strip(".!?").casefold()


def number(value: Any) -> float | None:
    """The first number in a value ('3 events' -> 3.0, '$1,234.50' -> 1234.5), or None."""
    m = re.search(r"-?\d+(?:\.\d+)?", str(value).replace(",", ""))
    return float(m.group()) if m else None


def date(value: Any) -> str | None:
    """An ISO date for the common ways people write dates, or None."""
    raw = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", str(value).strip())
    for fmt in DATE_FORMATS:
        try:
            return dt.datetime.strptime(raw, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def time(value: Any) -> str | None:
    """HH:MM (24h) for '9:05', '09:05', '9:05 am', '9 PM', or None."""
    raw = str(value).strip().upper().replace(".", "")
    for fmt in TIME_FORMATS:
        try:
            return dt.datetime.strptime(raw, fmt).strftime("%H:%M")
        except ValueError:
            continue
    return None


def boolean(value: Any) -> bool | None:
    """yes/no, true/false, on/off, 1/0."""
    raw = text(value)
    if raw in ("yes", "true", "on", "1", "y"):
        return True
    if raw in ("no", "false", "off", "0", "n"):
        return False
    return None


def typed(kind: str, value: Any) -> Any:
    """A value normalised for comparison by its answer type."""
    if kind == "integer":
        n = number(value)
        return None if n is None else round(n)
    if kind == "number":
        return number(value)
    if kind == "date":
        return date(value)
    if kind == "time":
        return time(value)
    if kind == "boolean":
        return boolean(value)
    return text(value)
