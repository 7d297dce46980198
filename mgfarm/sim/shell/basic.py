"""Small toybox commands: echo, printf, true, false, test, sleep, id, whoami, pwd, basename, dirname..."""

from __future__ import annotations

import asyncio
import itertools
import math
import re
from collections.abc import Iterator

from mgfarm.sim.shell import toyargs
from mgfarm.sim.shell.registry import COMMANDS, Invocation, command
from mgfarm.sim.shell.system import DURATION_UNITS
from mgfarm.sim.system.fs import ROOT, SHELL, USER_NAMES

ESCAPES = {
    "n": "\n",
    "t": "\t",
    "\\": "\\",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "r": "\r",
    "v": "\v",
    "e": "\x1b",
}


OCTAL_RE = re.compile(r"[0-7]{1,3}")
HEX_RE = re.compile(r"[0-9a-fA-F]{1,2}")


def byte_char(value: int) -> str:
    """The character standing for one byte in the shell's text: a byte over 127 is the surrogate
    that `surrogateescape` writes back as that byte (`printf '\\377'` is one byte, not UTF-8's two)."""
    return chr(value) if value < 0x80 else chr(0xDC00 | value)


def unescape(text: str) -> tuple[str, bool]:
    """Backslash escapes as mksh's echo and print read them; the flag is True when a `\\c` was
    seen, which in mksh drops the final newline and nothing else (`echo 'x\\cy'` prints `xy`)."""
    out: list[str] = []
    stop = False
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "c":
            stop = True
            i += 2
            continue
        if nxt in ESCAPES:
            out.append(ESCAPES[nxt])
            i += 2
        elif nxt == "0":  # mksh reads `\0NNN` only: `\101` stays as typed
            m = OCTAL_RE.match(text, i + 2)  # at a position: slicing the rest each time is quadratic
            digits = m.group(0) if m else "0"
            out.append(byte_char(int(digits, 8) & 0xFF))
            i = m.end() if m else i + 2
        elif nxt == "x":
            m = HEX_RE.match(text, i + 2)
            if m:
                out.append(byte_char(int(m.group(0), 16)))
                i = m.end()
            else:
                out.append("\\x")
                i += 2
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out), stop


@command("echo")
async def echo(inv: Invocation) -> int:
    args = inv.argv[1:]
    # Android's sh is mksh, whose builtin echo reads backslash escapes unless given -E.
    newline, escapes = True, True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for flag in args[0][1:]:
            newline = newline and flag != "n"
            escapes = flag == "e" if flag in "eE" else escapes
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, stop = unescape(text)
        newline = newline and not stop
    inv.out(text.encode("utf-8", "surrogateescape") + (b"\n" if newline else b""))
    return 0


MAX_FIELD = 1 << 20  # printf field widths and precisions: a billion-column field would sit in memory
UNESCAPE = dict(zip(b"\\abefnrtv", b"\\\a\b\033\f\n\r\t\v", strict=True))
U64 = (1 << 64) - 1
C_FLOAT = re.compile(
    rb"[ \t\n\v\f\r]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.I
)


class PrintfStop(Exception):
    """toybox printf's error_exit (a bad conversion, `\\xv`), or `\\c`: output stops here."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message


def printf_escape(text: bytes, i: int, posix: bool) -> tuple[int, int]:
    """The byte of the escape after a backslash at i - 1, and where reading goes on (toybox's
    handle_slash: `\\c` stops, 1-2 hex or 1-3 octal digits, with %b a leading 0 first)."""
    if text[i : i + 1] == b"c":
        raise PrintfStop()
    j, base = i, 0
    if text[j : j + 1] == b"x":
        j, base = j + 1, 16
    else:
        if posix and text[j : j + 1] == b"0":
            j += 1
        if text[j : j + 1] and b"0" <= text[j : j + 1] <= b"7":
            base = 8
    if not base:
        value = UNESCAPE.get(text[i]) if i < len(text) else None
        return (92, i) if value is None else (value, i + 1)
    digits = b"0123456789abcdef"[:base]
    end = j
    while end < j + (2 if base == 16 else 3) and end < len(text) and text[end : end + 1].lower() in digits:
        end += 1
    if (
        base == 16
        and end == j
        and end < len(text)
        and text[end : end + 1].lower() in b"0123456789abcdefghijklmnopqrstuvwxyz"
    ):
        raise PrintfStop("bad \\x")
    return (int(text[j:end], base) & 0xFF if end > j else 0), end


def c_number(arg: bytes) -> tuple[int, str | None]:
    """An argument of %d as toybox reads it (a quote and its character, else strtoll in base 0)
    and its complaint's ending: None when all of it was a number, else "" or strerror's text."""
    if arg[:1] in (b"'", b'"'):
        return (arg[1] if len(arg) > 1 else 0), None
    found = toyargs.strtoll(arg.decode("latin-1"))  # a byte a character: positions stay bytes
    if found is None:
        return 0, None if not arg else ""  # strtoll reads nothing; an empty one is no complaint
    value, end = found
    if not -(1 << 63) <= value < 1 << 63:  # strtoll saturates and sets ERANGE
        return max(-(1 << 63), min(value, (1 << 63) - 1)), ": Numerical result out of range"
    return value, None if end == len(arg) else ""


def c_float(arg: bytes) -> tuple[float, str | None]:
    m = C_FLOAT.match(arg)
    if m is None:
        return 0.0, None if not arg else ""
    return float(m.group().strip()), None if m.end() == len(arg) else ""


def printf_pass(fmt: bytes, args: list[bytes], out: bytearray, errors: list[str]) -> tuple[int, bool]:
    """One pass of toybox printf over `fmt`: (arguments used, whether it had a conversion)."""
    used, seen, i = 0, False, 0
    while i < len(fmt):
        c = fmt[i]
        if c == 92:
            value, i = printf_escape(fmt, i + 1, posix=False)
            out.append(value)
            continue
        if c != 37 or fmt[i + 1 : i + 2] == b"%":
            out.append(c)
            i += 2 if c == 37 else 1
            continue
        i += 1
        start = i
        while i < len(fmt) and fmt[i : i + 1] in (b"-", b"+", b"#", b" ", b"'", b"0") and i - start < 9:
            i += 1
        flags = fmt[start:i].replace(b"'", b"")
        sizes: list[int | None] = [None, None]
        for n in (0, 1):
            if fmt[i : i + 1] == b"*":
                i += 1
                if used < len(args):
                    sizes[n] = toyargs.atolx(args[used].decode("utf-8", "surrogateescape"))
                    used += 1
            else:
                digits = re.match(rb"[0-9]*", fmt[i:])
                assert digits is not None
                if digits.group() or n:
                    sizes[n] = int(digits.group() or b"0")
                i += len(digits.group())
            if n or fmt[i : i + 1] != b".":
                break
            i += 1
        width, precision = sizes
        if any(v is not None and abs(v) > MAX_FIELD for v in sizes):
            raise PrintfStop(f"field width too large (at most {MAX_FIELD})")
        conv = fmt[i : i + 1]
        i += 1
        seen = True
        arg = args[used] if used < len(args) else b""
        used += 1 if used < len(args) else 0
        spec = b"%" + flags + (b"%d" % width if width is not None else b"")
        if width is not None and width < 0:
            spec = b"%-" + flags + b"%d" % -width
        spec += b".%d" % precision if precision is not None else b""
        if conv == b"b":
            j = 0
            while j < len(arg):
                if arg[j] == 92:
                    value, j = printf_escape(arg, j + 1, posix=True)
                    out.append(value)
                else:
                    out.append(arg[j])
                    j += 1
        elif conv == b"c":
            out += (spec + b"c") % (arg[0] if arg else 0)
        elif conv == b"s":
            out += (spec + b"s") % arg
        elif conv and conv in b"diouxX":
            number, problem = c_number(arg)
            if conv in b"ouxX":
                number &= U64
            if conv == b"o" and b"#" in flags:
                out += _octal_alternate(spec, number)
            else:
                plain = spec if number else spec.replace(b"#", b"")  # C's %#x of 0 is 0
                out += (plain + {b"i": b"d", b"u": b"d"}.get(conv, conv)) % number
            if problem is not None:
                errors.append(f"bad %{conv.decode()} {arg.decode('utf-8', 'surrogateescape')}{problem}")
        elif conv and conv in b"feEgG":
            real, problem = c_float(arg)
            out += (spec + conv) % real
            if problem is not None:
                errors.append(f"bad %{conv.decode()} {arg.decode('utf-8', 'surrogateescape')}{problem}")
        else:
            raise PrintfStop(f"bad %{conv.decode('utf-8', 'surrogateescape')}@{i}")
    return used, seen


def _octal_alternate(spec: bytes, number: int) -> bytes:
    """%#o: C's leading 0 (Python's `#` would write 0o)."""
    digits = b"0" + b"%o" % number if number else b"0"
    plain = spec.replace(b"#", b"").replace(b"%", b"", 1)
    return (b"%" + plain + b"s") % digits if plain else digits


@command("printf")
async def printf(inv: Invocation) -> int:
    """toybox's printf (Android's sh has none of its own): the format again while arguments last."""
    if len(inv.argv) < 2:
        inv.err('printf: Needs 1 argument (see "printf --help")\n')
        return 1
    fmt = inv.argv[1].encode("utf-8", "surrogateescape")
    args = [a.encode("utf-8", "surrogateescape") for a in inv.argv[2:]]
    out = bytearray()
    errors: list[str] = []
    status = 0
    try:
        while True:
            used, seen = printf_pass(fmt, args, out, errors)
            args = args[used:]
            if not seen or not args:
                break
            if len(out) > 64 * MAX_FIELD:
                raise PrintfStop("output larger than 64 MiB")
    except PrintfStop as stop:
        if stop.message:
            errors.append(stop.message)
            status = 1
    except toyargs.Fatal as exc:
        errors.append(str(exc))
        status = 1
    inv.out(bytes(out))
    for message in errors:
        inv.err(f"printf: {message}\n")
    return 1 if errors else status


@command("true")
async def true(inv: Invocation) -> int:
    return 0


@command("false")
async def false(inv: Invocation) -> int:
    return 1


@command("sleep")
async def sleep(inv: Invocation) -> int:
    total = 0.0
    for arg in inv.argv[1:]:
        m = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)", arg)  # unambiguous: linear on any input
        if m is None:
            inv.err(f"sleep: invalid number '{arg}'\n")
            return 1
        total += float(m.group(1)) * DURATION_UNITS[m.group(2)]
    await inv.io.stdout.flush()
    await asyncio.sleep(total)
    return 0


@command("id")
async def id_(inv: Invocation) -> int:
    name = USER_NAMES.get(inv.uid, str(inv.uid))
    if inv.uid == ROOT:
        ident = "uid=0(root) gid=0(root) groups=0(root),1004(input),1007(log),1011(adb),1015(sdcard_rw),"
        ident += "1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),"
        ident += "3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:su:s0"
    elif inv.uid == SHELL:
        ident = "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),"
        ident += (
            "1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet) context=u:r:shell:s0"
        )
    else:  # under `su WHO`: WHO's uid and gid, no supplementary groups
        ident = f"uid={inv.uid}({name}) gid={inv.uid}({name}) groups={inv.uid}({name}) context=u:r:su:s0"
    args = inv.argv[1:]
    if "-u" in args:
        ident = name if "-n" in args else str(inv.uid)
    inv.out(ident + "\n")
    return 0


@command("whoami")
async def whoami(inv: Invocation) -> int:
    inv.out(USER_NAMES.get(inv.uid, str(inv.uid)) + "\n")
    return 0


@command("pwd")
async def pwd(inv: Invocation) -> int:
    inv.out(inv.cwd + "\n")
    return 0


def base_name(path: str) -> str:
    """bionic's basename(3): the last name, trailing slashes aside; "/" for slashes only."""
    stripped = path.rstrip("/")
    if not stripped:
        return "/" if path else "."
    return stripped.rsplit("/", 1)[-1]


def dir_name(path: str) -> str:
    """bionic's dirname(3): "." without a slash, "/" for the root (one slash, however many)."""
    stripped = path.rstrip("/")
    if not stripped:
        return "/" if path else "."
    head = stripped.rsplit("/", 1)[0] if "/" in stripped else ""
    if "/" not in stripped:
        return "."
    return head.rstrip("/") or "/"


@command("basename")
async def basename(inv: Invocation) -> int:
    """toybox's: NAME [SUFFIX], or -a (each NAME) and -s SUFFIX (which implies -a)."""
    args = inv.argv[1:]
    every, suffix = False, ""
    while args and args[0].startswith("-") and len(args[0]) > 1:  # '^': options end at a name
        arg = args.pop(0)
        if arg == "--":
            break
        if arg == "-a":
            every = True
        elif arg.startswith("-s"):
            suffix = arg[2:] or (args.pop(0) if args else "")
            every = True
        else:
            inv.err(f"basename: Unknown option '{arg[1:]}' (see \"basename --help\")\n")
            return 1
    if not args:
        inv.err('basename: Needs 1 argument (see "basename --help")\n')
        return 1
    if not every:
        if len(args) > 2:
            inv.err("basename: too many args\n")
            return 1
        suffix, args = (args[1] if len(args) > 1 else ""), args[:1]
    for name in args:
        base = base_name(name)
        if suffix and base != suffix and base.endswith(suffix):
            base = base[: -len(suffix)]
        inv.out(base + "\n")
    return 0


@command("dirname")
async def dirname(inv: Invocation) -> int:
    if len(inv.argv) < 2:
        inv.err('dirname: Needs 1 argument (see "dirname --help")\n')
        return 1
    inv.out("".join(dir_name(path) + "\n" for path in inv.argv[1:]))
    return 0


@command("which")
async def which(inv: Invocation) -> int:
    status = 0
    for name in inv.argv[1:]:
        if name in COMMANDS or name in ("sh",):
            inv.out(f"/system/bin/{name}\n")
        else:
            status = 1
    return status


@command("getprop")
async def getprop(inv: Invocation) -> int:
    props = inv.device.props
    args = inv.argv[1:]
    if not args:
        inv.out(props.listing())
        return 0
    default = args[1] if len(args) > 1 else ""
    inv.out(props.get(args[0], default) + "\n")
    return 0


@command("setprop")
async def setprop(inv: Invocation) -> int:
    if len(inv.argv) != 3:
        inv.err("setprop: Need 2 arguments\n")
        return 1
    key, value = inv.argv[1], inv.argv[2]
    if not inv.device.props.set(key, value):
        inv.err(f"Failed to set property '{key}' to '{value}'.\nSee dmesg for error reason.\n")
        return 1
    return 0


CHUNK = 64 * 1024  # bytes an endless writer hands over at a time


async def _stream(inv: Invocation, lines: Iterator[str]) -> None:
    """Write lines in chunks, yielding to the event loop between chunks: an endless writer is ended
    by its reader (a closed pipe, the 16 MiB pipe cap, the adb client going away), never by memory."""
    buf: list[str] = []
    size = 0
    for line in lines:
        buf.append(line)
        size += len(line)
        if size >= CHUNK:
            inv.out("".join(buf))
            buf, size = [], 0
            await inv.io.stdout.maybe_flush()
            await asyncio.sleep(0)
    inv.out("".join(buf))


@command("yes")
async def yes(inv: Invocation) -> int:
    line = (" ".join(inv.argv[1:]) or "y") + "\n"
    await _stream(inv, itertools.repeat(line * max(1, CHUNK // len(line))))
    return 0


class SeqError(Exception):
    """What seq prints after `seq: `; status 1."""


SEQ_CONVERSION = re.compile(r"%[-+ #0]*\d*(?:\.\d*)?([a-zA-Z%])")


def seq_number(text: str, precision: int) -> tuple[float, int]:
    """An operand as strtod reads it, and the precision so far: the digits after its point
    (before an exponent), as toybox counts them."""
    if "." in text:
        decimals = re.split("[eE]", text.split(".", 1)[1])[0]
        precision = max(precision, len(decimals))
    try:
        value = float(text)
    except ValueError:
        raise SeqError(f"strtod {text}: Argument list too long") from None  # toybox's E2BIG
    return value, precision


def seq_format(fmt: str) -> None:
    """toybox's insanitize: exactly one conversion, a floating one."""
    found = [m for m in SEQ_CONVERSION.finditer(fmt) if m.group(1) != "%"]
    if not found:
        raise SeqError("bad -f no %f")
    if found[0].group(1) not in "aAeEfFgG":
        raise SeqError(f"bad -f '{fmt}'@{found[0].end()}")
    if len(found) > 1:
        raise SeqError(f"bad -f '{fmt}'@{found[1].end()}")


@command("seq")
async def seq(inv: Invocation) -> int:
    """toybox's `seq [-w|-f FMT] [-s SEP] [FIRST [INC]] LAST`: whole numbers with no option take a
    fast path (each ends with a newline); otherwise every value is printed with the format
    (default zero-padded to the widest operand, with their most decimals) and SEP between values
    and one newline at the end, even after none."""
    args = inv.argv[1:]
    flags: dict[str, str] = {}
    operands: list[str] = []
    try:
        while args:
            arg = args.pop(0)
            if arg == "--":
                operands += args
                break
            if arg.startswith("-") and len(arg) > 1 and not is_negative_number(arg):
                letter = arg[1]
                if letter == "w":
                    flags["w"] = ""
                    if arg[2:]:
                        args.insert(0, "-" + arg[2:])
                    continue
                if letter not in "fs":
                    operands.append(arg)  # toybox's `?`: an unknown option is an operand
                    continue
                flags[letter] = arg[2:] if len(arg) > 2 else args.pop(0) if args else ""
                continue
            operands.append(arg)
        if "f" in flags and "w" in flags:
            raise SeqError("No 'w' with 'f' (see \"seq --help\")")
        if not operands:
            raise SeqError('Needs 1 argument (see "seq --help")')
        if len(operands) > 3:
            raise SeqError('Max 3 arguments (see "seq --help")')
        precision = 0
        values = []
        for text in operands:
            value, precision = seq_number(text, precision)
            values.append(value)
        first, increment, last = (
            (1.0, 1.0, values[0]) if len(values) == 1 else
            (values[0], 1.0, values[1]) if len(values) == 2 else tuple(values)
        )  # fmt: skip
        if "f" in flags:
            seq_format(flags["f"])
    except SeqError as exc:
        inv.err(f"seq: {exc}\n")
        return 1
    whole = all(
        math.isfinite(v) and v == int(v) and abs(v) < 2**31 for v in (first, increment, last + increment)
    )
    if not flags and whole:
        step = int(increment)
        numbers = range(int(first), int(last) + (1 if step > 0 else -1), step) if step else range(0)
        await _stream(inv, (f"{n}\n" for n in numbers))
        return 0
    if not increment:
        return 0
    width = max(len(f"{abs(v):.{precision}f}") for v in (first, increment, last))
    fmt = flags.get("f") or f"%0{width}.{precision}f"
    separator = flags.get("s", "\n")

    def lines() -> Iterator[str]:
        n = 0
        while True:
            value = first + n * increment  # multiplied, as toybox does, so errors do not add up
            if (increment < 0 and value < last) or (increment > 0 and value > last):
                break
            yield (separator if n else "") + fmt % value
            n += 1
        yield "\n"

    await _stream(inv, lines())
    return 0


def is_negative_number(arg: str) -> bool:
    """`-1` and `-.5` are operands, not options."""
    try:
        float(arg)
    except ValueError:
        return False
    return True
