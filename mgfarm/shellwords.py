"""Words of device shell commands: POSIX quoting and `content` bindings.

A leaf module: the controller (mgfarm.device) and the task engine (mgfarm.tasks, which does not
import the controller) build their commands with the same words.
"""

from __future__ import annotations

import re
import shlex

from mgfarm.errors import MgfarmError


def quote(value: object) -> str:
    """One shell word (the device shell parses POSIX quoting); every user-supplied value passes here."""
    return shlex.quote(str(value))


def content_bind(column: str, value: object) -> str:
    """One `--bind col:TYPE:value` argument of `content insert/update` (AOSP types: l integer,
    b boolean, d float, s text, n null)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", column):
        raise MgfarmError(f"Column name {column!r} is not a plain identifier; use letters, digits and _.")
    if value is None:
        return quote(f"{column}:n:")
    if isinstance(value, bool):
        return quote(f"{column}:b:{str(value).lower()}")
    if isinstance(value, int):
        return quote(f"{column}:l:{value}")
    if isinstance(value, float):
        return quote(f"{column}:d:{value}")
    return quote(f"{column}:s:{value}")


def content_insert_command(uri: str, values: dict[str, object]) -> str:
    """`content insert` of one row."""
    binds = " ".join(f"--bind {content_bind(k, v)}" for k, v in values.items())
    return f"content insert --uri {quote(uri)} {binds}"


def content_delete_command(uri: str, where: str | None = None) -> str:
    """`content delete` of the rows `where` selects (all without it)."""
    return f"content delete --uri {quote(uri)}" + (f" --where {quote(where)}" if where else "")
