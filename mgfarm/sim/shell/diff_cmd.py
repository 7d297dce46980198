"""`diff` as Android 13's toybox 0.8.6 offers it: unified output only, files or folders (-r).

Options: -u, -U N, -q, -s, -r, -N, -S FILE, -a, -b, -w, -B, -i, -t, -T, -d, -L LABEL,
--strip-trailing-cr, --color (off: the sim's stdout is never a tty). Status 0 same, 1 different,
2 trouble. Everything printed is toybox's, hunks included: its diff is a port of BSD's diffreg
(Hunt and McIlroy: lines hashed and grouped, k-candidates, a longest common subsequence, a check
pass), and so is this one, quirks and all. So its choice among minimal edit scripts, not GNU's,
is the one shown, changes closer than the context join while ones up to twice the context apart get
back-to-back hunks, -B drops a change whose deleted lines are all empty whatever it inserts, -U is
trimmed to the first file's length (for later files of -r too), and -r ends with the status of the
last comparison or `Only in`.

A device is hostile: inputs are what `read_input` allows (64 MiB) and at most MAX_DIFF_LINES lines,
and the comparison runs in a worker thread with a work budget (Hunt and McIlroy's search grows with
the square of the lines on files of a few repeated lines), so a pair of files too costly to compare
ends with `diff: files too different` (status 2) instead of holding the device.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import posixpath
import re
import stat as statmod
import time
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from mgfarm.sim.shell.blocks import atolx
from mgfarm.sim.shell.files import YIELD_EVERY, CommandError, read_input
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import run_bounded
from mgfarm.sim.shell.system import local_zone
from mgfarm.sim.system.fs import PathEscapeError

MAX_DIFF_LINES = 1_000_000  # lines of one input: each is an object in memory, twice over
MAX_WORK = 4_000_000  # steps of the candidate search (about 1.2-1.7 million a second) before giving up
MAX_SECONDS = 5.0  # and a deadline in wall time, whatever the machine's speed
MAX_ENTRIES = 100_000  # entries of one folder tree that -r lists
DIFF_FLAGS = "BdbutwiTsqaNr"
EQUALIZING = {"b", "w", "i", "B", "strip-trailing-cr"}  # options under which different bytes may be equal
LONG_FLAGS = {
    "ignore-blank-lines": "B",
    "minimal": "d",
    "ignore-space-change": "b",
    "expand-tabs": "t",
    "ignore-all-space": "w",
    "ignore-case": "i",
    "initial-tab": "T",
    "report-identical-files": "s",
    "brief": "q",
    "text": "a",
    "new-file": "N",
    "recursive": "r",
    "color": "color",
    "strip-trailing-cr": "strip-trailing-cr",
}
LONG_VALUES = {"label": "L", "starting-file": "S", "unified": "U"}


class UsageError(Exception):
    """A command line toybox's option parser refuses: `diff: message (see "diff --help")`, status 2."""


class Trouble(Exception):
    """A failure that ends the whole command with status 2 (toybox's error_exit)."""


class TooDifferent(Exception):
    """The comparison ran past its budget."""


@dataclass
class Options:
    """What the command line asked for."""

    flags: set[str] = field(default_factory=set)
    context: int = 3
    labels: list[str] = field(default_factory=list)
    start: str | None = None


def parse_args(argv: list[str]) -> tuple[Options, list[str]]:
    """Options anywhere on the line (toybox permutes), bundled or long; exactly two operands."""
    opts = Options()
    operands: list[str] = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--":
            operands.extend(args)
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            if name in LONG_FLAGS and not eq:
                opts.flags.add(LONG_FLAGS[name])
                continue
            if name not in LONG_VALUES:
                raise UsageError(f"Unknown option '{arg[2:]}'")
            if not eq:
                if not args:
                    raise UsageError(f"Missing argument to --{name}")
                value = args.pop(0)
            _take_value(opts, LONG_VALUES[name], value)
            continue
        if not arg.startswith("-") or arg == "-":
            operands.append(arg)
            continue
        for at, letter in enumerate(arg[1:], 1):
            if letter in "LSU":  # the rest of the word, or the next word, is the value
                value = arg[at + 1 :]
                if not value:
                    if not args:
                        raise UsageError(f"Missing argument to -{letter}")
                    value = args.pop(0)
                _take_value(opts, letter, value)
                break
            if letter not in DIFF_FLAGS:
                raise UsageError(f"Unknown option '{letter}'")
            opts.flags.add(letter)
    if len(operands) < 2:
        raise UsageError("Need 2 arguments")
    if len(operands) > 2:
        raise UsageError("Max 2 arguments")
    return opts, operands


def _take_value(opts: Options, letter: str, value: str) -> None:
    if letter == "L":
        opts.labels.append(value)
    elif letter == "S":
        opts.start = value
    else:
        try:
            number = atolx(value)
        except CommandError as exc:
            raise Trouble(str(exc)) from exc
        if number < 0:
            raise UsageError("-U < 0")
        opts.context = number


# -- lines and their tokens ------------------------------------------------------------------------


@dataclass
class Text:
    """One input: its lines as they are, without their newlines; `complete`: whether the last one
    had a newline; `keys`: what each line compares as (toybox's tokens of it)."""

    name: str
    lines: list[bytes]
    complete: bool
    mtime_ns: int
    keys: list[bytes] = field(default_factory=list)


WHITE_IN_LINE = b" \t\v\f\r"  # isspace() in the C locale, but for the newline
UPPER_TO_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
RUN_OF_WHITE = re.compile(b"[" + WHITE_IN_LINE + b"]+")


def split_text(name: str, data: bytes, mtime_ns: int, flags: set[str]) -> Text:
    """The lines of `data` (at most MAX_DIFF_LINES, Trouble otherwise) and their keys."""
    if data.count(b"\n") > MAX_DIFF_LINES:
        raise Trouble(f"{name}: more than {MAX_DIFF_LINES:,} lines")
    complete = data.endswith(b"\n") or not data
    lines = _lines(data, complete)
    return Text(name, lines, complete, mtime_ns, line_keys(data, complete, flags))


def _lines(data: bytes, complete: bool) -> list[bytes]:
    lines = data.split(b"\n")
    if complete:
        lines.pop()  # the empty piece after the last newline
    return lines


def line_keys(data: bytes, complete: bool, flags: set[str]) -> list[bytes]:
    """Each line as toybox's read_tok sees it: the newline is part of a line (an unfinished last
    line lacks it); --strip-trailing-cr drops one \\r before a newline; -i folds A-Z; -w drops all
    white space; -b turns each run of it, the newline included, into one space."""
    if "strip-trailing-cr" in flags:
        data = data.replace(b"\r\n", b"\n")
    if "i" in flags:
        data = data.translate(UPPER_TO_LOWER)
    if "w" in flags:
        return _lines(data.translate(None, WHITE_IN_LINE), complete)
    if "b" in flags:
        data = RUN_OF_WHITE.sub(b" ", data).replace(b" \n", b"\n")
        if not complete and data.endswith(b" "):
            data = data[:-1]  # end of file counts as the line's white space, as a newline would
        return [line + b" " for line in _lines(data, complete)]
    keys = [line + b"\n" for line in _lines(data, complete)]
    if not complete:
        keys[-1] = keys[-1][:-1]
    return keys


# -- the comparison: toybox's port of Hunt and McIlroy's algorithm (BSD diffreg) --------------------


class Work:
    """The budget of one comparison: steps of the candidate search and a deadline."""

    def __init__(self) -> None:
        self.steps = 0
        self.deadline = time.monotonic() + MAX_SECONDS

    def spend(self, steps: int) -> None:
        self.steps += steps
        if self.steps > MAX_WORK or time.monotonic() > self.deadline:
            raise TooDifferent("files too different")


class Candidates:
    """The k-candidates: K[s] ends the common subsequence of s lines with the lowest line of the
    second file seen so far; each candidate (line of the first file, line of the second, the
    candidate before it) is three array slots, so millions fit in little memory."""

    def __init__(self, prefix: int, len1: int) -> None:
        # the lines both files begin with are matched to each other, as toybox's first rows would
        self.first = array("i", range(prefix + 1))
        self.second = array("i", range(prefix + 1))
        self.before = array("i", range(-1, prefix))
        fence = self.add(-1, len1 + 1, -1)
        self.kc = [*range(prefix + 1), fence]  # K as candidate numbers
        self.kb = [*range(prefix + 1), len1 + 1]  # K[s]'s line of the second file
        self.gap = [0] * (prefix + 1) + [len1 - prefix]  # kb[s] - s: never decreasing
        self.k = prefix

    def add(self, i: int, j: int, before: int) -> int:
        self.first.append(i)
        self.second.append(j)
        self.before.append(before)
        return len(self.first) - 1

    def merge(self, i: int, serials: list[int], lo: int, hi: int) -> int:
        """toybox's do_merge for line i of the first file, whose equal lines in the second file are
        serials[lo:hi] (ascending); returns the steps spent. Each gap of K takes the lowest line
        that falls in it; lines that K already holds are passed over a whole run at a time (the
        result is the same as trying each, which costs quadratic time on repeated lines)."""
        kb, kc, gap, second, k = self.kb, self.kc, self.gap, self.second, self.k
        r, pending, steps = 0, kc[0], 1
        pos = bisect_right(serials, kb[r], lo, hi)  # toybox's search fails for lines up to K[r]
        while pos < hi:
            j = serials[pos]
            s = bisect_left(kb, j, r, k + 2) - 1
            steps += 1
            if kb[s + 1] == j:  # toybox's search fails: skip every line K holds from here on
                run_end = bisect_right(gap, gap[s + 1], s + 1, k + 2) - 1
                pos = bisect_right(serials, kb[run_end], pos + 1, hi)
                continue
            made = self.add(i, j, kc[s])
            # K[r] takes the candidate made before (toybox updates K one step behind)
            kc[r], kb[r], gap[r] = pending, second[pending], second[pending] - r
            r, pending = s + 1, made
            if s == k:  # a longer subsequence: the fence moves up
                kc.append(kc[k + 1])
                kb.append(kb[k + 1])
                gap.append(kb[k + 1] - (k + 2))
                k += 1
                break
            pos = bisect_right(serials, kb[r], pos + 1, hi)
        kc[r], kb[r], gap[r] = pending, second[pending], second[pending] - r
        self.k = k
        return steps

    def matches(self, len0: int, len1: int) -> list[int]:
        """J: J[i] the line of the second file matched to line i of the first, 0 for none; J[0] is
        0 and J[len0 + 1] is len1 + 1."""
        matched = [0] * (len0 + 2)
        cand = self.kc[self.k]
        while cand >= 0:
            matched[self.first[cand]] = self.second[cand]
            cand = self.before[cand]
        matched[len0 + 1] = len1 + 1
        return matched


def common_lines(one: Text, two: Text) -> list[int]:
    """toybox's create_j_vector: lines grouped by hash, the candidates built row by row, then the
    matches whose lines are not really equal (a hash collision) undone."""
    work = Work()
    keys0, keys1 = one.keys, two.keys
    # Rows of a common start always leave K the diagonal and later rows never change those slots,
    # so they are skipped. Not so a common end: toybox may match its lines elsewhere.
    prefix = 0
    for x, y in zip(keys0, keys1, strict=False):
        if x != y:
            break
        prefix += 1
    work.spend((len(keys0) + len(keys1)) // 8)  # the passes over all lines: a step per 8
    from mgfarm.sim.shell.line_hash import equivalence  # numpy, loaded when a diff runs

    serials, lows, highs = equivalence(keys0[prefix:], keys1)
    cands = Candidates(prefix, len(keys1))
    steps = 0
    for i, lo, hi in zip(range(prefix + 1, len(keys0) + 1), lows, highs, strict=True):
        if lo < hi:
            steps += cands.merge(i, serials, lo, hi)
            if steps > 4096:
                work.spend(steps)
                steps = 0
    matched = cands.matches(len(keys0), len(keys1))
    _check(matched, keys0, keys1)
    return matched


def _check(matched: list[int], keys0: list[bytes], keys1: list[bytes]) -> None:
    """toybox's "jackpot" pass: along each run of consecutive matches, unmatch lines that only
    share a hash. As in toybox, the line just after a run is passed over unchecked."""
    i, last = 1, len(keys0)
    while i <= last:
        j = matched[i]
        if j:
            while i <= last and matched[i] == j:
                if keys0[i - 1] != keys1[j - 1]:
                    matched[i] = 0
                i, j = i + 1, j + 1
        i += 1


# -- toybox's changes and hunks --------------------------------------------------------------------


@dataclass
class Change:
    """Lines a..b of the first file (1-based, inclusive) replaced by lines c..d of the second;
    `start` and `end`: the first and last line of the first file its hunk shows around it."""

    a: int
    b: int
    c: int
    d: int
    start: int = 0
    end: int = 0

    def empty(self) -> bool:
        return self.b < self.a and self.d < self.c


def changes(matched: list[int], one: Text, two: Text, blank: bool) -> tuple[list[Change], bool]:
    """toybox's change list, and whether any counts. With -B a change is dropped when the lines it
    deletes are all empty, or, deleting none, the lines it inserts are: toybox looks at the
    deleted side only, so a change of empty lines into text is dropped too. The list always ends
    with the change found last, even an empty one or one -B drops (toybox then still prints it)."""
    found: list[Change] = []
    counts = False
    len0, i = len(one.lines), 1
    while True:
        a = i
        while a <= len0 and matched[a] == matched[a - 1] + 1:
            a += 1
        b = a - 1
        while not matched[b + 1]:
            b += 1
        ch = Change(a, b, matched[a - 1] + 1, matched[b + 1] - 1)
        dropped = blank and (
            _all_empty(one, ch.a, ch.b) if ch.a <= ch.b else ch.c <= ch.d and _all_empty(two, ch.c, ch.d)
        )
        counts = counts or (not ch.empty() and not dropped)
        i = b + 1
        if i > len0:
            found.append(ch)
            return found, counts
        matched[b] = ch.d  # so the next search goes on from here
        if not dropped:
            found.append(ch)


def _all_empty(text: Text, first: int, last: int) -> bool:
    """Whether lines first..last are all just a newline (toybox compares byte offsets; a last line
    without a newline is never empty)."""
    return not any(text.lines[first - 1 : last])


def unified(found: list[Change], one: Text, two: Text, opts: Options, context: int) -> list[bytes]:
    """toybox's hunks: a change joins the hunk before it when fewer than `context` lines part them;
    otherwise that hunk ends `context` lines after its last change and the next starts `context`
    lines before its first, or right after the last one shown, so hunks can be back to back.
    The last change shows no lines after it (it ends the first file, or is empty)."""
    out: list[bytes] = []
    left, first = len(found), 0
    while left:
        head = found[first]
        if head.empty():  # only the last change can be empty; toybox stops at it
            break
        if left == len(found):
            head.start = max(1, head.a - context)
        else:
            before = found[first - 1].end
            head.start = before + 1 if before >= head.a - context else head.a - context
        last = first
        while left > 1 and found[last].b + context >= found[last + 1].a:
            last, left = last + 1, left - 1
        tail = found[last]
        tail.end = tail.b + context if left > 1 else tail.b
        out.append(_hunk_head(head, tail))
        for n in range(first, last + 1):
            ch = found[n]
            if n == first:
                out.extend(_show(b" ", one, head.start, ch.a - 1, opts))
            out.extend(_show(b"-", one, ch.a, ch.b, opts))
            out.extend(_show(b"+", two, ch.c, ch.d, opts))
            upto = tail.end if n == last else found[n + 1].a - 1
            out.extend(_show(b" ", one, ch.b + 1, upto, opts))
        first, left = last + 1, left - 1
    return out


def _hunk_head(head: Change, tail: Change) -> bytes:
    """`@@ -start,count +start,count @@` as toybox counts: the second file's start is the first's
    moved by the first change, its end the last change's moved by the lines after it."""
    count0 = tail.end - head.start + 1
    start1 = max(1, head.c - (head.a - head.start))
    count1 = tail.end - tail.b + tail.d - start1 + 1
    return f"@@ -{_range(head.start, count0)} +{_range(start1, count1)} @@\n".encode()


def _range(start: int, count: int) -> str:
    """`start,count`; `start` alone for one line; the line before for none."""
    if count == 1:
        return str(start)
    return f"{start if count else start - 1},{count}"


def _show(mark: bytes, text: Text, first: int, last: int, opts: Options) -> list[bytes]:
    """Lines first..last (1-based) after `mark`, as they are in the file; the last line of a file
    without a newline gets one and toybox's note."""
    shown: list[bytes] = []
    lead = mark + b"\t" if "T" in opts.flags else mark
    for index in range(max(first, 1) - 1, min(last, len(text.lines))):
        line = text.lines[index]
        if "t" in opts.flags and b"\t" in line:
            line = _expand_tabs(line)
        if index == len(text.lines) - 1 and not text.complete:
            shown.append(lead + line + b"\n\\ No newline at end of file\n")
        else:
            shown.append(lead + line + b"\n")
    return shown


def _expand_tabs(line: bytes) -> bytes:
    """-t: each tab as spaces to the next multiple of 8 columns, a byte a column, as toybox counts;
    Python's expandtabs also restarts at a carriage return, which toybox does not."""
    if b"\r" not in line:
        return line.expandtabs(8)
    out: list[bytes] = []
    column = 0
    for piece in line.split(b"\r"):
        shift = column % 8  # the piece starts that far into a tab stop
        expanded = (b"." * shift + piece).expandtabs(8)[shift:]
        out.append(expanded)
        column += len(expanded) + 1
    return b"\r".join(out)


# -- the command ----------------------------------------------------------------------------------


def quote_name(name: str) -> str:
    """toybox's header name: C escapes, octal for other control and non-ASCII bytes, and in double
    quotes when any of that or a space occurs."""
    escapes = {7: "a", 8: "b", 12: "f", 10: "n", 13: "r", 9: "t", 11: "v", 34: '"', 92: "\\"}
    out, quote = [], False
    for byte in os.fsencode(name):
        if byte in escapes:
            out.append("\\" + escapes[byte])
            quote = True
        elif byte == 32:
            out.append(" ")
            quote = True
        elif byte < 32 or byte >= 128:
            out.append(f"\\{byte:03o}")
            quote = True
        else:
            out.append(chr(byte))
    text = "".join(out)
    return f'"{text}"' if quote else text


def header_time(inv: Invocation, ns: int) -> str:
    """toybox's format_iso_time: `2026-03-02 10:00:00.123000000 +0100`, device local time."""
    secs, frac = divmod(ns, 1_000_000_000)
    moment = dt.datetime.fromtimestamp(secs, local_zone(inv, False))
    return moment.strftime("%Y-%m-%d %H:%M:%S") + f".{frac:09d} " + moment.strftime("%z")


@dataclass
class Run:
    """One diff command: its options, where it writes, its status so far."""

    inv: Invocation
    opts: Options
    status: int = 0  # as toybox's: what the last comparison or `Only in` set, not the worst
    context: int = 3  # toybox trims its -U value to a first file's length, for the files after too

    async def load(self, path: str) -> tuple[bytes, int]:
        """The bytes of an operand and its mtime (stdin's is now)."""
        data = await read_input(self.inv, path)
        if path == "-":
            return data, int(self.inv.device.now() * 1e6) * 1000  # a float holds microseconds
        return data, _stat(self.inv, path).st_mtime_ns

    async def files(self, name0: str, name1: str, shown: tuple[str, str] | None = None) -> None:
        """Compare two files (or stdin); `shown`: the names messages use, when not these."""
        inv, opts = self.inv, self.opts
        shown = shown or (name0, name1)
        self.status = 0
        try:
            (data0, time0), (data1, time1) = await self.load(name0), await self.load(name1)
        except CommandError as exc:
            inv.err(f"diff: {exc}\n")
            self.status = 2
            return
        if data0 != data1 and "a" not in opts.flags and _binary(data0, data1):
            inv.out(f"Files {shown[0]} and {shown[1]} differ\n")
            self.status = 1
            return
        try:
            output = await run_bounded(self._compare, (name0, data0, time0), (name1, data1, time1))
        except (Trouble, TooDifferent) as exc:
            inv.err(f"diff: {exc}\n")
            self.status = 2
            return
        if output is None:
            if "s" in opts.flags:
                inv.out(f"Files {shown[0]} and {shown[1]} are identical\n")
            return
        self.status = 1
        if "q" in opts.flags:
            inv.out(f"Files {shown[0]} and {shown[1]} differ\n")
            return
        head0 = self._label(0, name0, time0)
        head1 = self._label(1, name1, time1)
        inv.out(f"--- {head0}\n+++ {head1}\n".encode())
        for n, chunk in enumerate(output):
            inv.out(chunk)
            if n % YIELD_EVERY == 0:
                await inv.io.stdout.maybe_flush()

    def _label(self, side: int, name: str, ns: int) -> str:
        """toybox's headers: -L replaces the first name; a second -L (the last one) the second."""
        labels = self.opts.labels
        if side == 0 and labels:
            return labels[0]
        if side == 1 and len(labels) > 1:
            return labels[-1]
        return f"{quote_name(name)}\t{header_time(self.inv, ns)}"

    def _compare(self, first: tuple[str, bytes, int], second: tuple[str, bytes, int]) -> list[bytes] | None:
        """In a worker thread: the unified hunks (none for -q), or None when the files count as
        equal."""
        flags = self.opts.flags
        if first[1] == second[1]:
            return None
        if "q" in flags and not flags & EQUALIZING:
            return []  # different bytes always make a change then; toybox's search would say so
        one = split_text(first[0], first[1], first[2], flags)
        two = split_text(second[0], second[1], second[2], flags)
        found, counts = changes(common_lines(one, two), one, two, "B" in flags)
        if not counts:
            return None
        if "q" in flags:
            return []
        self.context = min(self.context, len(one.lines))
        return unified(found, one, two, self.opts, self.context)

    async def folders(self, dir0: str, dir1: str) -> None:
        """toybox's folder comparison: the entries of both, sorted by relative path, compared in step."""
        opts = self.opts
        side0 = await self._listing(dir0, dir1)
        side1 = await self._listing(dir1, dir0)
        names0 = sorted(side0, key=os.fsencode)
        names1 = sorted(side1, key=os.fsencode)
        if opts.start is not None:
            begin = os.fsencode(opts.start)
            names0 = [n for n in names0 if os.fsencode(n) >= begin]
            names1 = [n for n in names1 if os.fsencode(n) >= begin]
        left = right = 0
        while left < len(names0) or right < len(names1):
            if right == len(names1) or (
                left < len(names0) and os.fsencode(names0[left]) < os.fsencode(names1[right])
            ):
                await self._one_side(dir0, dir1, names0[left], 0)
                left += 1
            elif left == len(names0) or os.fsencode(names0[left]) > os.fsencode(names1[right]):
                await self._one_side(dir1, dir0, names1[right], 1)
                right += 1
            else:
                path0, path1 = _join(dir0, names0[left]), _join(dir1, names1[right])
                await self._entry((path0, path1), (path0, path1), (side0[names0[left]], side1[names1[right]]))
                left, right = left + 1, right + 1

    async def _one_side(self, here: str, there: str, name: str, side: int) -> None:
        """An entry only one folder holds: `Only in`, or with -N a comparison with an empty file."""
        if "N" not in self.opts.flags:
            self.inv.out(f"Only in {here}: {name}\n")
            self.status = 1
            return
        present, absent = _join(here, name), _join(there, name)
        kind = _kind(self.inv, present)
        files = (present, "/dev/null") if side == 0 else ("/dev/null", present)
        shown = (present, absent) if side == 0 else (absent, present)
        await self._entry(files, shown, (kind, kind))

    async def _entry(self, files: tuple[str, str], shown: tuple[str, str], kinds: tuple[int, int]) -> None:
        """Two entries of the same relative path: their kinds decide what is said."""
        out = self.inv.out
        dirs = [statmod.S_ISDIR(k) for k in kinds]
        regular = [statmod.S_ISREG(k) or d for k, d in zip(kinds, dirs, strict=True)]
        if all(dirs):
            out(f"Common subdirectories: {shown[0]} and {shown[1]}\n")
        elif not regular[0] or not regular[1]:
            odd = shown[0 if not regular[0] else 1]
            out(f"File {odd} is not a regular file or directory and was skipped\n")
        elif dirs[0] != dirs[1]:
            what = ("directory", "regular file") if dirs[0] else ("regular file", "directory")
            # toybox says so without setting its status (the trees differ, yet it may end 0)
            out(f"File {shown[0]} is a {what[0]} while file {shown[1]} is a {what[1]}\n")
        else:
            await self.files(files[0], files[1], shown)

    async def _listing(self, root: str, other: str) -> dict[str, int]:
        """Relative path -> file type of what toybox lists under `root`: every entry at the top;
        with -r the folders are entered, except (without -N) one the other side lacks."""
        inv, recurse = self.inv, "r" in self.opts.flags
        found: dict[str, int] = {}
        skipped: list[str] = []
        walk = inv.fs.walk(root, inv.cwd, follow=True, maxdepth=1_000 if recurse else 1)
        try:
            for n, entry in enumerate(walk):
                if entry.depth == 0:
                    continue
                if n > MAX_ENTRIES:
                    raise Trouble(f"{root}: more than {MAX_ENTRIES:,} entries")
                rel = posixpath.relpath(entry.path, root)
                if any(rel.startswith(s + "/") for s in skipped):
                    continue
                mode = entry.st.st_mode
                if statmod.S_ISLNK(mode):  # toybox follows links (not into folders here)
                    mode = _kind(inv, entry.path) or mode
                    if statmod.S_ISDIR(mode):
                        found[rel] = mode
                        continue
                if statmod.S_ISDIR(mode) and recurse:
                    if "N" in self.opts.flags or _kind(inv, _join(other, rel)):
                        continue  # entered; the walk goes on into it
                    skipped.append(rel)
                found[rel] = statmod.S_IFMT(mode)
                if n % YIELD_EVERY == 0:
                    await asyncio.sleep(0)
        except (OSError, PathEscapeError) as exc:
            raise Trouble(f"{root}: {getattr(exc, 'strerror', None) or 'Permission denied'}") from exc
        return found


def _binary(data0: bytes, data1: bytes) -> bool:
    """toybox's test: a NUL byte in what it reads while comparing the bytes, 2 KiB blocks of both
    files up to and including the block where the shorter one has ended."""
    block = 2048
    blocks = -(-min(len(data0), len(data1)) // block) + 1
    return b"\0" in data0[: blocks * block] or b"\0" in data1[: blocks * block]


def _join(folder: str, name: str) -> str:
    """toybox's concat_file_path: one slash between a folder and a name."""
    return folder + name.lstrip("/") if folder.endswith("/") else f"{folder}/{name}"


def _stat(inv: Invocation, path: str, prefix: str = "") -> os.stat_result:
    """stat, or Trouble saying why (`prefix`: toybox's xstat says "Can't stat " first)."""
    try:
        return inv.fs.stat(path, inv.cwd)
    except OSError as exc:
        raise Trouble(f"{prefix}{path}: {exc.strerror or exc}") from exc
    except PathEscapeError as exc:
        raise Trouble(f"{prefix}{path}: Permission denied") from exc


def _kind(inv: Invocation, path: str) -> int:
    """The file type of `path` (links followed), 0 when it cannot be reached."""
    try:
        return statmod.S_IFMT(inv.fs.stat(path, inv.cwd).st_mode)
    except (OSError, PathEscapeError):
        return 0


@command("diff")
async def diff(inv: Invocation) -> int:
    """toybox's `diff [-abBdiNqrTstw] [-L LABEL] [-S FILE] [-U LINES] FILE1 FILE2`."""
    try:
        opts, (name0, name1) = parse_args(inv.argv[1:])
    except UsageError as exc:
        inv.err(f'diff: {exc} (see "diff --help")\n')
        return 2
    except Trouble as exc:
        inv.err(f"diff: {exc}\n")
        return 2
    run = Run(inv, opts, context=opts.context)
    try:
        return await _main(run, name0, name1)
    except Trouble as exc:
        inv.err(f"diff: {exc}\n")
        return 2


async def _main(run: Run, name0: str, name1: str) -> int:
    inv = run.inv
    stdin_stat = os.stat_result((statmod.S_IFIFO | 0o600, 0, 0, 1, 0, 0, 0, 0, 0, 0))
    stats = [stdin_stat if name == "-" else _stat(inv, name, "Can't stat ") for name in (name0, name1)]
    dirs = [statmod.S_ISDIR(st.st_mode) for st in stats]
    if "-" in (name0, name1) and any(dirs):
        raise Trouble("can't compare stdin to directory")
    if (stats[0].st_ino, stats[0].st_dev) == (stats[1].st_ino, stats[1].st_dev):
        if "s" in run.opts.flags:  # the same file (or stdin twice): nothing to read
            inv.out(f"Files {name0} and {name1} are identical\n")
        return 0
    if all(dirs):
        await run.folders(name0, name1)
        return run.status
    if any(dirs):
        # A folder and a file: the file of the same name in the folder.
        if dirs[0]:
            name0 = _join(name0, posixpath.basename(name1))
            _stat(inv, name0)
        else:
            name1 = _join(name1, posixpath.basename(name0))
            _stat(inv, name1)
    await run.files(name0, name1)
    return run.status
