"""What the shell's interpreter and its builtins share: mksh's names and options, the bounds on
nesting, and the exceptions that carry `break`, `return` and `exit` out of running code."""

from __future__ import annotations

import posixpath

SH = "/system/bin/sh"
# Where a bare command name is looked up; `/system/bin/ls` runs the same command as `ls`.
BIN_DIRS = ("/system/bin", "/system/xbin", "/vendor/bin", "/bin", "/usr/bin", "/sbin", "/product/bin")
MAX_DEPTH = 32  # nested `sh -c` / `$(...)`; real shells fork, we recurse
MAX_SCRIPT = 16 * 1024 * 1024  # bytes of a script file `sh FILE` or `. FILE` reads
OPTION_LETTERS = {"allexport": "a", "errexit": "e", "noglob": "f", "nounset": "u", "verbose": "v"}
OPTION_LETTERS |= {"xtrace": "x", "noclobber": "C", "pipefail": "P"}
OPTION_ORDER = "aCefuvx"


class LoopControl(Exception):
    """`break N` / `continue N` unwinding to the N-th enclosing loop."""

    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.levels = levels


class FunctionReturn(Exception):
    """`return N`: ends the running function or `.` script (outside both it ends the shell)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class ExitShell(Exception):
    """`exit N`: stops the current shell (not its parent)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def command_name(name: str) -> str:
    if "/" in name and posixpath.dirname(name) in BIN_DIRS:
        return posixpath.basename(name)
    return name
