"""What Linux's exec refuses with E2BIG, for the sim's commands that are programs on a device.

A single argument string of MAX_ARG_STRLEN (32 pages) or more, terminator included, and an argument
list past a quarter of the stack limit (8 MiB on Android: 2 MiB; the environment counts there too,
which the sim leaves out: its shell does not tell exported variables from others).
adbd runs every command line as `/system/bin/sh -c LINE`; mksh runs its builtins (echo, print,
test, ...) without exec, so they take any length.
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_ARG_STRLEN = 32 * 4096
ARG_MAX = 8 * 1024 * 1024 // 4
# mksh's builtins among the sim's commands: no exec, no limit.
MKSH_BUILTINS = frozenset({"echo", "print", "test", "[", "true", "false", "pwd", "kill", "let"})


def _size(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogateescape")) + 1


def too_long(strings: Iterable[str]) -> bool:
    """Whether exec would refuse this argument list."""
    total = 0
    for text in strings:
        size = _size(text)
        if size > MAX_ARG_STRLEN:
            return True
        total += size
    return total > ARG_MAX
