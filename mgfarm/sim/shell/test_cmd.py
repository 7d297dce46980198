"""`test` and `[` as mksh R59c's builtin runs them (funcs.c: c_test, test_parse, test_eval).

POSIX's rules for one to four operands first (`[ -n ]` is a non-empty string, `[ ! = ]` compares),
then mksh's grammar: `-o` below `-a` below `!`, `( )`, a binary operator taking precedence over a
unary one (`[ -f = -f ]`). `-eq` and its kin read both sides as arithmetic expressions (`[ 2 -eq 1+1
]`, a variable's name); `=` compares strings. Exit status 0 true, 1 false, 2 for an error.
"""

from __future__ import annotations

import posixpath
import stat

from mgfarm.sim.shell import arith
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.system.fs import PathEscapeError

SH = "/system/bin/sh"
UNARY = {"-a", "-b", "-c", "-d", "-e", "-f", "-G", "-g", "-H", "-h", "-k", "-L", "-n", "-O", "-o", "-p",
         "-r", "-S", "-s", "-t", "-u", "-v", "-w", "-x", "-z"}  # fmt: skip
BINARY = {"=", "==", "!=", "<", ">", "-eq", "-ne", "-gt", "-ge", "-lt", "-le", "-ef", "-nt", "-ot"}
INTEGER = {"-eq": int.__eq__, "-ne": int.__ne__, "-gt": int.__gt__, "-ge": int.__ge__,
           "-lt": int.__lt__, "-le": int.__le__}  # fmt: skip
MAX_DEPTH = 100  # nested ( ): a hostile command line may not recurse without end


class TestError(Exception):
    """A bad expression: mksh prints `sh: test: MESSAGE` and returns 2."""

    def __init__(self, message: str, bare: bool = False) -> None:
        super().__init__(message)
        self.bare = bare  # an arithmetic error: mksh prints it without the builtin's name


def file_test(inv: Invocation, op: str, path: str) -> bool:
    """A unary file test on the device's files, as the command's uid sees them."""
    fs = inv.fs
    if op in ("-L", "-h"):
        return fs.is_link(path, inv.cwd)
    try:
        st = fs.stat(path, inv.cwd)
    except (OSError, PathEscapeError):
        return False
    kinds = {"-f": stat.S_ISREG, "-d": stat.S_ISDIR, "-c": stat.S_ISCHR, "-b": stat.S_ISBLK,
             "-p": stat.S_ISFIFO, "-S": stat.S_ISSOCK}  # fmt: skip
    if op in kinds:
        return kinds[op](st.st_mode)
    if op == "-s":
        return st.st_size > 0
    if op in ("-u", "-g", "-k"):
        return bool(st.st_mode & {"-u": stat.S_ISUID, "-g": stat.S_ISGID, "-k": stat.S_ISVTX}[op])
    if op in ("-O", "-G"):
        return (st.st_uid if op == "-O" else st.st_gid) == inv.uid
    if op == "-x":
        return stat.S_ISDIR(st.st_mode) or posixpath.dirname(path) in ("/system/bin",)
    if op in ("-r", "-w"):
        try:
            fs.access(path, op[1], inv.cwd)
        except (OSError, PathEscapeError):
            return False
    return op != "-H"  # -e, -a, or a permission it has; no HP context-dependent files


class Test:
    """One run of test over its operands (the `[`'s `]` already taken off)."""

    def __init__(self, inv: Invocation, words: list[str]) -> None:
        self.inv = inv
        self.original = words
        self.words = words
        self.pos = 0
        self.depth = 0

    def at(self, offset: int = 0) -> str | None:
        i = self.pos + offset
        return self.words[i] if i < len(self.words) else None

    def isa(self, token: str) -> bool:
        """ptest_isa for `! ( ) -a -o`: take the word when it is `token`."""
        if self.at() == token:
            self.pos += 1
            return True
        return False

    def error(self, offset: int, message: str) -> TestError:
        word = self.at(offset) if self.pos + offset >= 0 else None
        return TestError(f"{word}: {message}" if word is not None else message)

    def run(self) -> bool:
        words = self.words
        if not words:
            return False
        invert = False
        # POSIX's rules for few operands, as mksh writes them out
        while True:
            count = len(words) - self.pos
            if count == 1:
                return self.eval("-n", words[self.pos]) != invert
            if count == 2:
                if self.isa("!"):
                    invert = not invert
                    continue
                if self.at() in UNARY:
                    op = words[self.pos]
                    self.pos += 1
                    return self.eval(op, words[self.pos]) != invert
                break
            if count == 3:
                left, op, right = words[self.pos : self.pos + 3]
                if op in BINARY:
                    return self.eval(op, left, right) != invert
                if op in ("-a", "-o"):
                    a, b = self.eval("-n", left), self.eval("-n", right)
                    return (a and b if op == "-a" else a or b) != invert
                if self.isa("!"):
                    invert = not invert
                    continue
                if left == "(" and right == ")":
                    self.pos += 1
                    return self.eval("-n", op) != invert
                break
            if count == 4:
                if self.isa("!"):
                    invert = not invert
                    continue
                if words[self.pos] == "(" and words[self.pos + 3] == ")":
                    self.pos += 1
                    self.words = words = words[: self.pos + 2]  # the two inside, as two operands
                    continue
                break
            break
        self.pos, self.words = 0, self.original  # "the results are unspecified": mksh's grammar
        value = self.oexpr()
        if self.at() is not None:
            raise self.error(0, "unexpected operator/operand")
        return value

    # mksh's grammar: every operand is read even where its value no longer matters
    def oexpr(self) -> bool:
        value = self.aexpr()
        if self.isa("-o"):
            return self.oexpr() or value
        return value

    def aexpr(self) -> bool:
        value = self.nexpr()
        if self.isa("-a"):
            return self.aexpr() and value
        return value

    def nexpr(self) -> bool:
        if self.isa("!"):
            return not self.nexpr()
        return self.primary()

    def primary(self) -> bool:
        if self.isa("("):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise TestError("expression too deeply nested")
            value = self.oexpr()
            if not self.isa(")"):
                raise self.error(0, "missing )")
            self.depth -= 1
            return value
        # a binary operator after the word wins over the word being a unary operator
        if self.at(1) is not None and self.at(1) not in BINARY and self.at() in UNARY:
            op = str(self.at())
            self.pos += 1
            operand = self.at()
            if operand is None:
                if op == "-t":
                    return False  # `-t` alone asks about fd 1: adb's streams are not terminals
                raise self.error(-1, "missing argument")
            self.pos += 1
            return self.eval(op, operand)
        left = self.at()
        if left is None:
            raise self.error(0, "expression expected")
        self.pos += 1
        binary = self.at()
        if binary is not None and binary in BINARY:
            self.pos += 1
            right = self.at()
            if right is None:
                raise self.error(-1, "missing second argument")
            self.pos += 1
            return self.eval(binary, left, right)
        return self.eval("-n", left)

    def eval(self, op: str, left: str, right: str | None = None) -> bool:
        if right is None:
            if op == "-n":
                return left != ""
            if op == "-z":
                return left == ""
            if op == "-v":
                return left in self.inv.env
            if op == "-o":
                return left.startswith("?") and left[1:] in OPTIONS
            if op == "-t":
                return False  # adb's streams are pipes, not terminals
            return file_test(self.inv, op, left)
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        if op in ("<", ">"):
            a, b = left.encode("utf-8", "surrogateescape"), right.encode("utf-8", "surrogateescape")
            return a < b if op == "<" else a > b
        if op in INTEGER:
            return bool(INTEGER[op](self.number(left), self.number(right)))
        return self.files(op, left, right)

    def number(self, expr: str) -> int:
        try:
            return arith.evaluate(expr, self.inv.env.get, hex_ok=False)
        except arith.ArithError as exc:
            raise TestError(str(exc), bare=True) from exc

    def files(self, op: str, left: str, right: str) -> bool:
        fs = self.inv.fs
        try:
            a = fs.stat(left, self.inv.cwd)
        except (OSError, PathEscapeError):
            a = None
        try:
            b = fs.stat(right, self.inv.cwd)
        except (OSError, PathEscapeError):
            b = None
        if op == "-ef":
            return a is not None and b is not None and (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
        if op == "-nt":
            return a is not None and (b is None or a.st_mtime_ns > b.st_mtime_ns)
        return b is not None and (a is None or a.st_mtime_ns < b.st_mtime_ns)


# mksh's option names, for `-o ?NAME` (does the option exist)
OPTIONS = {"allexport", "braceexpand", "emacs", "errexit", "noclobber", "noexec", "noglob",
           "nounset", "pipefail", "posix", "verbose", "vi", "xtrace", "monitor", "markdirs",
           "bgnice", "interactive", "login", "nohup", "privileged", "restricted", "sh", "stdin",
           "trackall", "utf8-mode", "ignoreeof", "gmacs", "nolog", "physical", "vi-tabcomplete",
           "vi-esccomplete", "viraw", "arc4random", "keyword"}  # fmt: skip


@command("test", "[")
async def test(inv: Invocation) -> int:
    words = inv.argv[1:]
    if inv.argv[0] == "[":
        if not words or words[-1] != "]":
            inv.err(f"{SH}: [: missing ]\n")
            return 2
        words = words[:-1]
    try:
        return 0 if Test(inv, words).run() else 1
    except TestError as exc:
        inv.err(f"{SH}: {exc}\n" if exc.bare else f"{SH}: {inv.argv[0]}: {exc}\n")
        return 2
