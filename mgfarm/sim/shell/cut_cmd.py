"""`cut` as toybox 0.8.6 runs it (toys/posix/cut.c), quirks included.

Selections (-b bytes, -c UTF-8 characters, -C columns, -f fields split by any byte of -d, -F fields
split by an ERE) are sorted and joined unless -D. What a device does that other cuts do not: a
selection starting past the line's length in bytes is skipped even for fields (`cut -d: -f2` of
"x" prints an empty line), a line without a delimiter is printed whole only when the selection
starts inside it, `-d` may name several delimiters (and -O defaults to all of them), a list entry
that is not a number selects the whole line, and every line printed ends with a newline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mgfarm.sim.shell.files import CommandError, read_input, report
from mgfarm.sim.shell.posix_regex import to_python
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import BoundedPattern, RegexError, compile_regex, run_bounded
from mgfarm.sim.shell.text import TooManyLines, split_lines
from mgfarm.sim.shell.utf8 import char_length, wcwidth

UINT_MAX = (1 << 32) - 1
MAX_PAIRS = 512  # toybox keeps selections in its 4 KiB toybuf
SELECTORS = "CFfcb"  # toybox's order of the selection lists
EXCLUSIVE = "cbfF"  # at most one of these


class CutError(Exception):
    """What cut prints after `cut: `; status 1."""


@dataclass
class CutOptions:
    lists: dict[str, list[str]] = field(default_factory=dict)  # selector letter: its LIST values
    given: list[str] = field(default_factory=list)  # selector letters in command-line order
    delim: bytes | None = None
    output: bytes | None = None
    flags: set[str] = field(default_factory=set)  # s D n
    files: list[str] = field(default_factory=list)


def usage(problem: str) -> CutError:
    return CutError(f'{problem} (see "cut --help")')


def parse(argv: list[str]) -> CutOptions:
    """toybox's option rules for cut: values attached or next, flags bundled, anywhere on the line."""
    opts = CutOptions()
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--":
            opts.files += args
            break
        if arg.startswith("--output-delimiter"):
            value = arg.partition("=")[2] if "=" in arg else (args.pop(0) if args else None)
            if value is None:
                raise usage("Missing argument to --output-delimiter")
            opts.output = value.encode("utf-8", "surrogateescape")
            continue
        if not arg.startswith("-") or arg == "-":
            opts.files.append(arg)
            continue
        if arg.startswith("--"):
            raise usage(f"Unknown option '{arg[2:]}'")
        i = 1
        while i < len(arg):
            letter = arg[i]
            if letter in "sDn":
                opts.flags.add(letter)
                i += 1
                continue
            if letter not in SELECTORS + "dO":
                raise usage(f"Unknown option '{arg[i:]}'")  # toybox names the rest of the word
            value = arg[i + 1 :] or (args.pop(0) if args else None)
            if value is None:
                raise usage(f"Missing argument to -{letter}")
            if letter in SELECTORS:
                for other in opts.given:
                    if other != letter and other in EXCLUSIVE and letter in EXCLUSIVE:
                        raise usage(f"No '{letter}' with '{other}'")
                if letter not in opts.given:
                    opts.given.append(letter)
                opts.lists.setdefault(letter, []).append(value)
            elif letter == "d":
                opts.delim = value.encode("utf-8", "surrogateescape")
            else:
                opts.output = value.encode("utf-8", "surrogateescape")
            break
    if not opts.given:
        raise usage("Needs -CFfcb")
    return opts


def parse_range(entry: str) -> tuple[tuple[int, int] | None, int]:
    """One LIST entry as toybox's get_range reads it: (start, end) or None, and the offset in the
    entry where it went wrong (for the caret under the message)."""
    pair = [0, UINT_MAX]
    pos = 0
    i = 0
    while True:
        if i == 2:
            return None, pos
        digits = 0
        while pos + digits < len(entry) and entry[pos + digits].isascii() and entry[pos + digits].isdigit():
            digits += 1
        if digits:
            value = int(entry[pos : pos + digits])
            pos += digits
            if value < 1 or value > UINT_MAX:
                return None, pos
            pair[i] = value
        dash = entry[pos : pos + 1] == "-"
        pos += 1
        if not dash:
            break
        i += 1
    if i == 0:
        pair[1] = pair[0]
    if pos < len(entry):
        return None, pos
    if pair[0] > pair[1]:
        return None, 0
    return (pair[0], pair[1]), 0


def entries(value: str) -> list[tuple[int, str]]:
    """A LIST's entries and their offsets, as comma_iterate gives them: it stops at an empty rest,
    so "1," is one entry and ",1" two (the first empty)."""
    out: list[tuple[int, str]] = []
    at = 0
    while at < len(value):
        comma = value.find(",", at)
        end = len(value) if comma < 0 else comma
        out.append((at, value[at:end]))
        at = len(value) if comma < 0 else comma + 1
    return out


def selections(opts: CutOptions) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    for letter in SELECTORS:
        for value in opts.lists.get(letter, []):
            for at, entry in entries(value):
                found, where = parse_range(entry)
                if found is None:
                    err = f"bad -{letter}"
                    caret = " " * (5 + len("cut") + len(err) + at + where - 1) + "^"
                    raise CutError(f"{err} '{value}'\n{caret}")
                if len(pairs) == MAX_PAIRS:
                    raise CutError("select limit")
                pairs.append(found)
    if not pairs:
        raise CutError("no selections")
    if "D" in opts.flags:
        return pairs
    merged: list[tuple[int, int]] = []
    for start, end in sorted(pairs):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def skip_chars(line: bytes, pos: int, count: int) -> int:
    """The index `count` characters on from `pos` (bytes that are not UTF-8 skipped, uncounted)."""
    while count and pos < len(line):
        n = char_length(line, pos)
        if n >= 0:
            count -= 1
        pos += max(n, 1)
    return pos


def crunch(line: bytes, pos: int, width: int) -> int:
    """toybox's crunch_str measuring `width` columns from `pos`: where it stops. A character that
    is not printable (a tab, a byte that is not UTF-8) takes all the columns left."""
    columns = 0
    while pos < len(line) and line[pos]:
        n = char_length(line, pos)
        col = wcwidth(line[pos : pos + n].decode("utf-8")) if n > 0 else -1
        if col >= 0:
            if width - columns < col:
                break
            columns, pos = columns + col, pos + n
            continue
        col = width - columns
        if col < 1:
            break
        columns, pos = columns + col, pos + max(n, 1)
    return pos


def byte_bounds(line: bytes, start: int, end: int, whole_chars: bool) -> tuple[int, int]:
    """-b's (from, to); with -n, not splitting a character (toybox's rule: a character is kept
    from the one that ends at or before `start`, up to the last that ends at or before `end`)."""
    if not whole_chars:
        return start, end
    s = last = 0
    pos = 0
    while pos < end:
        n = char_length(line, pos)
        if n < 0:
            pos += 1
            continue
        pos += max(n, 1)
        if pos <= end:
            last = pos
        if pos <= start:
            s = pos
    return s, max(last, s)


def field_bounds(
    line: bytes, start: int, count: int, delims: bytes, regex: BoundedPattern | None
) -> tuple[int, int] | str:
    """Fields `start`.. (`count` of them) as toybox finds them: (from, to), or "none" when the line
    has no delimiter at all, or "empty" when it ends before the first selected field."""
    text = line.split(b"\0", 1)[0]  # toybox walks a C string
    s = 0
    for second in (False, True):
        ss = s
        left = count if second else start
        first_start = start
        while ss < len(text) and left:
            if regex is None:
                hit = text[ss] in delims
                ss += 1
                if not hit:
                    continue
                left -= 1
                if not left and second:
                    ss -= 1
            else:
                m = regex.search(text[ss:].decode("latin-1"))
                if m is None:
                    ss = len(text)
                    continue
                if not m.end():
                    break
                left -= 1
                ss += m.start() if (not left and second) else m.end()
        if not second:
            s = ss
            if s >= len(text):
                return "none" if left == first_start else "empty"
    return s, ss


def cut_line(
    line: bytes, pairs: list[tuple[int, int]], opts: CutOptions, regex: BoundedPattern | None
) -> bytes:
    """One input line's output and its newline (none when -s drops the line at a selection)."""
    out = bytearray()
    delims = opts.delim if opts.delim is not None else b"\t"
    fields = not ({"b", "c", "C"} & set(opts.given))
    separator = opts.output
    if separator is None and fields:
        separator = b" " if "F" in opts.given else delims
    for n, (first, last) in enumerate(pairs):
        start = first - 1 if first else 0
        if start >= len(line):
            continue
        end = len(line) if not last or last > len(line) else last
        count = end - start
        if "b" in opts.given:
            s, e = byte_bounds(line, start, end, "n" in opts.flags)
            if s >= e and "n" in opts.flags:
                continue
        elif "C" in opts.given:
            s = crunch(line, 0, start) if start else 0
            if s >= len(line) or not line[s]:
                continue
            e = crunch(line, s, count)
        elif "c" in opts.given:
            s = skip_chars(line, 0, start)
            if s >= len(line):
                continue
            e = skip_chars(line, s, count)
        else:
            found = field_bounds(line, start, count, delims, regex)
            if found == "none":
                if "D" in opts.flags:
                    break
                if "s" in opts.flags:
                    return bytes(out)  # what earlier selections printed, and no newline
                out += line
                break
            if found == "empty":
                continue
            assert isinstance(found, tuple)
            s, e = found
        if n and separator is not None:
            out += separator
        out += line[s:e]
    return bytes(out) + b"\n"


def cut_all(
    data: bytes, pairs: list[tuple[int, int]], opts: CutOptions, regex: BoundedPattern | None
) -> bytes:
    fields = not ({"b", "c", "C"} & set(opts.given))
    by_line = fields and opts.delim is not None and opts.delim[:1] == b"\n"
    out: list[bytes] = []
    for number, line in enumerate(split_lines(data, b"\n"), 1):
        if by_line:
            # a newline delimiter selects whole lines by number
            if any((first or 1) <= number <= last for first, last in pairs):
                out.append(line + b"\n")
            continue
        out.append(cut_line(line, pairs, opts, regex))
    return b"".join(out)


@command("cut")
async def cut(inv: Invocation) -> int:
    try:
        opts = parse(inv.argv[1:])
        if "s" in opts.flags and not {"f", "F"} & set(opts.given):
            raise CutError("-s needs -Ff")
        if opts.delim is not None and not {"f", "F"} & set(opts.given):
            raise CutError("-d needs -Ff")
        pairs = selections(opts)
        regex = None
        if "F" in opts.given:
            source = (b"[[:space:]][[:space:]]*" if opts.delim is None else opts.delim).decode("latin-1")
            regex = compile_regex(to_python(source, extended=True))
    except CutError as exc:
        inv.err(f"cut: {exc}\n")
        return 1
    except RegexError as exc:
        inv.err(f"cut: bad regex '{opts.delim!r}': {exc}\n")
        return 1
    status = 0
    for path in opts.files or ["-"]:
        try:
            data = await read_input(inv, path)
            inv.out(await run_bounded(cut_all, data, pairs, opts, regex))
        except (CommandError, TooManyLines) as exc:
            status = report(inv, CommandError(str(exc)))
        await inv.io.stdout.maybe_flush()
    return status
