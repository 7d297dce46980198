"""`sort` and `uniq` as toybox 0.8.6 runs them (toys/posix/sort.c, uniq.c), quirks included.

sort: keys `-k POS1[,POS2]` with their own flags (bdfiMnrVx; a key with any flag ignores the global
ones), `-t` (the key then ends after its separator), blanks skipped before a field unless -t, and
a last `strcmp` of whole lines unless -s, so `-u` only drops lines that tie on that too. `-n` reads
numbers as C's atof does ("0x10" is 16, "1e3" is 1000, "nan" ties with everything), `-V` never
calls two lines equal. The order is glibc's qsort (a stable top-down merge sort); comparisons
that are not a consistent order (-V, NaN under -n, -x overflow) are run through that very merge.
uniq: lines keep their newline when compared (a last line without one differs) and are printed as
read, up to a NUL byte.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from mgfarm.sim.shell import toyargs
from mgfarm.sim.shell.files import MAX_INPUT, CommandError, fs_call, read_file, read_input, report
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import run_bounded
from mgfarm.sim.shell.text import MAX_LINES, TooManyLines, split_lines
from mgfarm.sim.shell.toyargs import wrap

U32 = 1 << 32
SPACES = b" \t\n\v\f\r"  # C isspace()
FIELD = re.compile(rb"[\t-\r ]*[^\t-\r ]*")  # blanks then a word: one field when splitting at blanks
BLANKS = re.compile(rb"[\t-\r ]*")
NOT_DICT = bytes(c for c in range(256) if not (chr(c).isascii() and (chr(c).isalnum() or c in SPACES)))
NOT_PRINT = bytes(c for c in range(256) if not 0x20 <= c < 0x7F)
STRTOD = re.compile(
    rb"[\t-\r ]*([+-]?)(?:(0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?)"
    rb"|((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)|(inf(?:inity)?)|(nan(?:\([0-9a-z_]*\))?))",
    re.IGNORECASE,
)
STRTOL16 = re.compile(rb"[\t-\r ]*([+-]?)(?:0[xX](?=[0-9a-fA-F]))?([0-9a-fA-F]*)")
MONTHS = {m: i for i, m in enumerate([b"jan", b"feb", b"mar", b"apr", b"may", b"jun",
                                      b"jul", b"aug", b"sep", b"oct", b"nov", b"dec"])}  # fmt: skip
LONG_MAX = (1 << 63) - 1
SORT_FLAGS = "gmxVbMcszdfirun"
SORT_VALUES = "STokt"
KEY_FLAGS = "xVbMdfirn"  # the flags a -k key may carry
TRAILING = "B"  # toybox's FLAG_bb: strip trailing blanks (b after a key's comma, or global -b)


class UsageError(Exception):
    """A command line toybox refuses before reading input (sort: status 2, uniq: status 1)."""


@dataclass(frozen=True)
class Key:
    """One -k key: start field, start char, end field, end char (0 = unset) and its own flags."""

    span: tuple[int, int, int, int]
    flags: frozenset[str]


@dataclass
class SortOptions:
    flags: set[str] = field(default_factory=set)
    keys: list[Key] = field(default_factory=list)
    sep: int | None = None  # first byte of -t (0 for an empty -t: never matches); None: blanks
    output: str | None = None
    files: list[str] = field(default_factory=list)


def c_strtol(text: str, pos: int) -> tuple[int, int]:
    """C's strtol(text + pos, &end, 10) cast to unsigned: (value mod 2**32, end); no digits leave
    `pos` where it was."""
    m = re.compile(r"[\t-\r ]*([+-]?)([0-9]+)").match(text, pos)
    if m is None:
        return 0, pos
    value = min(int(m.group(2)), LONG_MAX + (m.group(1) == "-"))
    return (-value if m.group(1) == "-" else value) % U32, m.end()


def parse_key(spec: str) -> Key:
    """A -k spec: `F[.C][flags][,F[.C][flags]]`; a second comma or a foreign flag is refused."""
    span = [0, 0, 0, 0]
    flags: set[str] = set()
    half, pos = 0, 0
    while pos < len(spec):
        span[2 * half], pos = c_strtol(spec, pos)
        if pos < len(spec) and spec[pos] == ".":
            span[2 * half + 1], pos = c_strtol(spec, pos + 1)
        while pos < len(spec):
            letter = spec[pos]
            if letter == ",":
                half += 1
                if half == 1:
                    pos += 1
                    break
            if letter not in KEY_FLAGS:
                raise UsageError("Unknown key option.")
            flags.add(TRAILING if half and letter == "b" else letter)
            pos += 1
    return Key((span[0], span[1], span[2], span[3]), frozenset(flags))


SORT = toyargs.ToySpec("sort", flags=SORT_FLAGS, strings=SORT_VALUES)
UNIQ = toyargs.ToySpec("uniq", flags="zicdu", numbers=dict.fromkeys("fsw", (None, None)))


def parse_sort(args: toyargs.ToyArgs) -> SortOptions:
    opts = SortOptions(files=args.operands)
    specs = []
    for letter, value in ((letter, str(value)) for letter, value in args.order):
        if letter == "k":
            specs.append(value)
        elif letter == "t":
            opts.sep = value.encode("utf-8", "surrogateescape")[:1][0] if value else 0
        elif letter == "o":
            opts.output = value
        elif letter not in "ST":
            opts.flags.add(letter)
    opts.keys = [parse_key(spec) for spec in specs]
    if "b" in opts.flags:
        opts.flags.add(TRAILING)
    if not opts.keys:
        opts.keys = [Key((1, 0, 0, 0), frozenset())]
    return opts


# Reading a key's text out of a line.


def skip_fields(line: bytes, count: int, sep: int | None) -> int:
    """Offset after `count` fields (blank-separated, or each ending after its separator)."""
    end = 0
    for _ in range(count):
        if end >= len(line):
            break  # nothing moves at the end: stop long before a huge count
        if sep is None:
            end = FIELD.match(line, end).end()  # type: ignore[union-attr]
        else:
            found = line.find(bytes([sep]), end)
            end = len(line) if found < 0 else found + 1
    return end


def key_text(line: bytes, span: tuple[int, int, int, int], flags: frozenset[str], sep: int | None) -> bytes:
    """The part of `line` a key compares, as toybox's get_key_data cuts it."""
    if span == (1, 0, 0, 0) and not flags & {"b", "d", "i", TRAILING}:
        return line
    size = len(line)
    start = skip_fields(line, span[0] - 1, sep) if span[0] else size
    end = skip_fields(line, (span[2] + 1) % U32 - 1, sep) if span[2] else size
    if sep is not None and (line[start] if start < size else 0) == sep:
        start += 1  # an empty -t matches the string's terminating NUL
    if "b" in flags or (sep is None and not span[3]):
        start = BLANKS.match(line, min(start, size)).end()  # type: ignore[union-attr]
    if TRAILING in flags:
        while end > start and line[end - 1] in SPACES:
            end -= 1
    if span[3]:
        end = min(wrap(end + span[3] - 1, 32), size)
    if span[1]:
        start = max(0, min(wrap(start + span[1] - 1, 32), size))  # C reads before the line if < 0
    text = line[start : max(start, end)]
    if "d" in flags:
        text = text.translate(None, NOT_DICT)
    if "i" in flags:
        text = text.translate(None, NOT_PRINT)
    return text


# Turning a key's text into what it is compared as.


def c_strtod(text: bytes) -> float | None:
    """C's strtod of the text's start; None when no number starts it."""
    m = STRTOD.match(text)
    if m is None:
        return None
    sign, hexa, dec, inf, _nan = m.groups()
    if hexa is not None:
        try:
            value = float.fromhex(hexa.decode())
        except OverflowError:
            value = float("inf")
    elif dec is not None:
        value = float(dec)
    else:
        value = float("inf") if inf is not None else float("nan")
    return -value if sign == b"-" else value


def general_value(text: bytes) -> tuple[int, float]:
    """-g: not a number < nan < -inf < numbers < inf."""
    value = c_strtod(text)
    if value is None:
        return (0, 0.0)
    return (1, 0.0) if value != value else (2, value)


def hex_value(text: bytes) -> int:
    """-x: strtol(text, 0, 16), saturated to a C long."""
    m = STRTOL16.match(text)
    assert m is not None  # every group may be empty
    magnitude = int(m.group(2) or b"0", 16)
    if m.group(1) == b"-":
        return -min(magnitude, LONG_MAX + 1)
    return min(magnitude, LONG_MAX)


def value_of(kind_: str, text: bytes) -> object:
    """What a key's text is compared as for its kind (see key_kind)."""
    if kind_ == "g":
        return general_value(text)
    if kind_ == "M":
        return MONTHS.get(text[:3].lower(), -1)  # strptime %b: a month's name or its first 3 letters
    if kind_ == "x":
        return hex_value(text)
    if kind_ == "n":
        number = c_strtod(text)
        return 0.0 if number is None else number
    if kind_ == "f":
        return text.lower()  # strcasecmp in the C.UTF-8 locale folds ASCII only
    return text


def key_kind(flags: frozenset[str]) -> str:
    """How compare_values treats a key: the first of g M x V n that is set, else f or strcmp."""
    return next((k for k in "gMxVnf" if k in flags), "s")


def plain_cmp(a: object, b: object) -> int:
    return (a > b) - (a < b)  # type: ignore[operator]


def hex_cmp(a: object, b: object) -> int:
    """The sign of (int)(strtol(x) - strtol(y)): a long difference truncated to an int."""
    diff = wrap(wrap(a - b), 32)  # type: ignore[operator]
    return (diff > 0) - (diff < 0)


def leading_number(text: bytes, pos: int) -> tuple[int, int]:
    """strtoll(text + pos, &end, 10) from a digit: (value, end)."""
    end = pos
    while end < len(text) and 48 <= text[end] <= 57:
        end += 1
    return min(int(text[pos:end]), LONG_MAX), end


def version_cmp(x: object, y: object) -> int:
    """-V exactly as toybox compares (equal strings are "less", "-rc"/"-pre" sort first)."""
    assert isinstance(x, bytes) and isinstance(y, bytes)
    i = j = 0
    while i < len(x) and j < len(y):
        while i < len(x) and j < len(y) and x[i] == y[j]:
            i, j = i + 1, j + 1
        if i < len(x) and j < len(y) and 48 <= x[i] <= 57 and 48 <= y[j] <= 57:
            a, i = leading_number(x, i)
            b, j = leading_number(y, j)
            if a != b:
                return -1 if a < b else 1
            continue
        xc = x[i] if i < len(x) else x[i - 1]  # toybox builds with -funsigned-char
        yc = y[j] if j < len(y) else y[j - 1]
        if xc != yc:
            rest = y[j:]
            return -1 if xc < yc and not rest.startswith((b"-rc", b"-pre")) else 1
    return (1 if j < len(y) else 0) if i < len(x) else -1


CMP: dict[str, Callable[[object, object], int]] = {"x": hex_cmp, "V": version_cmp}


@dataclass(frozen=True)
class SortKey:
    """A key ready to compare: where it is, its effective flags, kind and direction."""

    span: tuple[int, int, int, int]
    flags: frozenset[str]
    kind: str
    reverse: bool


Item = tuple[bytes, tuple[object, ...]]  # a line and its keys' values


class Sorter:
    """toybox's compare_keys over precomputed key values, and the sorts built on it."""

    def __init__(self, opts: SortOptions) -> None:
        top = frozenset(opts.flags)
        self.sep = opts.sep
        self.stable_only = "s" in top  # -s: no last whole-line comparison
        self.reverse = "r" in top
        self.keys = []
        for key in opts.keys:
            flags = key.flags or top
            self.keys.append(SortKey(key.span, flags, key_kind(flags), "r" in flags))

    def values(self, line: bytes) -> tuple[object, ...]:
        return tuple(value_of(k.kind, key_text(line, k.span, k.flags, self.sep)) for k in self.keys)

    def compare(self, x: Item, y: Item) -> int:
        """compare_keys: the first key that differs, else strcmp unless -s; each with its -r."""
        for n, key in enumerate(self.keys):
            result = CMP.get(key.kind, plain_cmp)(x[1][n], y[1][n])
            if result:
                return -result if key.reverse else result
        if self.stable_only:
            return 0
        result = plain_cmp(x[0], y[0])
        return -result if self.reverse else result

    def consistent(self, columns: list[list[object]]) -> bool:
        """Whether compare is a true order on these values, so a key sort gives qsort's result."""
        for key, column in zip(self.keys, columns, strict=True):
            if key.kind == "V":
                return False
            if key.kind == "n" and any(v != v for v in column):  # NaN: equal to every number
                return False
            if key.kind == "x" and column and max(column) - min(column) >= 1 << 31:  # type: ignore[type-var, operator]
                return False
        return True

    def column(self, key: SortKey, lines: list[bytes]) -> list[object]:
        """One key's values for every line."""
        return [value_of(key.kind, key_text(line, key.span, key.flags, self.sep)) for line in lines]

    def sort(self, lines: list[bytes], unique: bool) -> list[bytes]:
        """The lines in qsort's order, ties dropped under -u; run in a worker thread."""
        columns = [self.column(key, lines) for key in self.keys]
        order = list(range(len(lines)))
        if self.consistent(columns):
            # Stable sorts from the last criterion to the first give the merge sort's order.
            if not self.stable_only:
                order.sort(key=lines.__getitem__, reverse=self.reverse)
            for key, column in reversed(list(zip(self.keys, columns, strict=True))):
                order.sort(key=column.__getitem__, reverse=key.reverse)  # type: ignore[arg-type]
            items = [(lines[i], tuple(c[i] for c in columns)) for i in order] if unique else []
        else:
            items = merge_sort([(lines[i], tuple(c[i] for c in columns)) for i in order], self.compare)
            if not unique:
                return [item[0] for item in items]
        if not unique:
            return [lines[i] for i in order]
        kept: list[Item] = []
        for item in items:
            if not kept or self.compare(kept[-1], item):
                kept.append(item)
        return [item[0] for item in kept]

    def sorted_text(self, lines: list[bytes], unique: bool, end: bytes) -> bytes:
        """The output: each sorted line followed by `end`."""
        return b"".join(line + end for line in self.sort(lines, unique))

    def first_unsorted(
        self, lines: list[bytes], before: Item | None, strict: bool
    ) -> tuple[int, Item | None]:
        """-c: the index of the first line out of order after `before` (-1 if none) and the last item."""
        for n, line in enumerate(lines):
            item = (line, self.values(line))
            if before is not None and self.compare(before, item) > (-1 if strict else 0):
                return n, item
            before = item
        return -1, before


def merge_sort(items: list[Item], cmp: Callable[[Item, Item], int]) -> list[Item]:
    """glibc's qsort (msort): halves split at n/2, the left item taken while cmp <= 0."""
    if len(items) <= 1:
        return items
    half = len(items) // 2
    left, right = merge_sort(items[:half], cmp), merge_sort(items[half:], cmp)
    out: list[Item] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def records_of(data: bytes, zero: bool) -> list[bytes]:
    """sort's lines: split at \\n (or NUL for -z), each ending at its first NUL as C strings do."""
    lines = split_lines(data, b"\0" if zero else b"\n")
    if not zero and b"\0" in data:
        lines = [line.partition(b"\0")[0] for line in lines]
    return lines


async def read_operand(inv: Invocation, path: str) -> bytes:
    """A file's bytes; a directory reads as nothing, as toybox's read of one fails quietly."""
    if not path:
        raise CommandError(": No such file or directory")  # open("") fails; it is not the cwd
    return await read_file(inv, path)


@command("sort")
async def sort(inv: Invocation) -> int:
    args = toyargs.parse_or_report(inv, SORT)
    if args is None:
        return 2  # sort's usage errors exit 2
    try:
        opts = parse_sort(args)
    except UsageError as exc:
        inv.err(f"sort: {exc}\n")
        return 2
    sorter = Sorter(opts)
    zero, status = "z" in opts.flags, 0
    lines: list[bytes] = []
    before: Item | None = None
    count = size = 0
    for path in opts.files or ["-"]:
        try:
            data = await read_operand(inv, path)
            size += len(data)
            if size > MAX_INPUT:
                raise CommandError("input larger than 64 MiB")
            records = await run_bounded(records_of, data, zero)
            if count + len(records) > MAX_LINES:
                raise TooManyLines(f"more than {MAX_LINES:,} lines of input")
        except (CommandError, TooManyLines) as exc:
            status = report(inv, CommandError(str(exc)))
            continue
        if "c" in opts.flags:
            bad, before = await run_bounded(sorter.first_unsorted, records, before, "u" in opts.flags)
            if bad >= 0:
                inv.err(f"sort: {path}: Check line {count + bad}\n\n")
                return 1
        else:
            lines += records
        count += len(records)
    if "c" in opts.flags:
        return status
    # A worker thread: the event loop serving the other devices stays free.
    text = await run_bounded(sorter.sorted_text, lines, "u" in opts.flags, b"\0" if zero else b"\n")
    if opts.output is None:
        inv.out(text)
        return status
    try:
        fs_call(opts.output, inv.fs.write_bytes, opts.output, text, inv.cwd)
    except CommandError as exc:
        return report(inv, exc)
    return status


# uniq


@dataclass
class UniqOptions:
    flags: set[str] = field(default_factory=set)
    fields: int = 0
    chars: int = 0
    width: int = 0
    files: list[str] = field(default_factory=list)


def parse_uniq(args: toyargs.ToyArgs) -> UniqOptions:
    opts = UniqOptions(files=args.operands)
    for letter, value in args.order:
        if letter == "f":
            opts.fields = int(value)
        elif letter == "s":
            opts.chars = int(value)
        elif letter == "w":
            opts.width = int(value)
        else:
            opts.flags.add(letter)
    return opts


def compared_part(text: bytes, opts: UniqOptions) -> bytes:
    """What uniq compares of a line: after -f fields and -s chars, at most -w bytes, -i folded."""
    pos = 0
    if opts.fields or opts.chars:
        fields = opts.fields if opts.fields >= 0 else len(text)  # a negative count skips everything
        for _ in range(fields):
            if pos >= len(text):
                break
            pos = FIELD.match(text, pos).end()  # type: ignore[union-attr]
        pos = len(text) if opts.chars < 0 else min(len(text), pos + opts.chars)
    part = text[pos : pos + opts.width] if opts.width > 0 else text[pos:]
    return part.lower() if "i" in opts.flags else part


def uniq_lines(data: bytes, opts: UniqOptions) -> bytes:
    """uniq over whole input; each line keeps its end (a last line may have none); run in a worker thread."""
    eol = b"\0" if "z" in opts.flags else b"\n"
    parts = split_lines(data, eol)
    records = [part + eol for part in parts]
    if records and not data.endswith(eol):
        records[-1] = parts[-1]
    texts = [r.partition(b"\0")[0] for r in records] if b"\0" in data else records  # C strings
    out: list[bytes] = []
    first, repeats = 0, 0
    for n in range(1, len(texts) + 1):
        if n < len(texts) and compared_part(texts[n], opts) == compared_part(texts[first], opts):
            repeats += 1
            continue
        if not ("u" in opts.flags if repeats else "d" in opts.flags):
            prefix = f"{repeats + 1:7d} ".encode() if "c" in opts.flags else b""
            out.append(prefix + texts[first] + (b"\0" if "z" in opts.flags else b""))
        first, repeats = n, 0
    return b"".join(out)


@command("uniq")
async def uniq(inv: Invocation) -> int:
    args = toyargs.parse_or_report(inv, UNIQ)
    if args is None:
        return 1
    opts = parse_uniq(args)
    data = b""
    if opts.files:
        path = opts.files[0]
        try:
            data = await read_operand(inv, "./-" if path == "-" else path)  # "-" names a file here
        except CommandError as exc:
            inv.err(f"uniq: No file {str(exc).replace('./-:', '-:', 1)}\n")
            return 1
    else:
        try:
            data = await read_input(inv, "-")
        except CommandError as exc:
            return report(inv, exc)
    try:
        text = await run_bounded(uniq_lines, data, opts)  # a worker thread: the loop stays free
    except TooManyLines as exc:
        return report(inv, CommandError(str(exc)))
    if len(opts.files) < 2:
        inv.out(text)
        return 0
    try:
        fs_call(opts.files[1], inv.fs.write_bytes, opts.files[1], text, inv.cwd)
    except CommandError as exc:
        inv.err(f"uniq: No file {exc}\n")
        return 1
    return 0
