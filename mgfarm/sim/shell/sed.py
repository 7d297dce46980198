"""`sed` as Android 13's toybox (0.8.6) runs it: GNU sed's language, which toybox follows, with
toybox's addresses: no `first~step` or `A,~N`, line numbers read as strtol reads them (`010` is 8),
and line 0 as no address at all (`0,/re/p` prints every line).

Addresses (N, $, /re/, \\cREc, A,B ranges, A,+N, `!`), blocks `{}`, and the
commands s (flags g p i N), y, p P d D n N g G h H x b t T : = q Q a i c r l. BREs and EREs (-E, -r)
become regexes for the bounded engine, matched against the pattern space as POSIX does (`$` only
at its end, an empty match never right after a match). Options -n -e -f -i -s -E -r -z.

Scripts come from agents: a run has its own thread, one time budget for its matching and loops
(`:a; ba` ends), bounded output, and stops with its command.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from mgfarm.sim.shell.files import CommandError, fs_call, read_input, report
from mgfarm.sim.shell.posix_regex import bracket_end, to_python
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import (
    BoundedPattern,
    Limits,
    RegexError,
    RegexTimeout,
    RunStopped,
    compile_regex,
    run_stoppable,
)
from mgfarm.sim.shell.text import split_lines

SED_SECONDS = 30.0
MAX_OUTPUT = 64 * 1024 * 1024
MAX_SCRIPT = 65536
LINE_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|0[0-7]*|[0-9]+")
MAX_SPACE = 16 * 1024 * 1024  # characters the pattern or hold space may hold (`:a;G;ba` doubles it)
TOO_BIG = "pattern or hold space larger than 16 MiB, stopped"


class SedError(Exception):
    """What sed reports after `sed: `; status 1."""


@dataclass
class Address:
    kind: str  # "line", "last", "re", "plus" (A,+N)
    number: int = 0
    regex: str | None = None  # None: the last regex used
    flags: str = ""


@dataclass
class Cmd:
    name: str
    first: Address | None = None
    last: Address | None = None
    negate: bool = False
    text: str = ""  # a i c text, a label, a file name
    regex: str | None = None  # s: the pattern (None: the last regex)
    replacement: str = ""
    flags: str = ""  # s: g p i; y: unused
    nth: int = 1
    table: dict[int, int] = field(default_factory=dict)  # y
    target: int = 0  # { : the index after its }; b t T: the label's index
    exit_code: int = 0
    # range state
    active: bool = False
    until: int = 0


# ---- parsing ------------------------------------------------------------------------------------


class Parser:
    def __init__(self, script: str, extended: bool) -> None:
        self.s = script
        self.i = 0
        self.extended = extended
        self.cmds: list[Cmd] = []

    def error(self) -> SedError:
        shown = self.s[self.i] if self.i < len(self.s) else ""
        return SedError(f"bad pattern '{self.s}'@{self.i + 1} ({shown})")

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def blanks(self) -> None:
        while self.peek() in (" ", "\t"):
            self.i += 1

    def parse(self) -> list[Cmd]:
        opened: list[int] = []
        while True:
            while self.peek() and self.peek() in " \t\n;":
                self.i += 1
            if not self.peek():
                break
            if self.peek() == "#":
                while self.peek() and self.peek() != "\n":
                    self.i += 1
                continue
            cmd = Cmd("")
            cmd.first = self.address()
            if cmd.first is not None:
                self.blanks()
                if self.peek() == ",":
                    self.i += 1
                    self.blanks()
                    cmd.last = self.range_end()
            if cmd.first == Address("line", 0):
                # toybox keeps line 0 as "no address": the command runs on every line, whatever
                # follows it (`0,/re/` and `0!` included)
                cmd.first = cmd.last = None
                zero = True
            else:
                zero = False
            self.blanks()
            while self.peek() == "!":
                cmd.negate = not zero
                self.i += 1
                self.blanks()
            name = self.peek()
            if not name:
                raise self.error()
            self.i += 1
            cmd.name = name
            self.arguments(cmd)
            if name == "{":
                opened.append(len(self.cmds))
            elif name == "}":
                if not opened or cmd.first is not None:
                    raise self.error()
                self.cmds[opened.pop()].target = len(self.cmds) + 1
            self.cmds.append(cmd)
        if opened:
            raise SedError("no }")
        labels = {c.text: n for n, c in enumerate(self.cmds) if c.name == ":"}
        for c in self.cmds:
            if c.name in "btT":
                if c.text and c.text not in labels:
                    raise SedError(f"no :{c.text}")
                c.target = labels[c.text] if c.text else len(self.cmds)
        return self.cmds

    def line_number(self) -> int:
        """A line address as toybox reads one, with strtol's base 0: `010` is 8, `0x10` 16."""
        m = LINE_NUMBER.match(self.s, self.i)
        assert m is not None  # at a digit
        self.i = m.end()
        text = m.group()
        return int(text, 16) if text[:2].lower() == "0x" else int(text, 8) if text[0] == "0" else int(text)

    def number(self) -> int:
        start = self.i
        while self.peek().isascii() and self.peek().isdigit():
            self.i += 1
        return int(self.s[start : self.i])

    def address(self) -> Address | None:
        c = self.peek()
        if c.isascii() and c.isdigit():
            line = self.line_number()
            if self.peek() == "~":  # GNU's first~step: toybox stops at the step
                self.i += 1
                raise self.error()
            return Address("line", line)
        if c == "$":
            self.i += 1
            return Address("last")
        if c in ("/", "\\"):
            if c == "\\":
                self.i += 1
            delim = self.peek()
            if not delim or delim in "\n\\":
                raise self.error()
            self.i += 1
            regex = self.delimited(delim, regex=True)
            flags = ""
            while self.peek() in ("I", "M"):
                flags += self.peek()
                self.i += 1
            return Address("re", regex=regex or None, flags=flags)
        return None

    def range_end(self) -> Address:
        if self.peek() == "+":
            self.i += 1
            if not self.peek().isdigit():
                raise self.error()
            return Address("plus", self.line_number())
        if self.peek() == "~":  # GNU's A,~N: not toybox's
            self.i += 1
            raise self.error()
        end = self.address()
        if end is None:
            raise self.error()
        return end

    def delimited(self, delim: str, regex: bool) -> str:
        """Text up to an unescaped `delim`; `\\delim` is the delimiter itself, `\\n` a newline."""
        out: list[str] = []
        while True:
            c = self.peek()
            if not c:
                raise SedError(f"unterminated {'regex' if regex else 'replacement'} in '{self.s}'")
            self.i += 1
            if c == delim:
                return "".join(out)
            if c == "\\":
                nxt = self.peek()
                self.i += 1
                if nxt == delim:  # the delimiter, escaped: the character, with its meaning (`s.a\..X.`)
                    out.append(nxt)
                elif nxt == "n":
                    out.append("\n" if not regex else "\\n")
                elif nxt == "\n":
                    out.append("\n")
                else:
                    out.append("\\" + nxt)
                continue
            if regex and c == "[":  # a bracket expression may hold the delimiter
                end = bracket_end(self.s, self.i - 1)
                out.append(self.s[self.i - 1 : end])
                self.i = end
                continue
            out.append(c)

    def arguments(self, cmd: Cmd) -> None:
        name = cmd.name
        if name in "{}=dDgGhHlnNpPxz":
            return
        if name in "aic":
            self.blanks()
            if self.peek() == "\\":
                self.i += 1
                if self.peek() == "\n":
                    self.i += 1
            cmd.text = self.text_argument()
            return
        if name in ":btTrRwW":
            self.blanks()
            start = self.i
            while self.peek() and self.peek() != "\n" and (name in "rRwW" or self.peek() != ";"):
                self.i += 1
            cmd.text = self.s[start : self.i].strip() if name != ":" else self.s[start : self.i].rstrip()
            if name == ":" and not cmd.text:
                raise SedError('":" lacks a label')
            if name in "wW":
                raise SedError(f"'{name}' (writing a file) is not supported on this device's sed")
            return
        if name in "qQ":
            self.blanks()
            cmd.exit_code = self.number() if self.peek().isdigit() else 0
            return
        if name == "s":
            delim = self.peek()
            if not delim or delim in "\n\\":
                raise self.error()
            self.i += 1
            cmd.regex = self.delimited(delim, regex=True) or None
            cmd.replacement = self.delimited(delim, regex=False)
            while self.peek() and self.peek() in "gpiIme0123456789":
                if self.peek().isdigit():
                    cmd.nth = self.number()
                    if cmd.nth == 0:
                        raise SedError("number option to `s' command may not be zero")
                    continue
                cmd.flags += self.peek().lower()
                self.i += 1
            if "e" in cmd.flags:
                raise SedError("the 'e' flag (running a command) is not supported on this device's sed")
            self.blanks()
            if self.peek() == "w":
                raise SedError("'w' (writing a file) is not supported on this device's sed")
            return
        if name == "y":
            delim = self.peek()
            if not delim or delim in "\n\\":
                raise self.error()
            self.i += 1
            src = _unescape(self.delimited(delim, regex=False))
            dst = _unescape(self.delimited(delim, regex=False))
            if len(src) != len(dst):
                raise SedError("strings for `y' command are different lengths")
            cmd.table = {ord(a): ord(b) for a, b in zip(src, dst, strict=True)}
            return
        self.i -= 1
        raise self.error()

    def text_argument(self) -> str:
        """a/i/c text: to the end of the line, a backslash continuing it onto the next."""
        out: list[str] = []
        while self.peek() and self.peek() != "\n":
            c = self.peek()
            self.i += 1
            if c == "\\" and self.peek():
                nxt = self.peek()
                self.i += 1
                out.append("\n" if nxt == "\n" else nxt)
                continue
            out.append(c)
        return "".join(out)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "\\": "\\"}.get(m.group(1), m.group(1)), text)


# ---- running ------------------------------------------------------------------------------------


class Quit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@dataclass
class Options:
    quiet: bool = False
    extended: bool = False
    separate: bool = False
    ending: str = "\n"  # what ends a record, read and printed: NUL with -z


class Run:
    """One run of a parsed script over input lines."""

    def __init__(self, cmds: list[Cmd], opts: Options, seconds: float, stop: threading.Event) -> None:
        self.cmds = cmds
        self.opts = opts
        self.hold = ""
        self.number = 0
        self.out: list[str] = []
        self.limits = Limits(seconds, MAX_OUTPUT, stop)
        self.last_regex: str | None = None
        self.compiled: dict[tuple[str, str], BoundedPattern] = {}
        self.files: dict[str, str] = {}  # r FILE contents, read before the run

    def tick(self) -> None:
        self.limits.tick()

    def emit(self, text: str) -> None:
        self.limits.output(len(text))
        self.out.append(text)

    def regex(self, source: str | None, flags: str) -> BoundedPattern:
        if source is None:
            if self.last_regex is None:
                raise SedError("no previous regex")
            source = self.last_regex
        self.last_regex = source
        key = (source, flags)
        found = self.compiled.get(key)
        if found is None:
            try:
                found = compile_regex(
                    to_python(source, self.opts.extended), "i" in flags.lower(), self.limits.budget
                )
            except RegexError as exc:
                raise SedError(f"bad regex '{source}': {exc}") from exc
            if len(self.compiled) < 256:
                self.compiled[key] = found
        return found

    def matches(self, addr: Address, line: str, last: bool) -> bool:
        if addr.kind == "line":
            return self.number == addr.number
        if addr.kind == "last":
            return last
        return self.regex(addr.regex, addr.flags).search(line) is not None

    def selected(self, cmd: Cmd, line: str, last: bool) -> bool:
        if cmd.first is None:
            hit = True
        elif cmd.last is None:
            hit = self.matches(cmd.first, line, last)
        else:
            hit = self.in_range(cmd, line, last)
        return hit != cmd.negate

    def range_ends(self, cmd: Cmd, end: Address, line: str, last: bool) -> bool:
        """Whether this line, inside the range, is its last."""
        if end.kind == "line":
            return self.number >= end.number
        if end.kind == "plus":
            return self.number >= cmd.until
        return self.matches(end, line, last)

    def in_range(self, cmd: Cmd, line: str, last: bool) -> bool:
        first, end = cmd.first, cmd.last
        assert first is not None and end is not None
        if cmd.active:
            cmd.active = not self.range_ends(cmd, end, line, last)
            return True
        if not self.matches(first, line, last):
            return False
        if end.kind == "line":
            cmd.active = end.number > self.number
        elif end.kind == "plus":
            cmd.until = self.number + end.number
            cmd.active = end.number > 0
        else:
            cmd.active = not (end.kind == "last" and last)
        return True

    def run(self, lines: list[str], at_end: bool) -> None:
        """Lines of one input (or all inputs); `at_end`: its last line is the last of the run."""
        index = 0
        space: str | None = None
        while True:
            if space is None:
                if index >= len(lines):
                    return
                space = lines[index]
                index += 1
                self.number += 1
            appended: list[str] = []
            changed = False  # for t and T: a substitution since the last input line or t
            pc = 0
            restart = False
            deleted = False
            while pc < len(self.cmds):
                self.tick()
                if len(space) > MAX_SPACE or len(self.hold) > MAX_SPACE:
                    raise SedError(TOO_BIG)
                cmd = self.cmds[pc]
                pc += 1
                last = at_end and index >= len(lines)
                if cmd.name == "}" or cmd.name == ":":
                    continue
                if not self.selected(cmd, space, last):
                    if cmd.name == "{":
                        pc = cmd.target
                    continue
                name = cmd.name
                if name == "{":
                    continue
                if name == "=":
                    self.emit(f"{self.number}\n")
                elif name == "a":
                    appended.append(cmd.text + "\n")
                elif name == "r":
                    if cmd.text in self.files:
                        appended.append(self.files[cmd.text])
                elif name == "i":
                    self.emit(cmd.text + "\n")
                elif name == "c":
                    if cmd.last is None or not cmd.active or cmd.negate:
                        self.emit(cmd.text + "\n")
                    deleted = True
                    break
                elif name == "d":
                    deleted = True
                    break
                elif name == "D":
                    if "\n" not in space:
                        deleted = True
                        break
                    space = space.split("\n", 1)[1]
                    restart = True
                    break
                elif name == "p":
                    self.emit(space + self.opts.ending)
                elif name == "P":
                    self.emit(space.split("\n", 1)[0] + self.opts.ending)
                elif name == "l":
                    self.emit(_unambiguous(space))
                elif name == "h":
                    self.hold = space
                elif name == "H":
                    self.hold += "\n" + space
                elif name == "g":
                    space = self.hold
                elif name == "G":
                    space += "\n" + self.hold
                elif name == "x":
                    space, self.hold = self.hold, space
                elif name == "z":
                    space = ""
                elif name in ("n", "N"):
                    if index >= len(lines):  # no next line: print (GNU's N too) and quit
                        if not self.opts.quiet:
                            self.emit(space + self.opts.ending)
                        self.flush(appended)
                        raise Quit(0)
                    if name == "n":
                        if not self.opts.quiet:
                            self.emit(space + self.opts.ending)
                        self.flush(appended)
                        appended = []
                        space = lines[index]
                    else:
                        self.flush(appended)
                        appended = []
                        space += "\n" + lines[index]
                    index += 1
                    self.number += 1
                elif name == "s":
                    space, hit = self.substitute(cmd, space)
                    changed = changed or hit
                    if hit and "p" in cmd.flags:
                        self.emit(space + self.opts.ending)
                elif name == "y":
                    space = space.translate(cmd.table)
                elif name in ("b", "t", "T"):
                    if name == "b" or (changed == (name == "t")):
                        pc = cmd.target
                    if name != "b":
                        changed = False
                elif name in ("q", "Q"):
                    if name == "q" and not self.opts.quiet:
                        self.emit(space + self.opts.ending)
                    if name == "q":
                        self.flush(appended)
                    raise Quit(cmd.exit_code)
            if restart:  # D: the rest of the pattern space starts the next cycle
                self.flush(appended)
                continue
            if not deleted and not self.opts.quiet:
                self.emit(space + self.opts.ending)
            self.flush(appended)
            space = None

    def flush(self, appended: list[str]) -> None:
        for text in appended:
            self.emit(text)

    def substitute(self, cmd: Cmd, space: str) -> tuple[str, bool]:
        regex = self.regex(cmd.regex, cmd.flags)
        out: list[str] = []
        pos = 0
        hit = False
        grown = 0
        for count, m in enumerate(regex.posix_matches(space), 1):
            if count >= cmd.nth:
                out.append(space[pos : m.start()])
                out.append(_expand(cmd.replacement, m))
                grown += len(out[-1])
                if grown > MAX_SPACE:  # s/x*/&&&&/g on a long line
                    raise SedError(TOO_BIG)
                pos = m.end()
                hit = True
                if "g" not in cmd.flags:
                    break
            self.tick()
        if not hit:
            return space, False
        out.append(space[pos:])
        return "".join(out), True


def _expand(template: str, m: Any) -> str:
    """The replacement for one match: `&`, `\\1`..`\\9`, `\\n`, `\\t`, `\\&`, `\\\\`."""
    out: list[str] = []
    i = 0
    while i < len(template):
        c = template[i]
        if c == "&":
            out.append(m.group(0))
        elif c == "\\" and i + 1 < len(template):
            nxt = template[i + 1]
            i += 1
            if nxt.isdigit():
                group = int(nxt)
                if group > (m.re.groups if hasattr(m, "re") else 0):
                    raise SedError(f"no s//\\{group}/")
                out.append(m.group(group) or "")
            else:
                out.append({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt))
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _unambiguous(text: str) -> str:
    """`l`: escapes for the unprintable, lines cut at 69 characters with `\\`, `$` at the end."""
    escapes = {
        "\\": "\\\\",
        "\a": "\\a",
        "\b": "\\b",
        "\f": "\\f",
        "\n": "\\n",
        "\r": "\\r",
        "\t": "\\t",
        "\v": "\\v",
    }
    pieces: list[str] = []
    for ch in text:
        if ch in escapes:
            pieces.append(escapes[ch])
        elif ch.isprintable() and ch.isascii():
            pieces.append(ch)
        else:
            pieces.extend(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogateescape"))
    out: list[str] = []
    width = 0
    for piece in pieces:
        if width + len(piece) > 69:
            out.append("\\\n")
            width = 0
        out.append(piece)
        width += len(piece)
    return "".join(out) + "$\n"


def sed_run(
    cmds: list[Cmd], opts: Options, inputs: list[list[str]], files: dict[str, str], stop: threading.Event
) -> tuple[list[str], int, str]:
    """Each input's output (one for all unless separate), the status, an error message."""
    run = Run(cmds, opts, SED_SECONDS, stop)
    run.files = files
    results: list[str] = []
    status = 0
    error = ""
    groups = inputs if opts.separate else [[line for lines in inputs for line in lines]]
    try:
        for lines in groups:  # -s and -i: each file on its own ($ is its last line)
            run.out = []
            try:
                run.run(lines, True)
            finally:
                results.append("".join(run.out))
            for c in cmds:
                c.active = False
    except Quit as done:
        status = done.code
    except (SedError, RegexTimeout, RunStopped) as exc:
        error = f"sed: {exc}\n"
        status = 1
    return results, status, error


@command("sed")
async def sed(inv: Invocation) -> int:
    """`sed [-nErsz] [-i] [-e SCRIPT]... [-f FILE]... [SCRIPT] [FILE...]`."""
    args = list(inv.argv[1:])
    scripts: list[str] = []
    operands: list[str] = []
    opts = Options()
    in_place = False
    while args:
        arg = args.pop(0)
        if arg == "--":
            operands += args
            break
        if not arg.startswith("-") or arg == "-":
            operands.append(arg)
            continue
        if arg in ("--version",):
            inv.out("This is not GNU sed version 9.0\n")
            return 0
        letters = arg[1:]
        for n, letter in enumerate(letters):
            if letter in "ef":
                value = letters[n + 1 :] or (args.pop(0) if args else None)
                if value is None:
                    inv.err(f"sed: -{letter} needs an argument\n")
                    return 1
                if letter == "e":
                    scripts.append(value)
                else:
                    try:
                        scripts.append((await read_input(inv, value)).decode(errors="replace").rstrip("\n"))
                    except CommandError as exc:
                        return report(inv, exc)
                break
            if letter == "i":
                in_place = True
                break  # -iSUFFIX: a backup suffix, not made (the sim keeps no backups)
            if letter == "n":
                opts.quiet = True
            elif letter in "Er":
                opts.extended = True
            elif letter == "s":
                opts.separate = True
            elif letter == "z":
                opts.ending = "\0"
            elif letter != "u":
                inv.err(f"sed: Unknown option '{letter}' (see \"sed --help\")\n")
                return 1
    if not scripts:
        if not operands:
            inv.err("sed: no pattern\n")
            return 1
        scripts.append(operands.pop(0))
    script = "\n".join(scripts)
    if len(script) > MAX_SCRIPT:
        inv.err("sed: script too long\n")
        return 1
    try:
        cmds = Parser(script, opts.extended).parse()
    except SedError as exc:
        inv.err(f"sed: {exc}\n")
        return 1
    if in_place and not operands:
        inv.err("sed: -i on stdin\n")
        return 1
    files: dict[str, str] = {}
    for c in cmds:
        if c.name == "r" and c.text not in files:
            try:
                files[c.text] = (await read_input(inv, c.text)).decode("utf-8", "surrogateescape")
            except CommandError:
                files[c.text] = ""  # r of a missing file appends nothing, as sed does
            if files[c.text] and not files[c.text].endswith("\n"):
                files[c.text] += "\n"
    opts.separate = opts.separate or in_place
    inputs: list[list[str]] = []
    names: list[str] = []
    status = 0
    for path in operands or ["-"]:
        try:
            text = (await read_input(inv, path)).decode("utf-8", "surrogateescape")
            inputs.append(split_lines(text, opts.ending))
            names.append(path)
        except CommandError as exc:
            status = report(inv, exc)
    results, code, error = await run_stoppable(sed_run, cmds, opts, inputs, files)
    for n, text in enumerate(results):
        data = text.encode("utf-8", "surrogateescape")
        if in_place and n < len(names):
            fs_call(names[n], inv.fs.write_bytes, names[n], data, inv.cwd)
        elif not in_place:
            inv.out(data)
    if error:
        inv.err(error)
        return 1
    return code or status
