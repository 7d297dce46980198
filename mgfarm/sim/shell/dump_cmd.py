"""Byte dumps as Android 13's toybox (0.8.6) prints them: `xxd` (and `xxd -r`) and `od`.

An input is at most what read_input gives (64 MiB), and a dump is ~4 times its input: it is
formatted a piece at a time, the event loop turning between pieces, so other devices keep running.
"""

from __future__ import annotations

import functools
import math
import re
import struct
from dataclasses import dataclass

from mgfarm.sim.shell.blocks import atolx
from mgfarm.sim.shell.files import CommandError, each_input, read_input, report, split_flags, take_value
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import run_bounded

PIECE = 1 << 13  # input bytes formatted between two turns of the event loop (od: ~8 ms)
MAX_OUTPUT = 64 * 1024 * 1024  # what `xxd -r` may make (its input is at most read_input's 64 MiB)
PRINTABLE = bytes(c if 32 <= c <= 126 else ord(".") for c in range(256))


class DumpError(Exception):
    """A bad option; the command prints it after its name and exits 1."""


def usage(name: str, problem: str) -> DumpError:
    """An option error as toybox's argument parser words it."""
    return DumpError(f'{problem} (see "{name} --help")')


def number_option(
    name: str, args: list[str], option: str, low: int | None = None, high: int | None = None
) -> int | None:
    """A toybox `#` option's value (`-c 8`, `-c8`, `-s 0x10`), range-checked as toybox does."""
    text = take_value(args, option)
    if text is None:
        return None
    try:
        value = atolx(text)
    except CommandError as exc:
        raise DumpError(str(exc)) from exc
    if low is not None and value < low:
        raise usage(name, f"{option} < {low}")
    if high is not None and value > high:
        raise usage(name, f"{option} > {high}")
    return value


def flag_options(name: str, args: list[str], known: str) -> tuple[set[str], list[str]]:
    """The flags and operands left in `args`; an unknown flag is toybox's usage error."""
    flags, operands = split_flags(args, known)
    for arg in operands:
        if arg.startswith("-") and arg != "-":
            bad = next(n for n, c in enumerate(arg) if n and c not in known)
            raise usage(name, f"Unknown option '{arg[bad:]}'")  # toybox names the rest of the word
    return flags, operands


# ---- xxd ------------------------------------------------------------------------------------------


def xxd_lines(data: bytes, pos: int, offset: int, per_line: int, group: int, plain: bool) -> str:
    """Lines of a hexdump: address, bytes in groups padded to one width, then the text column."""
    width = 2 * per_line + per_line // group + 1
    out: list[str] = []
    for start in range(0, len(data), per_line):
        chunk = data[start : start + per_line]
        hexed = chunk.hex()
        groups = " ".join(hexed[i : i + 2 * group] for i in range(0, len(hexed), 2 * group))
        if len(chunk) % group == 0:
            groups += " "  # toybox puts a space after each full group, the last one too (`-p`'s 30)
        if plain:
            out.append(groups + "\n")
            continue
        text = chunk.translate(PRINTABLE).decode("ascii")
        out.append(f"{offset + pos + start:08x}: {groups:<{width}}{text}\n")
    return "".join(out)


def xxd_include(data: bytes, per_line: int) -> str:
    """`xxd -i`: C initializer bytes; toybox's `%#.02x` prints a zero byte as `00`."""
    items = [f"0x{b:02x}" if b else "00" for b in data]
    out: list[str] = []
    for at in range(0, len(items), per_line):
        row = items[at : at + per_line]
        out.append("  " + ", ".join(row) + ("," if len(row) == per_line else "") + "\n")
    return "".join(out)


HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")
ADDRESS = re.compile(rb"[ \t\n\v\f\r]*(?:0[xX])?([0-9a-fA-F]+)(?::[ \t\n\v\f\r]*)?")
INCLUDE_BYTE = re.compile(rb"[ \t\n\v\f\r]*0x([0-9a-fA-F]{1,2}),?")


@functools.lru_cache(maxsize=64)
def hex_pairs(most: int | None) -> re.Pattern[bytes]:
    """Up to `most` hex pairs, each perhaps followed by one space."""
    return re.compile(rb"(?:[0-9a-fA-F]{2} ?)" + (b"*" if most is None else b"{0,%d}" % most))


def read_pairs(data: bytes, i: int, most: int | None, out: bytearray) -> int:
    """toybox's pair loop of `xxd -r` from `i`: append hex pairs to `out` until `most` of them or
    something else; a newline where a pair would start is passed over (a hex digit before it is
    lost). The index where it stopped: the caller skips the rest of that line."""
    count = 0
    while most is None or count < most:
        m = hex_pairs(None if most is None else most - count).match(data, i)
        assert m is not None  # it may match nothing, never fail
        pairs = bytes.fromhex(m.group().decode("ascii"))
        out += pairs
        count, i = count + len(pairs), m.end()
        if data[i : i + 1] == b"\n":
            i += 1
        elif i + 1 < len(data) and data[i] in HEX_DIGITS and data[i + 1] == 0x0A:
            i += 2
        else:
            break
    return i


def xxd_reverse(data: bytes, plain: bool, include: bool, per_line: int, seekable: bool) -> tuple[bytes, str]:
    """`xxd -r`: bytes back from a dump, read as toybox 0.8.6 reads one, and what went wrong ("" if
    nothing). A line's address seeks in the output: in a file a gap becomes zeros (the output
    bounded at MAX_OUTPUT), on a pipe or the adb stream 0.8.6 stops there ("seek failed")."""
    out = bytearray()
    if include:
        i = 0
        while m := INCLUDE_BYTE.match(data, i):
            out.append(int(m.group(1), 16))
            i = m.end()
        return bytes(out), ""
    i = 0
    while i < len(data):
        row = bytearray()
        at = len(out)
        if not plain and (m := ADDRESS.match(data, i)):
            at, i = int(m.group(1), 16), m.end()
            if not seekable:
                return bytes(out), "seek failed: Illegal seek"
            if at > MAX_OUTPUT:
                return bytes(out), f"seek to {at:#x}: past {MAX_OUTPUT >> 20} MiB"
        i = read_pairs(data, i, None if plain else per_line, row)
        out[len(out) :] = bytes(max(0, at - len(out)))
        out[at : at + len(row)] = row
        end = data.find(b"\n", i)
        i = len(data) if end < 0 else end + 1
    return bytes(out), ""


@command("xxd")
async def xxd(inv: Invocation) -> int:
    args = inv.argv[1:]
    try:
        per_line = number_option("xxd", args, "-c", 0, 256) or 0
        group = number_option("xxd", args, "-g", 1) or 2
        limit = number_option("xxd", args, "-l")
        offset = number_option("xxd", args, "-o") or 0
        skip = number_option("xxd", args, "-s")
        flags, files = flag_options("xxd", args, "ipr")
        if len(files) > 1:
            raise usage("xxd", "Max 1 argument")
        if "r" in flags and skip is not None:
            raise usage("xxd", "No 's' with 'r'")
        if skip is not None and skip < 0:
            raise DumpError("lseek: Invalid argument")
    except DumpError as exc:
        inv.err(f"xxd: {exc}\n")
        return 1
    per_line = per_line or (12 if "i" in flags else 16)
    if "p" in flags:
        per_line = group = 30
    try:
        data = await read_input(inv, files[0] if files else "-")
    except CommandError as exc:
        return report(inv, exc)
    if "r" in flags:
        seekable = inv.io.stdout.seekable
        made, error = await run_bounded(xxd_reverse, data, "p" in flags, "i" in flags, per_line, seekable)
        inv.out(made)
        if error:
            inv.err(f"xxd: {files[0] if files else '-'}: {error}\n")
        return 1 if error else 0
    if "i" in flags:
        step = PIECE - PIECE % per_line  # a piece at a time: 64 MiB would be 64 million strings
        for at in range(0, len(data), step):
            inv.out(xxd_include(data[at : at + step], per_line))
            await inv.io.stdout.maybe_flush()
        return 0
    start = max(skip or 0, 0)
    data = data[start : None if not limit else start + limit]
    step = PIECE - PIECE % per_line
    for at in range(0, len(data), step):
        inv.out(xxd_lines(data[at : at + step], start + at, offset, per_line, group, "p" in flags))
        await inv.io.stdout.maybe_flush()
    return 0


# ---- od -------------------------------------------------------------------------------------------

TYPE_LETTERS = "acduoxf"  # toybox's type numbers are these indexes
ASCII_NAMES = ("nulsohstxetxeotenqackbel bs ht nl vt ff cr so si"
               "dledc1dc2dc3dc4naksynetbcan emsubesc fs gs rs us sp")  # fmt: skip
C_ESCAPES = {0: "\\0", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 7: "\\a", 11: "\\v"}
ADDRESS_FORMATS = {"n": "", "d": "{:07d}", "o": "{:07o}", "x": "{:06x}"}
FLOATS = {4: ("<f", 8), 8: ("<d", 17)}  # size: (struct format, digits after the point)


@dataclass(frozen=True)
class OdType:
    kind: str  # one of TYPE_LETTERS
    size: int

    def width(self) -> int:
        """Columns one value takes, its leading space included (toybox's pad)."""
        if self.kind in "ac":
            return 4
        if self.kind == "f":
            return FLOATS[self.size][1] + (7 if self.size == 4 else 8)
        return self.digits() + 1

    def digits(self) -> int:
        """toybox's field width: the digits of the largest value, and one more for a sign."""
        largest = (1 << (8 * self.size)) - 1
        if self.kind == "d" and self.size == 8:
            largest >>= 1
        base = {"d": "d", "u": "d", "o": "o", "x": "x"}[self.kind]
        return len(format(largest, base)) + (self.kind == "d")

    def text(self, unit: bytes) -> str:
        """One value as toybox prints it (before padding to the column)."""
        if self.kind == "a":
            c = unit[0] & 127
            return ASCII_NAMES[3 * c : 3 * c + 3] if c <= 32 else "del" if c == 127 else chr(c)
        if self.kind == "c":
            c = unit[0]
            return C_ESCAPES.get(c) or (f"{c:03o}" if c < 32 or c >= 127 else chr(c))
        if self.kind == "f":
            fmt, digits = FLOATS[self.size]
            return c_exponent(struct.unpack(fmt, unit)[0], digits)
        value = int.from_bytes(unit, "little", signed=self.kind == "d")
        if self.kind in "du":
            return f"{value:>{self.digits()}d}"
        return format(value, f"0{self.digits()}{self.kind}")


def c_exponent(value: float, digits: int) -> str:
    """printf's %.Ne: Python's, but C's names for infinities and NaNs (with their sign)."""
    if math.isinf(value) or math.isnan(value):
        return ("-" if math.copysign(1.0, value) < 0 else "") + ("inf" if math.isinf(value) else "nan")
    return f"{value:.{digits}e}"


def parse_types(spec: str) -> list[OdType]:
    """One -t argument (`x1`, `d2`, `c`, `fD`, `x1c`); DumpError("bad -t SPEC") as toybox."""
    out: list[OdType] = []
    i = 0
    while i < len(spec):
        kind = spec[i]
        i += 1
        if kind not in TYPE_LETTERS:
            raise DumpError(f"bad -t {spec}")
        digits = re.match(r"\d*", spec[i:])
        assert digits is not None
        if digits.group():
            size = int(digits.group())
            i += len(digits.group())
            if (kind in "ac" and size != 1) or (kind == "f" and size not in FLOATS) or not 1 <= size <= 8:
                raise DumpError(f"bad -t {spec}")
        elif kind == "f":
            letter = spec[i : i + 1]
            if letter == "L":  # long double: 16 bytes on x86_64, not read here
                raise DumpError(f"bad -t {spec}")
            size = {"F": 4, "D": 8}.get(letter, 8)
            i += letter in ("F", "D")
        elif kind in "duox":
            letter = spec[i : i + 1]
            size = {"C": 1, "S": 2, "I": 4, "L": 8}.get(letter, 4)
            i += letter in ("C", "S", "I", "L") and letter != ""
        else:
            size = 1
        out.append(OdType(kind, size))
    return out


def od_line(types: list[OdType], line: bytes, length: int) -> str:
    """The value lines for one line of input (`line` zero-filled to the width, `length` real bytes):
    each type on its own line, later ones indented under the address, all on one column grid."""
    per_byte = max(-(-t.width() // t.size) for t in types)
    out: list[str] = []
    for n, t in enumerate(types):
        fields = []
        for at in range(0, length, t.size):
            indent = 7 if n and not at else 0
            fields.append(f"{t.text(line[at : at + t.size]):>{per_byte * t.size + indent}}")
        out.append("".join(fields) + "\n")
    return "".join(out)


class OdDump:
    """A dump made a piece at a time: repeated lines become one `*` unless verbose (the first line
    never does), and the end address closes it."""

    def __init__(self, types: list[OdType], width: int, address: str, verbose: bool, start: int) -> None:
        self.types, self.width, self.verbose = types, width, verbose
        self.address = ADDRESS_FORMATS[address]
        self.start = self.pos = start
        self.last: bytes | None = None
        self.star = False

    def lines(self, data: bytes) -> str:
        """The lines for `data`, a whole number of lines but perhaps at the end of the input."""
        out: list[str] = []
        for at in range(0, len(data), self.width):
            line = data[at : at + self.width]
            padded = line + bytes(self.width - len(line))
            if not self.verbose and self.pos != self.start and padded == self.last:
                if not self.star:
                    out.append("*\n")
                    self.star = True
            else:
                self.star = False
                out.append(self.address.format(self.pos) + od_line(self.types, padded, len(line)))
                self.last = padded
            self.pos += len(line)
        return "".join(out)

    def end(self) -> str:
        return self.address.format(self.pos) + "\n" if self.address else ""


@command("od")
async def od(inv: Invocation) -> int:
    args = inv.argv[1:]
    try:
        skip = max(number_option("od", args, "-j") or 0, 0)
        count = number_option("od", args, "-N")
        width = number_option("od", args, "-w", 1)
        width = 16 if width is None else width
        address = take_value(args, "-A")
        if address is not None and address[:1] not in ADDRESS_FORMATS:
            raise DumpError(f"bad -A '{address[:1]}'")
        types: list[OdType] = []
        while (spec := take_value(args, "-t")) is not None:
            types += parse_types(spec)
        flags, files = flag_options("od", args, "bcdosxv")
        for flag, spec in (("b", "o1"), ("c", "c"), ("d", "u2"), ("o", "o2"), ("s", "d2"), ("x", "x2")):
            if flag in flags:
                types += parse_types(spec)
        types = types or parse_types("o2")
    except DumpError as exc:
        inv.err(f"od: {exc}\n")
        return 1
    status, chunks, skipped = 0, [], 0
    async for path, data in each_input(inv, files):
        if data is None:
            status = 1
            continue
        # toybox skips by reading, or in a file by seeking, which stops at its end unless it is
        # empty (lskip), where the whole skip is counted
        taken = skip - skipped if path != "-" and not data else min(skip - skipped, len(data))
        chunks.append(data[taken:])
        skipped += taken
    joined = b"".join(chunks)
    data = joined if count is None else joined[:count]
    dump = OdDump(types, width, address or "o", "v" in flags, skipped)
    step = PIECE - PIECE % width
    for at in range(0, len(data), step):
        inv.out(dump.lines(data[at : at + step]))
        await inv.io.stdout.maybe_flush()
    inv.out(dump.end())
    return status
