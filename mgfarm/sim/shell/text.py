"""Text filters: head, tail, wc, tee, base64, rev, cmp."""

from __future__ import annotations

import asyncio
import re
from typing import TypeVar

from mgfarm.sim.shell import toyargs
from mgfarm.sim.shell.files import (
    CommandError,
    each_input,
    fs_call,
    is_folder,
    read_input,
    report,
    split_flags,
    take_value,
)
from mgfarm.sim.shell.registry import Invocation, command, is_number
from mgfarm.sim.shell.safe_regex import (
    run_bounded,
)

MAX_LINES = 2_000_000  # lines a command splits its input into (each line is an object in memory)


Text = TypeVar("Text", str, bytes)


class TooManyLines(ValueError):
    """More lines than MAX_LINES: the command fails (64 MiB of empty lines would be 2 GB of objects)."""


def lines_of(data: bytes) -> list[bytes]:
    """Lines without their newlines; a missing final newline still ends a line."""
    return split_lines(data, b"\n")


def split_lines(data: Text, separator: Text) -> list[Text]:
    """Lines (or records) without their separator, a missing final one still ending the last; at
    most MAX_LINES of them (TooManyLines)."""
    if not data:
        return []
    if data.count(separator) > MAX_LINES:
        raise TooManyLines(f"more than {MAX_LINES:,} lines of input")
    parts = data.split(separator)
    return parts[:-1] if not parts[-1] else parts


HEAD = toyargs.ToySpec(
    "head", flags="qv", numbers={"n": (0, None), "c": (0, None)}, defaults={"n": 10},
    longs={"lines": "n", "bytes": "c"}, overrides=("nc",), passthrough=True,
)  # fmt: skip
TAIL = toyargs.ToySpec(
    "tail", flags="fF", strings="s", numbers={"n": (None, None), "c": (None, None)},
    longs={"lines": "n", "bytes": "c"}, overrides=("nc",), signed="nc", passthrough=True,
)  # fmt: skip


async def read_or_report(inv: Invocation, path: str) -> tuple[bytes, bool] | None:
    """A file's bytes and whether it is a folder (which opens: toybox's read of it fails later, or
    not at all), or None once toybox's message for it is on stderr."""
    if is_folder(inv, path):
        return b"", True
    try:
        return await read_input(inv, path), False
    except CommandError as exc:
        report(inv, exc)
        return None


@command("head")
async def head(inv: Invocation) -> int:
    """toybox's head: -n/-c (the last given counts), -q -v, and the old `-NUM` as the first operand."""
    args = toyargs.parse_or_report(inv, HEAD)
    if args is None:
        return 1
    files = args.operands
    count = int(args.values["c" if "c" in args.flags else "n"])
    if files and files[0].startswith("-") and len(files[0]) > 1:
        try:
            count = toyargs.atolx(files[0][1:])
        except toyargs.Fatal as exc:
            inv.err(f"head: {exc}\n")
            return 1
        files = files[1:]
    headers = (len(files) > 1 and "q" not in args.flags) or "v" in args.flags
    status, shown = 0, 0
    for path in files or ["-"]:
        found = await read_or_report(inv, path)
        if found is None:
            status = 1
            continue
        data, folder = found
        if headers:
            inv.out(("\n" if shown else "") + f"==> {path} <==\n")
        shown += 1
        if folder:
            if count:  # toybox reads it only for something to show
                status = report(inv, CommandError(f"{path}: Is a directory"))
            continue
        inv.out(data[:count] if "c" in args.flags else head_of(data, count))
        await inv.io.stdout.maybe_flush()
    return status


# Blocks newlines are counted in (bytes.count runs in C), finer as the line sought nears: head or
# tail of millions of lines costs a few C passes, never a Python step a line.
LINE_BLOCKS = (1 << 20, 1 << 12, 1 << 6)


def head_of(data: bytes, count: int) -> bytes:
    """The first `count` lines of `data` as they are: a last line without its newline keeps none."""
    pos = 0
    for block in LINE_BLOCKS:
        while count and (n := data.count(b"\n", pos, pos + block)) < count:
            if pos + block >= len(data):
                return data
            count, pos = count - n, pos + block
    while count:
        found = data.find(b"\n", pos)
        if found < 0:
            return data
        count, pos = count - 1, found + 1
    return data[:pos]


def tail_of(data: bytes, count: int) -> bytes:
    """The last `count` lines of `data` as they are (a last line without a newline counts as one)."""
    if not count:
        return b""
    pos = len(data) - 1 if data.endswith(b"\n") else len(data)  # newlines before it end lines
    for block in LINE_BLOCKS:
        while (n := data.count(b"\n", max(pos - block, 0), pos)) < count:
            if pos - block <= 0:
                return data
            count, pos = count - n, pos - block
    while count:
        pos = data.rfind(b"\n", 0, pos)
        if pos < 0:
            return data
        count -= 1
    return data[pos + 1 :]


@command("tail")
async def tail(inv: Invocation) -> int:
    """toybox's tail: -n/-c counting from the end, or from the start with `+N` (0 shows it all),
    the old `-NUM` as the first operand; -f and -F show what is there and stop."""
    args = toyargs.parse_or_report(inv, TAIL)
    if args is None:
        return 1
    files = args.operands
    in_bytes = "c" in args.flags
    count = int(args.values.get("c" if in_bytes else "n", -10))
    if not {"n", "c"} & args.flags and files and files[0].startswith("-") and len(files[0]) > 1:
        try:
            count = toyargs.atolx(files[0])
        except toyargs.Fatal as exc:
            inv.err(f"tail: {exc}\n")
            return 1
        files = files[1:]
    status, shown = 0, 0
    for path in files or ["-"]:
        found = await read_or_report(inv, path)
        if found is None:
            status = 1
            continue
        data = found[0]  # a folder shows nothing, quietly
        inv.out(("\n" if shown else "") + (f"==> {path} <==\n" if len(files) > 1 else ""))
        shown += 1
        if count < 0:
            inv.out(data[count:] if in_bytes else tail_of(data, -count))
        elif in_bytes:
            inv.out(data[max(count - 1, 0) :])
        else:
            inv.out(data[len(head_of(data, count - 1)) :] if count > 1 else data)
        await inv.io.stdout.maybe_flush()
    return status


# Whitespace as bytes.split() sees it -> b" ", anything else -> b"x": words are counted in C.
WORD_TABLE = bytes(0x20 if chr(i) in " \t\n\r\v\f" else ord("x") for i in range(256))


def count_words(data: bytes) -> int:
    """What len(data.split()) gives, without a list of millions of words."""
    marks = data.translate(WORD_TABLE)
    return marks.count(b" x") + (1 if marks[:1] == b"x" else 0)


WC = toyargs.ToySpec("wc", flags="mcwl")


# Unicode's White_Space, which bionic's iswspace answers (glibc's leaves out U+0085, U+00A0,
# U+2007 and U+202F): what ends a word under `wc -m`.
WHITE_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
WIDE_WORD = re.compile(f"[^{WHITE_SPACE}]+")
WC_BUFFER = 4096  # toybox wc reads into its 4 KiB toybuf


def counts(data: bytes, chars: bool) -> dict[str, int]:
    """toybox wc's lines, words, bytes and (with -m) characters. With -m a byte that is not UTF-8 is
    no character and neither starts nor ends a word, and a character cut by the end of toybox's
    4 KiB buffer has its first byte counted twice in the byte count, as toybox does."""
    found = {"l": data.count(b"\n"), "c": len(data), "w": 0, "m": 0}
    if not chars:
        found["w"] = count_words(data)
        return found
    text = data.decode("utf-8", "surrogateescape")
    valid = SURROGATES.sub("", text)
    tail = incomplete_tail(data)
    found["m"] = len(valid) + (1 if tail else 0)
    found["w"] = len(WIDE_WORD.findall(valid))
    found["c"] += recounted_bytes(data)
    return found


SURROGATES = re.compile("[\udc80-\udcff]")


def incomplete_tail(data: bytes, end: int | None = None) -> int:
    """How many bytes at the end of data[:end] start a character that goes on past it (0 if none)."""
    end = len(data) if end is None else end
    for back in (1, 2, 3):
        if end < back:
            return 0
        lead = data[end - back]
        if 0xC2 <= lead <= 0xF4:
            need = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
            return back if need > back else 0
        if not 0x80 <= lead < 0xC0:
            return 0
    return 0


def recounted_bytes(data: bytes) -> int:
    """Bytes toybox's wc -m counts twice: a character cut by the end of its buffer is read again
    with the next read, its first byte already counted."""
    extra, start = 0, 0
    while start < len(data):
        end = min(start + WC_BUFFER, len(data))
        cut = incomplete_tail(data, end)
        extra += 1 if cut else 0  # its lead byte: the loop stopped there, after counting it
        if end == len(data):
            break
        start = end - cut
    return extra


@command("wc")
async def wc(inv: Invocation) -> int:
    args = toyargs.parse_or_report(inv, WC)
    if args is None:
        return 1
    files = args.operands
    shown = [f for f in "lwcm" if f in args.flags] or ["l", "w", "c"]
    # toybox: no padding for one file, or for stdin with one count; else columns 7 wide.
    width = 0 if len(files) == 1 or (not files and len(shown) == 1) else 7
    status = 0
    totals = dict.fromkeys("lwcm", 0)
    for path in files or ["-"]:
        read = await read_or_report(inv, path)
        if read is None:
            status = 1
            continue
        data, folder = read
        if folder:
            status = report(inv, CommandError(f"{path}: Is a directory"))  # and its zeros below
        found = await run_bounded(counts, data, "m" in shown)
        for k in totals:
            totals[k] += found[k]
        inv.out(" ".join(str(found[k]).rjust(width) for k in shown) + (f" {path}" if files else "") + "\n")
    if len(files) > 1:
        inv.out(" ".join(str(totals[k]).rjust(width) for k in shown) + " total\n")
    return status


@command("tee")
async def tee(inv: Invocation) -> int:
    flags, files = split_flags(inv.argv[1:], "a")
    data = await inv.io.stdin.read()
    inv.out(data)
    for path in files:
        try:
            fs_call(path, inv.fs.write_bytes, path, data, inv.cwd, append="a" in flags)
        except CommandError as exc:
            return report(inv, exc)
    return 0


B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_NOT_B64 = bytes(c for c in range(256) if c not in B64_ALPHABET)


@command("base64")
async def base64_(inv: Invocation) -> int:
    """`base64 [-di] [-w COLUMNS] [FILE...]` as toybox: wrapped at 76 by default, no newline at
    the end with -w 0; -d stops at the first `=` or at a character outside the alphabet (-i skips
    those), ignoring newlines."""
    args = list(inv.argv[1:])
    width = 76
    value = take_value(args, "-w")
    if value is not None:
        if not is_number(value):
            inv.err(f"base64: -w needs a number of 0 or more, not '{value}'\n")
            return 1
        width = int(value)
    flags, files = split_flags(args, "di")
    status = 0
    async for _, data in each_input(inv, files):
        if data is None:
            status = 1
            continue
        inv.out(_b64_decode(data, "i" in flags) if "d" in flags else _b64_encode(data, width))
        await inv.io.stdout.maybe_flush()
    return status


def _b64_encode(data: bytes, width: int) -> bytes:
    import base64

    text = base64.b64encode(data)
    if not width:
        return text
    lines = [text[i : i + width] for i in range(0, len(text), width)]
    return b"".join(line + b"\n" for line in lines)


def _b64_decode(data: bytes, ignore: bool) -> bytes:
    import base64

    data = data.split(b"=", 1)[0]
    data = data.translate(None, _NOT_B64) if ignore else data.replace(b"\n", b"")
    bad = re.search(rb"[^A-Za-z0-9+/]", data)
    if bad is not None:
        data = data[: bad.start()]
    whole = len(data) // 4 * 4
    rest = data[whole:]
    out = base64.b64decode(data[:whole]) if whole else b""
    if len(rest) >= 2:  # 2 or 3 characters carry 1 or 2 bytes; a lone one carries none
        out += base64.b64decode(rest + b"=" * (4 - len(rest)))[: len(rest) - 1]
    return out


@command("rev")
async def rev(inv: Invocation) -> int:
    """toybox's `rev [FILE...]`: each line's bytes in reverse, every line ended with a newline."""
    _, files = split_flags(inv.argv[1:], "")
    status = 0
    async for _path, data in each_input(inv, files):
        if data is None:
            status = 1
            continue
        inv.out(b"".join(line[::-1] + b"\n" for line in lines_of(data)))
    return status


@command("cmp")
async def cmp(inv: Invocation) -> int:
    """toybox's `cmp [-l] [-s] FILE1 [FILE2]` (stdin for a missing FILE2 or `-`): the first byte
    that differs and its line, with -l every one (bytes as toybox's signed chars print in octal)."""
    flags, files = split_flags(inv.argv[1:], "ls")
    if {"l", "s"} <= flags or not 1 <= len(files) <= 2:
        inv.err(
            'cmp: Need 1 argument (see "cmp --help")\n'
            if not files
            else 'cmp: Max 2 arguments (see "cmp --help")\n'
        )
        return 2
    inputs: list[tuple[str, bytes | None]] = []
    for path in [*files, "-"][:2]:
        try:
            inputs.append((path, await read_input(inv, path)))
        except CommandError as exc:
            if "s" not in flags:
                report(inv, exc)
                continue
            inputs.append((path, None))  # toybox goes on with a failed descriptor: a short read
    if len(inputs) < 2:
        return 2
    (name1, one), (name2, two) = inputs
    first, second = one or b"", two or b""
    status, at, shown = 0, 0, 0
    while (at := first_difference(first, second, at)) >= 0:
        status = 1
        if "l" not in flags:
            if "s" not in flags:
                line = first.count(b"\n", 0, at) + 1
                inv.out(f"{name1} {name2} differ: char {at + 1}, line {line}\n")
            return 1
        inv.out(f"{at + 1} {_signed_octal(first[at])} {_signed_octal(second[at])}\n")
        at, shown = at + 1, shown + 1
        if shown % 256 == 0:  # every byte may differ: the other devices keep running
            await inv.io.stdout.maybe_flush()
            await asyncio.sleep(0)
    if len(first) != len(second) or one is None or two is None:
        if "s" not in flags:
            inv.err(f"cmp: EOF on {name1 if len(first) < len(second) else name2}\n")
        return 1
    return status


def first_difference(a: bytes, b: bytes, start: int = 0) -> int:
    """The first index from `start` where `a` and `b` differ within their common length, or -1:
    compared a block at a time, then halved within the block that differs."""
    end = min(len(a), len(b))
    for block in range(start, end, 65536):
        lo, hi = block, min(end, block + 65536)
        if a[lo:hi] == b[lo:hi]:
            continue
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if a[lo:mid] == b[lo:mid]:
                lo = mid
            else:
                hi = mid
        return lo
    return -1


def _signed_octal(byte: int) -> str:
    """printf("%o") of a C char on x86: a byte over 127 is negative, shown as its 32-bit pattern."""
    return format(byte if byte < 128 else byte - 256 + (1 << 32), "o")
