"""The answer readers under the names the checks use; the one implementation is `mgfarm.tasks.answers`."""

from __future__ import annotations

from mgfarm.tasks.answers import boolean, date, digits, number, same_number, text, time, typed

__all__ = ["boolean", "date", "digits", "number", "same_number", "text", "time", "typed"]
