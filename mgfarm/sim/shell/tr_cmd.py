"""`tr` as toybox 0.8.6 runs it (toys/pending/tr.c, which Android builds): bytes, not characters.

SET1 and SET2 expand to byte lists: escapes (`\\n`, `\\x41`, `\\101`), ranges `a-z`, the classes
`[:alpha:]`... and `[=c=]` (which toybox reads as `c`, then `c=]` again as literal bytes). A byte
maps to the SET2 byte at its SET1 index (the last SET2 byte repeating), a later SET1 entry winning.
-c/-C complements SET1 in byte order, -d deletes SET1's bytes, -s squeezes runs of one output
byte that came from SET1 or SET2.
"""

from __future__ import annotations

from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import run_bounded

DELETE, SQUEEZE = 0x100, 0x200
ESCAPES = {"n": 10, "t": 9, "e": 27, "b": 8, "a": 7, "f": 12, "v": 11, "r": 13, "\\": 92}
PUNCT = [c for c in range(33, 127) if not chr(c).isalnum()]
CNTRL = [*range(32), 127]
CLASSES: dict[bytes, list[int]] = {
    b"[:alpha:]": [*range(65, 91), *range(97, 123)],
    b"[:alnum:]": [*range(65, 91), *range(97, 123), *range(48, 58)],
    b"[:digit:]": list(range(48, 58)),
    b"[:lower:]": list(range(97, 123)),
    b"[:upper:]": list(range(65, 91)),
    b"[:space:]": [9, 10, 12, 13, 11, 32],
    b"[:blank:]": [9, 32],
    b"[:punct:]": PUNCT,
    b"[:cntrl:]": CNTRL,
    b"[:xdigit:]": [*range(48, 58), *range(65, 71), *range(97, 103)],
}


class TrError(Exception):
    """What tr prints after `tr: `; status 1."""


def escape(arg: bytes, i: int) -> tuple[int, int]:
    """The byte a backslash at `i - 1` stands for, and where reading goes on (toybox's
    handle_escape_char: up to 3 octal digits or `x` and 2 hex digits; anything else is a
    backslash, the next byte then read as itself)."""
    c = arg[i : i + 1]
    if c == b"x" or c.isdigit():
        base, start = (16, i + 1) if c == b"x" else (8, i)
        digits = b"0123456789abcdef"[:base]
        end = start
        while (
            end < start + (2 if base == 16 else 3) and end < len(arg) and arg[end : end + 1].lower() in digits
        ):
            end += 1
        if base == 16 and end == start:
            return 92, i  # `\xq`: a backslash, then `x` as itself
        return (int(arg[start:end], base) & 0xFF if end > start else 0), end
    if c and chr(c[0]) in ESCAPES:
        return ESCAPES[chr(c[0])], i + 1
    return 92, i


def expand(arg: bytes) -> list[int]:
    """A SET operand as toybox's expand_set reads it."""
    out: list[int] = []
    i = 0
    while i < len(arg):
        if arg[i] == 92:
            value, i = escape(arg, i + 1)
            out.append(value)
            continue
        if arg[i + 1 : i + 2] == b"-" and i + 2 < len(arg):
            low, high = arg[i], arg[i + 2]
            if low > high:
                # toybox reports it with perror_exit and whatever errno it left behind
                raise TrError("reverse colating order: No such file or directory")
            out.extend(range(low, high + 1))
            i += 3
            continue
        if arg[i : i + 2] == b"[:":
            name = next((n for n in CLASSES if arg.startswith(n[:9], i)), None)
            if name is not None:
                out.extend(CLASSES[name])
                i += len(name)
                continue
        if arg[i : i + 2] == b"[=":
            i += 2
            if i < len(arg):
                out.append(arg[i])
            if arg[i + 1 : i + 3] != b"=]":
                raise TrError("bad equiv class")
            continue  # toybox leaves its place at the byte: it is read again, with `=]`
        out.append(arg[i])
        i += 1
    return out


def byte_map(set1: list[int], set2: list[int] | None, delete: bool, squeeze: bool) -> list[int]:
    """Each byte's output with toybox's DELETE and SQUEEZE marks."""
    table = list(range(256))
    if delete:
        for b in set1:
            table[b] |= DELETE
    if squeeze:
        for b in set1 + (set2 or []):
            table[b] |= SQUEEZE
    if set2 and not delete:
        for n, b in enumerate(set1):
            table[b] = (table[b] & 0xFF00) | set2[min(n, len(set2) - 1)]
    return table


def translate(data: bytes, table: list[int], delete: bool, squeeze: bool) -> bytes:
    if not (delete or squeeze):
        return data.translate(bytes(v & 0xFF for v in table))
    out = bytearray()
    prev = -1
    for b in data:
        ch = table[b]
        if delete and ch & DELETE:
            continue
        if squeeze and ch & SQUEEZE and ch == prev:
            continue
        out.append(ch & 0xFF)
        prev = ch
    return bytes(out)


def parse(argv: list[str]) -> tuple[set[str], list[bytes]]:
    flags: set[str] = set()
    operands: list[bytes] = []
    for n, arg in enumerate(argv):
        if arg == "--":
            operands += [a.encode("utf-8", "surrogateescape") for a in argv[n + 1 :]]
            break
        if arg.startswith("-") and len(arg) > 1 and not operands:
            bad = next((n for n, c in enumerate(arg) if n and c not in "Ccsd"), None)
            if bad:
                raise TrError(f"Unknown option '{arg[bad:]}' (see \"tr --help\")")
            flags.update("c" if c == "C" else c for c in arg[1:])
            continue
        operands.append(arg.encode("utf-8", "surrogateescape"))
    if not operands:
        raise TrError('Needs 1 argument (see "tr --help")')
    if len(operands) > 2:
        raise TrError('Max 2 arguments (see "tr --help")')
    return flags, operands


@command("tr")
async def tr(inv: Invocation) -> int:
    try:
        flags, operands = parse(inv.argv[1:])
        set1 = expand(operands[0])
        if "c" in flags:
            present = set(set1)
            set1 = [b for b in range(256) if b not in present]
        set2 = None
        if len(operands) > 1:
            if not operands[1]:
                raise TrError("set2 can't be empty string")
            set2 = expand(operands[1])
    except TrError as exc:
        inv.err(f"tr: {exc}\n")
        return 1
    table = byte_map(set1, set2, "d" in flags, "s" in flags)
    data = await inv.io.stdin.read()
    # -d and -s take a Python step a byte: a worker thread keeps the event loop free
    inv.out(await run_bounded(translate, data, table, "d" in flags, "s" in flags))
    return 0
