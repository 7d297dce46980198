"""toybox 0.8.6's `find`: its expression is read left to right as toybox does (no parse tree), so
its quirks carry over: `-maxdepth` is a test where it stands, `-delete` prints unless an action
is given, `-size N` is N*512 bytes exactly, a failed `-delete` is silent, there is no `-regex`.

Walks are bounded: they yield to the event loop, go at most MAX_TREE_DEPTH deep and stop after
MAX_VISITS entries; `-exec` runs through the shell's command table; `-delete` removes through
the walked folder's descriptor and never follows a link.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import posixpath
import stat as statmod
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import lru_cache

from mgfarm.sim.io import ShellIO
from mgfarm.sim.shell.control import command_name
from mgfarm.sim.shell.files import device_path, mode_string, owner
from mgfarm.sim.shell.registry import COMMANDS, Invocation, command
from mgfarm.sim.shell.system import local_zone, parse_date
from mgfarm.sim.shell.toyargs import Fatal, atolx
from mgfarm.sim.system.fs import MAX_TREE_DEPTH, Entry, PathEscapeError, access_ns, change_ns

YIELD_EVERY = 256  # entries between two turns of the event loop
MAX_VISITS = 2_000_000  # entries one find visits before it stops (a hostile tree is endless)
MAX_ARG_BYTES = 2_097_152 - 4096  # ARG_MAX less the environment: when `-exec ... {} +` runs
MAX_PARENS = 4096  # toybox keeps its `(` stack in a 4096-byte buffer
IDS = {"root": 0, "system": 1000, "shell": 2000, "sdcard_rw": 1015, "media_rw": 1023}
NAMES = {v: k for k, v in IDS.items()}
NO_ARG = frozenset(
    [
        "xdev",
        "delete",
        "depth",
        "d",
        "o",
        "or",
        "not",
        "true",
        "false",
        "a",
        "and",
        "noleaf",
        "print",
        "print0",
        "empty",
        "nouser",
        "nogroup",
        "prune",
        "executable",
        "quit",
    ]
)
MATCHES = frozenset(["name", "iname", "wholename", "iwholename", "path", "ipath", "lname", "ilname"])
TYPES = {"b": statmod.S_IFBLK, "c": statmod.S_IFCHR, "d": statmod.S_IFDIR, "l": statmod.S_IFLNK}
TYPES |= {"p": statmod.S_IFIFO, "f": statmod.S_IFREG, "s": statmod.S_IFSOCK}
ONE_ARG = MATCHES | frozenset(
    ["context", "perm", "type", "atime", "ctime", "mtime", "amin", "cmin", "mmin", "size", "links", "inum"]
)
ONE_ARG |= frozenset(["mindepth", "maxdepth", "user", "group", "printf"])
ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}


class FindExit(Exception):
    """toybox's error_exit (`find: message`, status 1) or `-quit` (message empty)."""


@dataclass
class Found:
    """One walked entry: its path as find prints it, its name, stat, depth and parent."""

    path: str
    name: str
    st: os.stat_result
    depth: int
    parent: str | None = None  # the parent's path (None at a top)
    entry: Entry | None = None  # the descriptor-held entry (None on a -L walk)
    prune: bool = False  # set by the expression: do not enter this folder


@dataclass
class Exec:
    """One `-exec`/`-execdir`/`-ok`/`-okdir`: its words, where `{}` is, and names pending for `+`."""

    words: list[str]
    curly: int
    plus: bool
    in_dir: bool
    ask: bool
    pending: dict[str, list[str]] = field(default_factory=dict)  # folder key: names
    size: int = 1


# ---- patterns ---------------------------------------------------------------------------------


def _bracket(pattern: str, i: int) -> tuple[Callable[[str], bool], int] | None:
    """A `[...]` set starting at pattern[i] == "[": its test and the index past it (None: literal)."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    j += negate
    items: list[tuple[str, str]] = []
    first = True
    while j < len(pattern) and (first or pattern[j] != "]"):
        first = False
        if pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            if end > 0:
                items.append(("class", pattern[j + 2 : end]))
                j = end + 2
                continue
        c = pattern[j]
        if c == "\\" and j + 1 < len(pattern):
            j += 1
            c = pattern[j]
        if j + 2 < len(pattern) and pattern[j + 1] == "-" and pattern[j + 2] != "]":
            items.append((c, pattern[j + 2]))
            j += 3
        else:
            items.append((c, c))
            j += 1
    if j >= len(pattern):
        return None

    def test(ch: str) -> bool:
        hit = any(_class(ch, hi) if lo == "class" else lo <= ch <= hi for lo, hi in items)
        return hit != negate

    return test, j + 1


def _class(ch: str, name: str) -> bool:
    checks: dict[str, Callable[[str], bool]] = {
        "alpha": str.isalpha,
        "digit": str.isdigit,
        "alnum": str.isalnum,
        "upper": str.isupper,
        "lower": str.islower,
        "space": str.isspace,
        "punct": lambda c: c.isprintable() and not c.isalnum() and not c.isspace(),
        "xdigit": lambda c: c in "0123456789abcdefABCDEF",
        "print": str.isprintable,
        "blank": lambda c: c in " \t",
    }
    check = checks.get(name)
    return bool(check and check(ch))


@lru_cache(maxsize=256)
def _tokens(pattern: str) -> tuple[tuple[str, object], ...]:
    """A glob as ("*"|"?"|"set"|"lit", payload) units."""
    out: list[tuple[str, object]] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c in "*?":
            out.append((c, None))
            i += 1
        elif c == "[" and (found := _bracket(pattern, i)) is not None:
            out.append(("set", found[0]))
            i = found[1]
        else:
            if c == "\\" and i + 1 < len(pattern):
                i += 1
                c = pattern[i]
            out.append(("lit", c))
            i += 1
    return tuple(out)


def _one(unit: tuple[str, object], ch: str) -> bool:
    kind, payload = unit
    if kind == "?":
        return True
    if kind == "set":
        return bool(payload(ch))  # type: ignore[operator]
    return payload == ch


def glob(pattern: str, text: str) -> bool:
    """fnmatch(3) without flags, in O(len*len) at worst: the last `*` is the only one retried."""
    units = _tokens(pattern)
    p = t = 0
    star_p, star_t = -1, 0
    while t < len(text):
        if p < len(units) and units[p][0] == "*":
            star_p, star_t = p, t
            p += 1
        elif p < len(units) and _one(units[p], text[t]):
            p += 1
            t += 1
        elif star_p >= 0:
            star_t += 1
            p, t = star_p + 1, star_t
        else:
            return False
    return all(u[0] == "*" for u in units[p:])


def glob_name(pattern: str, name: str) -> bool:
    """fnmatch(3) with FNM_PATHNAME: `/` only matches a `/` of the pattern."""
    parts, names = pattern.split("/"), name.split("/")
    return len(parts) == len(names) and all(glob(p, n) for p, n in zip(parts, names, strict=True))


# ---- the expression ---------------------------------------------------------------------------


def compare(value: int, units: int, text: str) -> bool:
    """toybox's compare_numsign: `N`, `+N` (more), `-N` (less); units apply to a bare number."""
    sign = ""
    if text[:1] in ("+", "-"):
        sign, text = text[0], text[1:]
    elif not text[:1].isdigit():
        raise FindExit(f"{text} not [+-]N")
    want = _atolx(text)
    if units and text[-1:].isdigit():
        want *= units
    return value > want if sign == "+" else value < want if sign == "-" else value == want


def _atolx(text: str) -> int:
    try:
        return atolx(text)
    except Fatal as exc:
        raise FindExit(str(exc)) from exc


def _octal_mode(text: str) -> int:
    """-perm's MODE: octal (at most 07777) or symbolic (`u+x,g=r`) from no bits."""
    if text[:1].isdigit():
        if all(c in "01234567" for c in text) and int(text, 8) <= 0o7777:
            return int(text, 8)
        raise FindExit(f"bad mode '{text}'")
    mode = 0
    for clause in text.split(","):
        who = clause[: len(clause) - len(clause.lstrip("ugoa"))] or "a"
        rest = clause[len(who) if clause[:1] in "ugoa" else 0 :]
        if not rest or rest[0] not in "+-=" or any(c not in "+-=rwxstX" for c in rest):
            raise FindExit(f"bad mode '{text}'")
        mode = _apply_clause(mode, who, rest)
    return mode


def _apply_clause(mode: int, who: str, ops: str) -> int:
    masks = {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": 0o7777}
    mask = 0
    for w in who:
        mask |= masks[w]
    op = ""
    for c in ops:
        if c in "+-=":
            op = c
            if op == "=":
                mode &= ~mask
            continue
        bits = {"r": 0o444, "w": 0o222, "x": 0o111, "X": 0o111, "s": 0o6000, "t": 0o1000}[c] & mask
        mode = mode & ~bits if op == "-" else mode | bits
    return mode


def escape(fmt: str, i: int) -> tuple[str, int]:
    """The `\\` escape at fmt[i] (as toybox's unescape2): its text and the index past it."""
    c = fmt[i + 1] if i + 1 < len(fmt) else ""
    if c in ESCAPES:
        return chr(ESCAPES[c]), i + 2
    if c == "0" or c in "1234567":
        j = i + 1
        while j < len(fmt) and j < i + 4 and fmt[j] in "01234567":
            j += 1
        return chr(int(fmt[i + 1 : j], 8) & 0xFF), j
    if c in "xuU":
        width = {"x": 2, "u": 4, "U": 8}[c]
        j = i + 2
        while j < len(fmt) and j < i + 2 + width and fmt[j] in "0123456789abcdefABCDEF":
            j += 1
        if j > i + 2:
            return chr(min(int(fmt[i + 2 : j], 16), 0x10FFFF)), j
    return "\\", i + 1


@dataclass
class Find:
    """One `find` run: the filter words, what the first pass worked out, and the exit status."""

    inv: Invocation
    words: list[str]
    follow_all: bool
    now: float
    depth: bool = False
    xdev: bool = False
    status: int = 0
    data: dict[int, object] = field(default_factory=dict)  # word index: what its first pass found
    execs: list[Exec] = field(default_factory=list)
    exec_at: list[tuple[int, Exec]] = field(default_factory=list)  # word index of each -exec
    pending_calls: list[tuple[Exec, str, Found]] = field(default_factory=list)  # full `+` batches
    top: str = ""
    visits: int = 0

    async def run(self, node: Found | None) -> bool:
        """One entry through the expression (None: the first, checking pass); returns whether to
        enter it if it is a folder."""
        words = self.words
        stack: list[tuple[bool, bool]] = []
        active = test = node is not None
        negate = printed = False
        recurse = True
        i = 0
        while i < len(words):
            word = words[i]
            check = active and test
            if not word.startswith("-"):
                if len(word) != 1 or word not in "!()":
                    raise FindExit(f"bad arg '{word}'")
                if word == "!":
                    negate = negate != check
                elif word == "(":
                    if len(stack) == MAX_PARENS:
                        raise FindExit(f"bad arg '{word}'")
                    stack.append((negate, active))
                    active = active and check
                    negate = False
                else:
                    if not stack:
                        raise FindExit(f"bad arg '{word}'")
                    was_negated, active = stack.pop()
                    test = test != (active and was_negated)
                    negate = False
                i += 1
                continue
            name = word[1:]
            if name == "not":
                negate = negate != check
                i += 1
                continue
            if name in NO_ARG:
                test, recurse, printed, active = self.flag(
                    name, node, check, (test, recurse, printed, active), negate
                )
                i += 1
            elif name in ("exec", "ok", "execdir", "okdir"):
                printed = True
                i, ok = await self.exec_word(i, node, check)
                test = ok if check else test
            else:
                if name not in ONE_ARG and not name.startswith("newer"):
                    raise FindExit(f"bad arg '{word}'")
                if name == "printf":
                    printed = True
                if node is None:
                    self.first_pass(i, name)
                elif check:
                    test, recurse = await self.one_arg(i, name, node, test, negate, recurse)
                if i + 1 >= len(words):
                    raise FindExit(f"'{word}' needs 1 arg")
                i += 2
            if active and negate:
                test = not test
            negate = False
        if node is not None and not printed and test:
            self.inv.out(node.path + "\n")
        return recurse

    def flag(
        self, name: str, node: Found | None, check: bool, state: tuple[bool, bool, bool, bool], negate: bool
    ) -> tuple[bool, bool, bool, bool]:
        """A word without an argument: takes and returns (test, recurse, printed, active)."""
        test, recurse, printed, active = state
        if name == "xdev":
            self.xdev = True
        elif name == "delete":
            self.depth = True
            if node is not None and check:
                test = self.delete(node)
        elif name in ("depth", "d"):
            self.depth = True
        elif name in ("o", "or"):
            if negate:
                raise FindExit(f"bad arg '-{name}'")
            # reached with test true, an or has decided until the next `)`: nothing more is checked
            if active:
                active, test = not test, True
        elif name in ("a", "and", "noleaf"):
            if negate:
                raise FindExit(f"bad arg '-{name}'")
        elif name in ("print", "print0"):
            printed = True
            if node is not None and check:
                self.inv.out(node.path + ("\n" if name == "print" else "\0"))
        elif node is None or not check:
            pass
        elif name in ("true", "false"):
            test = name == "true"
        elif name == "empty":
            test = test and self.empty(node)
        elif name in ("nouser", "nogroup"):
            test = False  # every id the device uses has a name
        elif name == "prune":
            recurse = recurse and not (statmod.S_ISDIR(node.st.st_mode) and not self.depth)
        elif name == "executable":
            test = test and bool(node.st.st_mode & 0o111)
        elif name == "quit":
            raise FindExit("")
        return test, recurse, printed, active

    def empty(self, node: Found) -> bool:
        if statmod.S_ISDIR(node.st.st_mode):
            try:
                return not self.inv.fs.listdir(node.path, self.inv.cwd)
            except (OSError, PathEscapeError):
                return False
        return statmod.S_ISREG(node.st.st_mode) and node.st.st_size == 0

    def delete(self, node: Found) -> bool:
        """Removes the walked entry through its folder's descriptor; a failure is silent."""
        if node.entry is None:
            return False
        try:
            self.inv.fs.remove_entry(node.entry)
        except (OSError, PathEscapeError):
            return False
        return True

    def first_pass(self, i: int, name: str) -> None:
        """What toybox works out once, before the walk: lower-cased patterns, ids, reference times."""
        arg = self.words[i + 1] if i + 1 < len(self.words) else None
        if arg is None:
            return
        if name in MATCHES and name[0] == "i":
            self.data[i] = arg.lower()
        elif name in ("user", "group"):
            self.data[i] = self.lookup_id(name, arg)
        elif name.startswith("newer"):
            self.data[i] = self.reference_time(i, name[5:], arg)

    def lookup_id(self, kind: str, arg: str) -> int:
        if arg in IDS:
            return IDS[arg]
        if arg.isdigit():
            return int(arg)
        raise FindExit(f"bad {kind} '{arg}'")

    def reference_time(self, i: int, xy: str, arg: str) -> int:
        """-newer/-newerXY's time in ns: Y is the reference's time (t: a date), m when not given."""
        if xy and (len(xy) != 2 or xy[0] not in "Bmac" or xy[1] not in "tBmac"):
            raise FindExit(f"bad arg '{self.words[i]}'")
        if xy[1:] == "t":
            now = dt.datetime.fromtimestamp(self.now, local_zone(self.inv, False))
            try:
                when = parse_date(arg, local_zone(self.inv, False), now)
            except ValueError as exc:
                raise FindExit(f"bad date '{arg}'") from exc
            return int(when.timestamp()) * 1_000_000_000
        try:
            st = self.inv.fs.stat(arg, self.inv.cwd)
        except (OSError, PathEscapeError) as exc:
            raise FindExit(f"Can't stat {arg}: No such file or directory") from exc
        return self.time_of(st, xy[1:] or "m")

    def time_of(self, st: os.stat_result, which: str) -> int:
        if which == "a":
            return access_ns(st)
        if which == "c":
            return change_ns(st, self.inv.device.device_ns)
        return st.st_mtime_ns

    async def one_arg(
        self, i: int, name: str, node: Found, test: bool, negate: bool, recurse: bool
    ) -> tuple[bool, bool]:
        """A word with an argument, checked on `node`: returns (test, recurse)."""
        arg = self.words[i + 1]
        st = node.st
        if name in MATCHES:
            return self.match(i, name, node), recurse
        if name == "context":
            return glob(arg, context(device_path(self.inv, node.path))), recurse
        if name == "perm":
            want = _octal_mode(arg.lstrip("-/") if arg[:1] in "-/" else arg)
            mode = statmod.S_IMODE(st.st_mode)
            if arg[:1] == "/":
                return not want or bool(mode & want), recurse
            return (mode & want if arg[:1] == "-" else mode) == want, recurse
        if name == "type":
            for c in arg:
                if c == ",":
                    continue
                if c not in TYPES:
                    raise FindExit(f"bad -type '{c}'")
                if statmod.S_IFMT(st.st_mode) == TYPES[c]:
                    return True, recurse
            return False, recurse
        if name[1:] in ("time", "min"):
            return self.age(name, arg, st), recurse
        if name == "size":
            return compare(st.st_size, 512, arg), recurse
        if name in ("links", "inum"):
            return compare(st.st_nlink if name == "links" else st.st_ino, 0, arg), recurse
        if name in ("mindepth", "maxdepth"):
            limit = _atolx(arg)
            if name == "mindepth":
                return node.depth >= limit, recurse and not (node.depth == limit and negate)
            return node.depth <= limit, recurse and not (node.depth == limit and not negate)
        if name in ("user", "group"):
            user, group = owner(device_path(self.inv, node.path))
            return IDS.get(user if name == "user" else group, 0) == self.data[i], recurse
        if name.startswith("newer"):
            return self.newer(i, name, node), recurse
        self.printf(arg, node)
        return test, recurse

    def match(self, i: int, name: str, node: Found) -> bool:
        pattern = self.words[i + 1]
        folded = name[0] == "i"
        base = name[1:] if folded else name
        if base[0] == "l":
            try:
                text = self.inv.fs.readlink(node.path, self.inv.cwd)
            except (OSError, PathEscapeError):
                return False
        elif base == "name":
            text = _basename(node.name if node.parent else node.path)
        else:
            text = node.path
        if folded:
            pattern, text = str(self.data[i]), text.lower()
        return glob_name(pattern, text) if base == "name" else glob(pattern, text)

    def age(self, name: str, arg: str, st: os.stat_result) -> bool:
        units = 60 if name[1:] == "min" else 86400
        if arg and arg[-1].lower() in "dhms":
            units = {"d": 86400, "h": 3600, "m": 60, "s": 1}[arg[-1].lower()]
            arg = arg[:-1]
        stamp = self.time_of(st, name[0]) // 1_000_000_000
        return compare(int(self.now) - stamp, units, arg)

    def newer(self, i: int, name: str, node: Found) -> bool:
        # toybox picks the entry's time from the byte 5 past "newer" in its argv memory, which
        # lies in the next word: mirror that, as it decides -newer's results on a device.
        memory = name[5:] + "\0" + "\0".join(self.words[i + 1 :]) + "\0"
        which = memory[5] if len(memory) > 5 else "\0"
        if which == "B":
            return False
        mine = self.time_of(node.st, which if which in "ac" else "m")
        ref = int(str(self.data[i]))
        if mine // 1_000_000_000 == ref // 1_000_000_000:
            return mine % 1_000_000_000 > ref % 1_000_000_000
        return mine // 1_000_000_000 > ref // 1_000_000_000

    def printf(self, fmt: str, node: Found) -> None:
        """-printf: `\\` escapes (\\c stops) and %-fields with printf flags and width."""
        out: list[str] = []
        i = 0
        try:
            while i < len(fmt):
                c = fmt[i]
                if c == "\\":
                    if fmt[i + 1 : i + 2] == "c":
                        break
                    text, i = escape(fmt, i)
                    out.append(text)
                elif c != "%":
                    out.append(c)
                    i += 1
                elif fmt[i + 1 : i + 2] == "%":
                    out.append("%")
                    i += 2
                else:
                    text, i = self.field(fmt, i, node)
                    out.append(text)
        finally:
            self.inv.out("".join(out).encode("utf-8", "surrogateescape"))

    def field(self, fmt: str, i: int, node: Found) -> tuple[str, int]:
        j = i + 1
        while j < len(fmt) and fmt[j] in "-+ #0'":
            j += 1
        while j < len(fmt) and (fmt[j].isdigit() or fmt[j] == "."):
            j += 1
        spec, kind = fmt[i:j], fmt[j : j + 1]
        if len(spec) > 28:
            raise FindExit(f"bad {fmt[i : j + 1]}")
        st = node.st
        numbers = {"i": st.st_ino, "s": st.st_size, "G": self.ids(node)[1], "U": self.ids(node)[0]}
        if kind in numbers:
            return (spec + "d") % numbers[kind], j + 1
        if kind == "m":
            return (spec + "o") % (st.st_mode & 0o7777), j + 1
        if kind == "T":
            if fmt[j + 1 : j + 2] != "@":
                raise FindExit(f"bad -printf %T: %T{fmt[j + 1 : j + 2] or chr(0)}")  # C reads the NUL
            return (spec + "s") % f"{st.st_mtime_ns // 10**9}.{st.st_mtime_ns % 10**9}", j + 2
        texts = {"f": node.name if node.parent else node.path, "p": node.path, "M": mode_string(st)}
        if kind in "ug":
            user, group = owner(device_path(self.inv, node.path))
            texts |= {"u": user, "g": group}
        elif kind == "P":
            texts["P"] = node.path[len(self.top) :].lstrip("/") if node.parent else ""
        elif kind == "l":
            texts["l"] = self.link_text(node)
        elif kind == "Z":
            texts["Z"] = context(device_path(self.inv, node.path))
        if kind not in texts:
            raise FindExit(f"bad -printf %{kind}")
        return (spec + "s") % texts[kind], j + 1

    def ids(self, node: Found) -> tuple[int, int]:
        user, group = owner(device_path(self.inv, node.path))
        return IDS.get(user, 0), IDS.get(group, 0)

    def link_text(self, node: Found) -> str:
        if not statmod.S_ISLNK(node.st.st_mode):
            return ""
        try:
            return self.inv.fs.readlink(node.path, self.inv.cwd)
        except (OSError, PathEscapeError):
            return ""

    # ---- -exec --------------------------------------------------------------------------------

    async def exec_word(self, i: int, node: Found | None, check: bool) -> tuple[int, bool]:
        """-exec and kin: on the first pass records the command; on a walk runs or collects it.
        Returns the index past the command's `;` or `+`, and the test."""
        if node is None:
            return self.parse_exec(i), True
        ex = self.execs[[n for n, _ in self.exec_at].index(i)]
        end = i + 1 + len(ex.words) + 1  # past the words (`{}` of a `+` among them) and `;` or `+`
        if not check:
            return end, True
        name = node.name if ex.in_dir and node.parent else node.path
        if ex.ask:
            self.inv.err(f"[{self.words[i + 1]}] {name} (y/N):")
            await self.inv.io.stderr.flush()
            if not await self.answer():
                return end, False
        if ex.plus:
            self.collect(ex, node, name)
            return end, True
        status = await self.call(ex, [name], node)
        return end, status == 0

    def parse_exec(self, i: int) -> int:
        word = self.words[i]
        rest = self.words[i + 1 :]
        if not rest or rest[0] == ";":
            raise FindExit(f"'{word[1:]}' needs 1 arg")
        curly, plus, n = -1, False, 0
        while n < len(rest) and rest[n] != ";":
            if rest[n] == "{}":
                curly = n
                if rest[n + 1 : n + 2] == ["+"]:
                    plus = True
                    break
            n += 1
        if n >= len(rest):
            raise FindExit("-exec without " + ("\\;" if curly != -1 else "{}"))
        ex = Exec(rest[:n] if not plus else rest[: n + 1], curly, plus, "dir" in word, word[1] == "o")
        self.execs.append(ex)
        self.exec_at.append((i, ex))
        return i + 1 + n + 1 + (1 if plus else 0)

    async def answer(self) -> bool:
        line = await self.inv.io.stdin.readline()
        yes = False
        for c in line.decode("latin-1"):
            if c.isspace():
                break
            if c.lower() in "ny":
                yes = c.lower() == "y"
        return yes

    def collect(self, ex: Exec, node: Found, name: str) -> None:
        key = _folder_key(node) if ex.in_dir else ""
        ex.pending.setdefault(key, []).append(name)
        ex.size += 8 + len(name.encode("utf-8", "surrogateescape")) + 1
        if ex.size > MAX_ARG_BYTES:
            ex.size = 1
            self.pending_calls.append((ex, key, node))

    async def call(self, ex: Exec, names: list[str], node: Found | None) -> int:
        """Runs the command with `names` where `{}` is, in the entry's folder for -execdir."""
        argv = ex.words[: ex.curly] + names + ex.words[ex.curly + 1 :] if ex.curly >= 0 else list(ex.words)
        if ex.plus:
            argv = ex.words[: ex.curly] + names
        cwd = self.inv.cwd
        if ex.in_dir and node is not None and node.parent is not None:
            cwd = posixpath.dirname(device_path(self.inv, node.path)) or "/"
        return await run_command(self.inv, argv, cwd)

    async def flush(self, ex: Exec, key: str, node: Found | None) -> None:
        names = ex.pending.pop(key, [])
        if names:
            self.status |= await self.call(ex, names, node)

    async def flush_due(self) -> None:
        while self.pending_calls:
            ex, key, parent = self.pending_calls.pop(0)
            await self.flush(ex, key, parent)

    async def leave_folder(self, node: Found) -> None:
        """A folder is done: its `-execdir ... {} +` names run (in its parent, as toybox does)."""
        for ex in self.execs:
            if ex.plus and ex.in_dir:
                await self.flush(ex, _folder_key(node, own=True), node)

    async def finish(self) -> None:
        for ex in self.execs:
            if ex.plus:
                for key in list(ex.pending):
                    await self.flush(ex, key, None)


def _folder_key(node: Found, own: bool = False) -> str:
    """The `-execdir +` batch an entry's name joins: its folder's (a folder's own, with `own`)."""
    if own:
        return "/" + node.path.rstrip("/")
    return "" if node.parent is None else "/" + node.parent.rstrip("/")


def _basename(path: str) -> str:
    stripped = path.rstrip("/")
    return posixpath.basename(stripped) if stripped else "/" if path else ""


def context(path: str) -> str:
    """The SELinux label `ls -Z` shows for a device path."""
    if path.startswith("/data/local/tmp"):
        return "u:object_r:shell_data_file:s0"
    if path.startswith(("/sdcard", "/storage/emulated")):
        return "u:object_r:media_rw_data_file:s0"
    return "u:object_r:system_file:s0"


async def run_command(inv: Invocation, argv: list[str], cwd: str, io: ShellIO | None = None) -> int:
    """One command through the shell's command table (its limits), as find's and xargs' children
    are: exec'd, so a name that is no program fails as exec does (127), not as the shell says."""
    from mgfarm.sim.shell.interp import Shell

    shell = Shell(inv.device, dict(inv.env), cwd, uid=inv.uid)
    name = argv[0]
    if command_name(name) not in COMMANDS and not ("/" in name and shell._is_script(name)):
        inv.err(f"{inv.argv[0]}: exec {name}: No such file or directory\n")
        return 127
    return await shell.call(argv, io or inv.io)


# ---- the walks --------------------------------------------------------------------------------


def _device_stat(inv: Invocation, path: str, st: os.stat_result) -> os.stat_result:
    """A link's size is its device target's length (the host's link carries the sandbox prefix)."""
    if not statmod.S_ISLNK(st.st_mode):
        return st
    try:
        size = len(inv.fs.readlink(path, inv.cwd).encode("utf-8", "surrogateescape"))
    except (OSError, PathEscapeError):
        return st
    fields = list(st)
    fields[statmod.ST_SIZE] = size
    return os.stat_result(
        fields,
        {
            "st_atime_ns": st.st_atime_ns,
            "st_mtime_ns": st.st_mtime_ns,
            "st_ctime_ns": st.st_ctime_ns,
            "st_blocks": st.st_blocks,
            "st_blksize": st.st_blksize,
            "st_rdev": st.st_rdev,
        },
    )


def _held_walk(find: Find, top: str, follow_top: bool) -> AsyncIterator[tuple[str, Found]]:
    """The walk through folder descriptors (no link below the top entered): ("pre"|"post"|"denied", Found)."""
    return _events(find, top, follow_top)


async def _events(find: Find, top: str, follow_top: bool) -> AsyncIterator[tuple[str, Found]]:
    inv = find.inv
    walk = inv.fs.walk(top, inv.cwd, follow_top, find.depth, MAX_TREE_DEPTH)
    for entry in walk:
        parent = entry.path[: len(entry.path) - len(entry.name)] if entry.depth else None
        node = Found(
            entry.path, entry.name, _device_stat(inv, entry.path, entry.st), entry.depth, parent, entry
        )
        denied = entry.denied
        if find.depth:
            yield ("denied" if denied else "post"), node
            continue
        yield "pre", node
        entry.prune = node.prune
        if denied:
            yield "denied", node


async def _link_walk(find: Find, top: str) -> AsyncIterator[tuple[str, Found]]:
    """-L: every link is followed (by path); a folder met again below itself is a loop."""
    inv = find.inv
    st = _follow_stat(inv, top)
    node = Found(top, top, _device_stat(inv, top, st), 0)
    async for event in _link_node(find, node, [(st.st_dev, st.st_ino)]):
        yield event


def _follow_stat(inv: Invocation, path: str) -> os.stat_result:
    """stat, or lstat for a dangling link (as toybox's dirtree does)."""
    try:
        return inv.fs.stat(path, inv.cwd)
    except FileNotFoundError:
        return inv.fs.stat(path, inv.cwd, follow=False)


async def _link_node(
    find: Find, node: Found, seen: list[tuple[int, int]]
) -> AsyncIterator[tuple[str, Found]]:
    inv = find.inv
    is_dir = statmod.S_ISDIR(node.st.st_mode)
    if not find.depth:
        yield "pre", node
    if is_dir and not node.prune and node.depth < MAX_TREE_DEPTH:
        try:
            names = inv.fs.listdir(node.path, inv.cwd)
        except (OSError, PathEscapeError):
            yield "denied", node
            return
        base = node.path[:-1] if node.path.endswith("/") else node.path
        for name in names:
            path = f"{base}/{name}"
            try:
                st = _follow_stat(inv, path)
            except (OSError, PathEscapeError):
                continue
            key = (st.st_dev, st.st_ino)
            child = Found(path, name, _device_stat(inv, path, st), node.depth + 1, node.path)
            if statmod.S_ISDIR(st.st_mode) and key in seen:
                yield "loop", child
                continue
            async for event in _link_node(find, child, [*seen, key]):
                yield event
    if find.depth:
        yield "post", node


async def _walk_one(find: Find, top: str, follow_top: bool) -> None:
    """One path operand through the expression."""
    inv = find.inv
    try:
        if not top:
            raise FileNotFoundError(top)  # the kernel finds no entry named ""
        inv.fs.stat(top, inv.cwd, follow=False)
        if follow_top:
            follow_top = _follow_stat(inv, top) is not None and inv.fs.exists(top, inv.cwd)
    except (OSError, PathEscapeError):
        inv.err(f"find: '{top}': No such file or directory\n")
        find.status = 1
        return
    find.top = top
    events = _link_walk(find, top) if find.follow_all else _held_walk(find, top, follow_top)
    open_dirs: list[Found] = []
    async for kind, node in events:
        find.visits += 1
        if find.visits > MAX_VISITS:
            raise FindExit(f"stopped after {MAX_VISITS} entries")
        if find.visits % YIELD_EVERY == 0:
            await asyncio.sleep(0)  # a walk over a huge tree must not hold the other devices
        if kind == "denied":
            inv.err(f"find: {node.path}: Permission denied\n")
            find.status = 1
            continue
        if kind == "loop":
            inv.err(f"find: '{node.path}': loop detected\n")
            find.status = 1
            continue
        while open_dirs and open_dirs[-1].depth >= node.depth and kind == "pre":
            await find.leave_folder(open_dirs.pop())
        if kind == "post" and statmod.S_ISDIR(node.st.st_mode):
            await find.leave_folder(node)
        node.prune = not await find.run(node)
        await find.flush_due()
        if kind == "pre" and statmod.S_ISDIR(node.st.st_mode) and not node.prune:
            open_dirs.append(node)
        await inv.io.stdout.maybe_flush()
    while open_dirs:
        await find.leave_folder(open_dirs.pop())


def _split_args(args: list[str]) -> tuple[str, list[str], list[str]]:
    """toybox's `?^HL[-HL]`: leading -H/-L (the last counts), then paths up to a word starting
    with `-`, `!` or `(`, then the expression."""
    mode = ""
    while args and args[0].startswith("-") and len(args[0]) > 1 and set(args[0][1:]) <= {"H", "L"}:
        mode = args.pop(0)[-1]
    if args[:1] == ["--"]:
        args.pop(0)
    count = 0
    while count < len(args) and not (args[count][:1] and args[count][0] in "-!("):
        count += 1
    return mode, args[:count] or ["."], args[count:]


@command("find")
async def find(inv: Invocation) -> int:
    """`find [-HL] [PATH...] [EXPRESSION]` as toybox 0.8.6."""
    mode, paths, words = _split_args(list(inv.argv[1:]))
    run = Find(inv, words, mode == "L" and "-delete" not in words, inv.device.services.clock.now())
    try:
        await run.run(None)
        for path in paths:
            await _walk_one(run, path, bool(mode))
        await run.finish()
    except FindExit as exc:
        if str(exc):
            inv.err(f"find: {exc}\n")
            return 1
        await run.finish()  # -quit: pending `+` batches still run
    return run.status
