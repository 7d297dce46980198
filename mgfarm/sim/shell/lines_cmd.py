"""Line and byte commands as toybox 0.8.6 prints them: nl, paste, comm, tac, strings.

What a command reads comes through `read_input` (at most 64 MiB); loops over every line or byte run
in a worker thread (`run_bounded`).
"""

from __future__ import annotations

import re
import stat as statmod
from collections.abc import Iterator
from dataclasses import dataclass

from mgfarm.sim.shell import text
from mgfarm.sim.shell.files import MAX_INPUT, CommandError, is_folder, kind, read_file, read_input, report
from mgfarm.sim.shell.posix_regex import bracket_end, to_python
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import BoundedPattern, RegexError, RegexTimeout, compile_regex, run_bounded
from mgfarm.sim.shell.text import TooManyLines
from mgfarm.sim.shell.toyargs import Fatal, ToyArgs, ToySpec, arg_bytes, parse_or_report
from mgfarm.sim.shell.utf8 import char_length, wcwidth

MAX_OUTPUT = MAX_INPUT  # bytes one nl may print: a huge -w would otherwise print without end
C_SPACE = b" \t\n\v\f\r"


def split_lines(data: bytes) -> list[bytes]:
    """Lines as getline returns them: each with its newline, the last perhaps without one; at most
    MAX_LINES of them, as every line-splitting command (a CommandError past them)."""
    try:
        parts = text.split_lines(data, b"\n")
    except TooManyLines as exc:
        raise CommandError(str(exc)) from exc
    lines = [part + b"\n" for part in parts]
    if lines and not data.endswith(b"\n"):
        lines[-1] = parts[-1]
    return lines


def c_string(data: bytes) -> bytes:
    """What printf("%s") prints of a line: up to its first NUL."""
    return data.split(b"\0", 1)[0]


# nl -------------------------------------------------------------------------------------------

NL = ToySpec(
    "nl",
    flags="E",
    strings="bns",
    numbers={"v": (None, None), "l": (None, None), "w": (0, None)},
    defaults={"v": 1, "w": 6},
)


@dataclass
class Numbering:
    """nl's settings and the state it carries from file to file."""

    mode: str
    pattern: BoundedPattern | None
    style: str
    separator: bytes
    width: int
    blank_run: int
    number: int
    blanks: int = 0
    size: int = 0


def nl_settings(args: ToyArgs) -> Numbering:
    style = str(args.values.get("n", "rn"))
    if style not in ("rn", "ln", "rz"):
        raise Fatal(f"bad -n '{style}'")
    mode = str(args.values.get("b", "t"))
    pattern = None
    if mode.startswith("p") and len(mode) > 1:
        pattern = nl_regex(mode[1:])
    elif mode[:1] not in ("a", "t", "n", ""):
        raise Fatal(f"bad -b '{mode}'")
    return Numbering(
        mode=mode[:1],
        pattern=pattern,
        style=style,
        separator=arg_bytes(str(args.values.get("s", "\t"))),
        width=int(args.values["w"]),
        blank_run=int(args.values.get("l", 0)),
        number=int(args.values["v"]),
    )


def nl_regex(source: str) -> BoundedPattern:
    """-b p's regex: a BRE (toybox passes -E as FLAG_E*REG_EXTENDED, which is REG_NOSUB in glibc:
    -E changes nothing). An empty regex matches every line."""
    problem = bre_problem(source)
    if problem:
        raise Fatal(f"bad regex '{source}': {problem}")
    try:
        # (?s): without REG_NEWLINE a `.` matches the newline that ends the line nl tests.
        return compile_regex("(?s)" + to_python(source, False) if source else "")
    except RegexError as exc:
        raise Fatal(f"bad regex '{source}': {exc}") from exc


def bre_problem(source: str) -> str:
    """glibc's regcomp message for the common mistakes in a BRE ("" when none is seen)."""
    depth = groups = 0
    i = 0
    while i < len(source):
        if source[i] == "[":
            end = bracket_end(source, i)
            first = i + 2 if source[i + 1 : i + 2] == "^" else i + 1  # a `]` here is a member
            if end - 1 <= first or source[end - 1] != "]":
                return "Unmatched [, [^, [:, [., or [="
            i = end
            continue
        if source[i] == "\\":
            if i + 1 >= len(source):
                return "Trailing backslash"
            nxt = source[i + 1]
            if nxt == "(":
                depth, groups = depth + 1, groups + 1
            elif nxt == ")":
                if not depth:
                    return "Unmatched ( or \\("  # glibc's word for a stray \\) too
                depth -= 1
            elif nxt.isdigit() and nxt != "0" and int(nxt) > groups:
                return "Invalid back reference"
            i += 2
            continue
        i += 1
    return "Unmatched ( or \\(" if depth else ""


def nl_line(line: bytes, opts: Numbering) -> bytes:
    """One line numbered (or padded) as nl prints it."""
    shown = c_string(line)
    numbered = opts.mode != "n"
    if opts.pattern is not None:
        text = shown.decode("utf-8", "surrogateescape")
        numbered = opts.pattern.search(text) is not None
    if (opts.blank_run or opts.mode == "t") and shown[:1] == b"\n":
        # A blank line is numbered only as the last of -l blank lines in a row.
        opts.blanks += 1
        numbered = bool(opts.blank_run) and opts.blanks >= opts.blank_run
    if not numbered:
        return b" " * (opts.width + len(opts.separator)) + shown
    opts.blanks = 0
    number = opts.number
    opts.number += 1
    digits = {"rn": f"{number:>{opts.width}}", "ln": f"{number:<{opts.width}}"}.get(opts.style)
    if digits is None:
        digits = f"{number:0{opts.width}}"
    return digits.encode() + opts.separator + shown


def nl_text(data: bytes, opts: Numbering) -> bytes:
    """All of one file numbered (run in a worker thread: a line at a time over up to 64 MiB)."""
    out: list[bytes] = []
    for line in split_lines(data):
        out.append(nl_line(line, opts))
        opts.size += len(out[-1])
        if opts.size > MAX_OUTPUT:
            raise CommandError("output larger than 64 MiB")
    return b"".join(out)


@command("nl")
async def nl(inv: Invocation) -> int:
    args = parse_or_report(inv, NL)
    if args is None:
        return 1
    try:
        opts = nl_settings(args)
    except Fatal as exc:
        return report(inv, CommandError(str(exc)))
    status = 0
    for path in args.operands or ["-"]:
        try:
            data = await read_file(inv, path)
            inv.out(await run_bounded(nl_text, data, opts))
        except RegexTimeout as exc:
            return report(inv, CommandError(str(exc)))
        except CommandError as exc:
            status = report(inv, exc)
        await inv.io.stdout.maybe_flush()
    return status


# tac ------------------------------------------------------------------------------------------


def tac_text(data: bytes) -> bytes:
    return b"".join(c_string(line) for line in reversed(split_lines(data)))


@command("tac")
async def tac(inv: Invocation) -> int:
    # tac takes no options: toybox hands every argument over as a file name.
    status = 0
    for path in inv.argv[1:] or ["-"]:
        try:
            inv.out(await run_bounded(tac_text, await read_file(inv, path)))
        except CommandError as exc:
            status = report(inv, exc)
        await inv.io.stdout.maybe_flush()
    return status


# paste ----------------------------------------------------------------------------------------

PASTE = ToySpec("paste", flags="s", strings="d")
ESCAPES = dict(zip(b"\\abefnrtv", b"\\\a\b\033\f\n\r\t\v", strict=True))


def utf8_char(text: bytes, pos: int) -> tuple[int, int]:
    """toybox's utf8towc at `pos`: (bytes taken, code point); 0 bytes at the end, -1 if not UTF-8."""
    if pos >= len(text) or not text[pos]:
        return 0, 0
    size = char_length(text, pos)
    if size <= 0:
        return -1, 0
    return size, ord(text[pos : pos + size].decode("utf-8"))


def next_delimiter(delims: bytes, pos: int) -> tuple[bytes, int]:
    """The delimiter at `pos` of paste's -d list and where the next one starts. A backslash
    escapes (\\0 is no delimiter); a character takes the zero-width ones after it; a byte that
    is not UTF-8 is an empty delimiter and stays put, as in toybox."""
    if not delims:
        return b"", 0
    start = pos
    if delims[pos] == 0x5C:  # backslash
        pos += 1
        if delims[pos : pos + 1] == b"0":
            out, pos = b"", pos + 1
        elif pos < len(delims) and delims[pos] in ESCAPES:
            out, pos = bytes([ESCAPES[delims[pos]]]), pos + 1
        else:
            out = b"\\"
    else:
        while True:
            size, code = utf8_char(delims, pos)
            if size <= 0:
                break
            pos += size
            width = wcwidth(chr(code))
            if width == 0:
                continue
            if width < 0:
                pos = start + 1
            break
        out = delims[start:pos]
    return out, 0 if pos >= len(delims) else pos


class Delimiters:
    """paste's cursor through its -d list, back to the start at each output line."""

    def __init__(self, delims: bytes) -> None:
        self.delims = delims
        self.pos = 0

    def restart(self) -> None:
        self.pos = 0

    def take(self) -> bytes:
        out, self.pos = next_delimiter(self.delims, self.pos)
        return out


class LineSource:
    """One input's lines, newline dropped; the `-` inputs share one (stdin read line by line)."""

    def __init__(self, data: bytes) -> None:
        self.lines: Iterator[bytes] = iter(split_lines(data))

    def next(self) -> bytes | None:
        line = next(self.lines, None)
        return None if line is None else line.removesuffix(b"\n")


def paste_rows(sources: list[LineSource | None], delims: Delimiters) -> bytes:
    """Lines of the inputs side by side; an input that has ended gives empty fields."""
    out = bytearray()
    while True:
        delims.restart()
        row = bytearray()
        any_line, waiting = False, 0
        for i, source in enumerate(sources):
            line = source.next() if source is not None else None
            if line is None:
                sources[i] = None
                if not any_line:
                    waiting += 1  # delimiters owed once some later input has a line
                    continue
            for _ in range(1 if any_line else waiting):
                row += delims.take()
            any_line = True
            row += line or b""
        if not any_line:
            return bytes(out)
        out += row + b"\n"


def paste_serial(source: LineSource, delims: Delimiters) -> bytes:
    """One input as one line (-s); the delimiters run on from line to line."""
    out = bytearray()
    first = True
    delims.restart()  # each input starts at the first delimiter
    while (line := source.next()) is not None:
        if not first:
            out += delims.take()
        first = False
        out += line
    return bytes(out + b"\n")


async def paste_source(inv: Invocation, path: str, stdin: list[LineSource]) -> LineSource:
    """The lines of one operand; every `-` reads the same stdin."""
    if path == "-":
        if not stdin:
            stdin.append(LineSource(await inv.io.stdin.read()))
        return stdin[0]
    if kind(inv, path) is None:
        raise Fatal("Bad file descriptor")  # toybox fdopen()s the -1 that open returned
    return LineSource(await read_file(inv, path))


@command("paste")
async def paste(inv: Invocation) -> int:
    args = parse_or_report(inv, PASTE)
    if args is None:
        return 1
    delims = Delimiters(arg_bytes(str(args.values.get("d", "\t"))))
    stdin: list[LineSource] = []
    try:
        if "s" in args.flags:
            for path in args.operands or ["-"]:
                source = await paste_source(inv, path, stdin)
                inv.out(await run_bounded(paste_serial, source, delims))
            return 0
        sources: list[LineSource | None] = [
            await paste_source(inv, path, stdin) for path in args.operands or ["-"]
        ]
        inv.out(await run_bounded(paste_rows, sources, delims))
    except (Fatal, CommandError) as exc:
        return report(inv, CommandError(str(exc)))
    return 0


# comm -----------------------------------------------------------------------------------------

COMM = ToySpec("comm", flags="123", min_args=2, max_args=2)


async def comm_lines(inv: Invocation, path: str) -> tuple[list[bytes], bool]:
    """A file's lines as comm compares them (up to a NUL, newline dropped), and whether reading
    failed (a directory: getline's error, reported, and no lines). `-` is a file name here."""
    if kind(inv, path) == statmod.S_IFDIR:
        inv.err("comm: getline: Is a directory\n")
        return [], True
    try:
        data = await read_input(inv, "./-" if path == "-" else path)
    except CommandError as exc:
        message = str(exc).removeprefix("./") if path == "-" else str(exc)
        raise Fatal(f"No file {message}") from exc
    try:
        lines = split_lines(data)
    except CommandError as exc:
        raise Fatal(str(exc)) from exc
    return [c_string(line.removesuffix(b"\n")) for line in lines], False


def comm_merge(one: list[bytes], two: list[bytes], hide: set[str]) -> bytes:
    """The three columns of two sorted lists of lines (a column in `hide` left out)."""
    indent = [
        b"",
        b"" if "1" in hide else b"\t",
        (b"" if "1" in hide else b"\t") + (b"" if "2" in hide else b"\t"),
    ]
    out: list[bytes] = []

    def write(line: bytes, column: int) -> None:
        if str(column + 1) not in hide:
            out.append(indent[column] + line + b"\n")

    i = j = 0
    while i < len(one) and j < len(two):
        if one[i] == two[j]:
            write(one[i], 2)
            i, j = i + 1, j + 1
        elif one[i] < two[j]:
            write(one[i], 0)
            i += 1
        else:
            write(two[j], 1)
            j += 1
    for line in one[i:]:
        write(line, 0)
    for line in two[j:]:
        write(line, 1)
    return b"".join(out)


@command("comm")
async def comm(inv: Invocation) -> int:
    args = parse_or_report(inv, COMM)
    if args is None:
        return 1
    if args.flags >= {"1", "2", "3"}:
        return 0  # nothing to show: toybox opens neither file
    try:
        one, failed_one = await comm_lines(inv, args.operands[0])
        two, failed_two = await comm_lines(inv, args.operands[1])
    except Fatal as exc:
        return report(inv, CommandError(str(exc)))
    inv.out(await run_bounded(comm_merge, one, two, args.flags))
    return 1 if failed_one or failed_two else 0


# strings --------------------------------------------------------------------------------------

STRINGS = ToySpec("strings", flags="afo", strings="t", numbers={"n": (1, None)}, defaults={"n": 4})
OFFSET_FORMATS = {"o": "{:7o} ", "x": "{:7x} ", "d": "{:7d} "}


def offset_format(args: ToyArgs) -> str | None:
    """How -o/-t print a string's offset: None for not at all, "" for -t '' (an empty C format)."""
    if "t" in args.values:
        letter = str(args.values["t"])[:1]
        if letter and letter not in OFFSET_FORMATS:
            raise Fatal("-t needs oxd")
        return OFFSET_FORMATS.get(letter, "")
    return OFFSET_FORMATS["d"] if "o" in args.flags else None


def find_strings(data: bytes, least: int, prefix: bytes, offsets: str | None) -> bytes:
    """The runs of at least `least` printable bytes (or tabs), one a line (in a worker thread)."""
    if least > len(data):
        return b""
    out: list[bytes] = []
    for found in re.finditer(rb"[\t\x20-\x7e]{%d,}" % least, data):
        where = offsets.format(found.start()).encode() if offsets else b""
        out.append(prefix + where + found.group() + b"\n")
    return b"".join(out)


@command("strings")
async def strings(inv: Invocation) -> int:
    args = parse_or_report(inv, STRINGS)
    if args is None:
        return 1
    status = 0
    for path in args.operands or ["-"]:
        try:
            if is_folder(inv, path):
                offset_format(args)  # a directory opens; its read is what fails
                raise CommandError(f"{path}: Is a directory")
            data = await read_input(inv, path)
            offsets = offset_format(args)  # checked once a file is open, as toybox does
        except CommandError as exc:
            status = report(inv, exc)
            continue
        except Fatal as exc:
            return report(inv, CommandError(str(exc)))
        prefix = arg_bytes(path) + b": " if "f" in args.flags else b""
        inv.out(await run_bounded(find_strings, data, int(args.values["n"]), prefix, offsets))
        await inv.io.stdout.maybe_flush()
    return status
