"""Small toybox commands: echo, printf, true, false, test, sleep, id, whoami, pwd, basename, dirname..."""

from __future__ import annotations

import asyncio
import itertools
import math
import posixpath
import re
import stat
from collections.abc import Iterator

from mgfarm.sim.shell.registry import COMMANDS, Invocation, command
from mgfarm.sim.shell.system import DURATION_UNITS
from mgfarm.sim.system.fs import ROOT, SHELL, USER_NAMES, PathEscapeError

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


OCTAL_RE = re.compile(r"0?([0-7]{1,3})")
HEX_RE = re.compile(r"[0-9a-fA-F]{1,2}")


def byte_char(value: int) -> str:
    """The character standing for one byte in the shell's text: a byte over 127 is the surrogate
    that `surrogateescape` writes back as that byte (`printf '\\377'` is one byte, not UTF-8's two)."""
    return chr(value) if value < 0x80 else chr(0xDC00 | value)


def unescape(text: str) -> tuple[str, bool]:
    """Backslash escapes as `echo -e` and printf read them; the flag is True after `\\c` (stop)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "c":
            return "".join(out), True
        if nxt in ESCAPES:
            out.append(ESCAPES[nxt])
            i += 2
        elif nxt == "0" or nxt.isdigit():
            m = OCTAL_RE.match(text, i + 1)  # at a position: slicing the rest each time is quadratic
            digits = m.group(1) if m else "0"
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
    return "".join(out), False


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


MAX_FIELD = 1 << 20  # printf field widths and precisions
ESCAPE_RE = re.compile(r"\\(0[0-7]{0,3}|[1-7][0-7]{0,2}|x[0-9a-fA-F]{1,2}|.)")


def _printf_format(fmt: str, args: list[str]) -> tuple[str, int]:
    """One pass of `fmt` over `args`: (text, number of args consumed)."""
    out: list[str] = []
    used = 0
    i = 0
    spec = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+))?([sdiouxXcfeEgGb%])")
    while i < len(fmt):
        m = spec.match(fmt, i) if fmt[i] == "%" else None
        esc = ESCAPE_RE.match(fmt, i) if fmt[i] == "\\" else None
        if esc is not None:
            out.append(unescape(esc.group(0))[0])
            i = esc.end()
            continue
        if m is None:
            out.append(fmt[i])
            i += 1
            continue
        flags, width, prec, conv = m.groups()
        i = m.end()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = args[used] if used < len(args) else "0"
            used += 1
        if int(width or 0) > MAX_FIELD or int(prec or 0) > MAX_FIELD:
            # A field of a billion characters would sit in memory whole: refuse it.
            raise ValueError(f"field width {width or prec} too large (at most {MAX_FIELD})")
        arg = args[used] if used < len(args) else ""
        used += 1
        pyspec = f"%{flags}{width or ''}{'.' + prec if prec is not None else ''}"
        if conv in "diouxXc":
            try:
                num = int(arg, 0) if arg else 0
            except ValueError:
                num = ord(arg[1]) if arg[:1] in "'\"" and len(arg) > 1 else 0
            if conv == "c":
                out.append((pyspec + "s") % (arg[:1]))
            else:
                out.append((pyspec + ("d" if conv == "i" or conv == "u" else conv)) % num)
        elif conv in "feEgG":
            try:
                fnum = float(arg) if arg else 0.0
            except ValueError:
                fnum = 0.0
            out.append((pyspec + conv) % fnum)
        elif conv == "b":
            out.append((pyspec + "s") % unescape(arg)[0])
        else:
            out.append((pyspec + "s") % arg)
    return "".join(out), used


@command("printf")
async def printf(inv: Invocation) -> int:
    if len(inv.argv) < 2:
        inv.err("printf: Need 1 argument\n")
        return 1
    fmt, args = inv.argv[1], inv.argv[2:]
    text, used = _printf_format(fmt, args)
    chunks = [text]
    # The format is reused while arguments remain, as POSIX printf does.
    while used and used < len(args):
        args = args[used:]
        text, used = _printf_format(fmt, args)
        chunks.append(text)
    inv.out("".join(chunks).encode("utf-8", "surrogateescape"))
    return 0


@command("true")
async def true(inv: Invocation) -> int:
    return 0


@command("false")
async def false(inv: Invocation) -> int:
    return 1


def _file_test(inv: Invocation, op: str, path: str) -> bool:
    fs = inv.fs
    if op in ("-L", "-h"):
        return fs.is_link(path, inv.cwd)
    try:
        st = fs.stat(path, inv.cwd)
    except (OSError, PathEscapeError):
        return False
    if op == "-f":
        return stat.S_ISREG(st.st_mode)
    if op == "-d":
        return stat.S_ISDIR(st.st_mode)
    kinds = {"-c": stat.S_ISCHR, "-b": stat.S_ISBLK, "-p": stat.S_ISFIFO, "-S": stat.S_ISSOCK}
    if op in kinds:
        return kinds[op](st.st_mode)
    if op == "-s":
        return stat.S_ISREG(st.st_mode) and st.st_size > 0
    if op == "-x":
        return stat.S_ISDIR(st.st_mode) or posixpath.dirname(path) in ("/system/bin",)
    if op in ("-r", "-w"):
        try:
            fs.access(path, op[1], inv.cwd)
        except (OSError, PathEscapeError):
            return False
    return True  # -e, or a permission it has


def _evaluate(inv: Invocation, args: list[str]) -> bool:
    """POSIX test for up to four arguments plus `!`, `-a` and `-o`."""
    if "-o" in args[1:-1]:
        i = args.index("-o", 1)
        return _evaluate(inv, args[:i]) or _evaluate(inv, args[i + 1 :])
    if "-a" in args[1:-1]:
        i = args.index("-a", 1)
        return _evaluate(inv, args[:i]) and _evaluate(inv, args[i + 1 :])
    if args and args[0] == "!":
        return not _evaluate(inv, args[1:])
    if not args:
        return False
    if len(args) == 1:
        return args[0] != ""
    if len(args) == 2:
        op, val = args
        if op == "-n":
            return val != ""
        if op == "-z":
            return val == ""
        if op in ("-e", "-f", "-d", "-L", "-h", "-r", "-w", "-x", "-s", "-c", "-b", "-p", "-S"):
            return _file_test(inv, op, val)
        raise ValueError(f"{op}: unknown operand")
    if len(args) == 3:
        left, op, right = args
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        if op in ("<", ">"):  # mksh's test compares strings with these too
            return left < right if op == "<" else left > right
        ints = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__}
        ints |= {"-gt": int.__gt__, "-ge": int.__ge__}
        if op in ints:
            return bool(ints[op](int(left), int(right)))
        raise ValueError(f"{op}: unknown operand")
    raise ValueError("too many arguments")


@command("test", "[")
async def test(inv: Invocation) -> int:
    args = inv.argv[1:]
    if inv.argv[0] == "[":
        if not args or args[-1] != "]":
            inv.err("[: missing ]\n")
            return 2
        args = args[:-1]
    try:
        return 0 if _evaluate(inv, args) else 1
    except ValueError as exc:
        inv.err(f"{inv.argv[0]}: {exc}\n")
        return 2


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
