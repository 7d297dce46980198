"""toybox 0.8.6's grep (egrep, fgrep): its options, its output and its quirks, line by line.

The matching loop follows toys/posix/grep.c's order of decisions, since its output depends on them:
several patterns each give their leftmost-longest match and the earliest (then longest) wins; -w
retries one character further when a match is not a whole word; -o walks the matches of a line;
context lines (-A/-B/-C) come with `--` between groups; a file whose first 256 bytes are not UTF-8
(or hold a NUL) is binary ("Binary file X matches"). Matching runs in a worker thread within one
Budget, so a catastrophic pattern or a 64 MiB input ends the command instead of stalling the device.
"""

from __future__ import annotations

import collections
import dataclasses
import fnmatch
import os
import posixpath
import re
import stat as statmod
from dataclasses import dataclass, field

from mgfarm.sim.shell import toyargs
from mgfarm.sim.shell.files import CommandError, command_error, is_folder, read_input
from mgfarm.sim.shell.posix_regex import bracket_end, to_python
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import (
    BoundedPattern,
    Budget,
    RegexError,
    RegexTimeout,
    compile_regex,
    run_bounded,
)
from mgfarm.sim.shell.utf8 import char_length
from mgfarm.sim.system.fs import MAX_TREE_DEPTH, PathEscapeError

# Stand-in letters of the long options without a short form.
LINE_BUFFERED, COLOR, EXCLUDE_DIR = "\x01", "\x02", "\x03"
GREP = toyargs.ToySpec(
    "grep",
    flags="ZzEFHIabhinorRsvwcLlqx" + LINE_BUFFERED,
    strings="SMef" + COLOR + EXCLUDE_DIR,
    numbers={"C": (None, None), "B": (None, None), "A": (None, None), "m": (None, None)},
    longs={
        "line-buffered": LINE_BUFFERED, "color": COLOR, "exclude-dir": EXCLUDE_DIR,
        "exclude": "S", "include": "M", "byte-offset": "b", "no-filename": "h",
        "only-matching": "o", "files-without-match": "L", "files-with-matches": "l",
        "quiet": "q", "silent": "q",
    },
    exclusive=("wx", "EF"),
    long_only=LINE_BUFFERED + COLOR + EXCLUDE_DIR,
    optional=COLOR,
)  # fmt: skip

MAX_TREE_FILES = 100_000  # entries `grep -r` visits before it gives up
CHECK_EVERY = 4096  # lines between two looks at the clock when no regex call does it
WORD_ASSERTIONS = re.compile(r"\\[mMbB]")  # assertions that look at the character before a match

# glibc's regerror texts for what the regex module says of a pattern it refuses.
REGEX_MESSAGES = (
    ("missing )", "Unmatched ( or \\("),
    ("unbalanced parenthesis", "Unmatched ) or \\)"),
    ("unterminated character set", "Unmatched [, [^, [:, [., or [="),
    ("bad character range", "Invalid range end"),
    ("unknown property", "Invalid character class name"),
    ("bad escape (end of pattern)", "Trailing backslash"),
    ("invalid group reference", "Invalid back reference"),
    ("unknown group", "Invalid back reference"),
    ("nothing to repeat", "Invalid preceding regular expression"),
    ("multiple repeat", "Invalid preceding regular expression"),
)
COLORS = ("\033[35m", "\033[36m", "\033[1;31m", "\033[32m", "\033[m")  # purple cyan red green grey
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class GrepExit(Exception):
    """toybox's error_exit: the message is printed and grep ends with status 2."""


@dataclass
class Options:
    """A parsed grep command line."""

    flags: set[str]
    after: int = 0
    before: int = 0
    max_count: int = 0
    color: bool = False
    indelim: str = "\n"
    outdelim: str = "\n"
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    exclude_dir: list[str] = field(default_factory=list)

    def has(self, letter: str) -> bool:
        return letter in self.flags


@dataclass
class Matcher:
    """The patterns, in toybox's order (the last given first): compiled, or literal with -F."""

    regexes: list[tuple[BoundedPattern, bool]]  # (pattern, whether it looks behind its start)
    fixed: list[str]
    is_fixed: bool
    budget: Budget


@dataclass
class Scan:
    """What grep made of one input."""

    out: str = ""
    found: bool = False
    quit: bool = False  # -q saw a match: grep ends now, status 0
    error: str = ""  # a read error (a folder) for stderr


def options_of(args: toyargs.ToyArgs, name: str) -> Options:
    """The Options of a parsed command line (egrep and fgrep imply -E and -F)."""
    flags = set(args.flags)
    if "R" in flags:
        flags.add("r")
    if name.startswith("e"):
        flags.add("E")
    if name.startswith("f"):
        flags.add("F")
    values = args.values
    context = int(values.get("C", 0))
    color_value = values.get(COLOR) if COLOR in flags else None
    return Options(
        flags=flags,
        after=int(values.get("A", 0)) or context,
        before=int(values.get("B", 0)) or context,
        max_count=int(values.get("m", 0)),
        # stdout is no terminal, so only a --color=VALUE other than auto colours (even "never")
        color=COLOR in flags and color_value not in (None, "auto"),
        indelim="\0" if "z" in flags else "\n",
        outdelim="\0" if "Z" in flags else "\n",
        include=[str(v) for k, v in args.order if k == "M"],
        exclude=[str(v) for k, v in args.order if k == "S"],
        exclude_dir=[str(v) for k, v in args.order if k == EXCLUDE_DIR],
    )


def split_patterns(text: str, opts: Options) -> list[str]:
    """One -e value (or -f file) as toybox splits it: at each newline (not with -z), a last empty
    piece dropped."""
    if opts.has("z"):
        return [text]
    parts = []
    while True:
        line, newline, text = text.partition("\n")
        parts.append(line)
        if not newline or not text:
            return parts


def c_string(text: str) -> str:
    """What C sees of a string: up to its first NUL."""
    return text.partition("\0")[0]


async def gather_patterns(inv: Invocation, args: toyargs.ToyArgs, opts: Options) -> list[str]:
    """Every pattern, -f files' lines first, then -e's, the whole list reversed as toybox builds it;
    GrepExit for a -f file that cannot be read."""
    sources: list[str] = []
    for path in [str(v) for k, v in args.order if k == "f"]:
        try:
            if is_folder(inv, path):
                raise CommandError(f"{path}: Is a directory")
            data = await read_input(inv, path)
        except CommandError as exc:
            reason = str(exc).removeprefix(f"{path}: ")
            raise GrepExit(f"Bad '{path}': {reason}") from exc
        text = c_string(data.decode("utf-8", "surrogateescape"))
        if text:
            sources.append(text)
    sources += [c_string(str(v)) for k, v in args.order if k == "e"]
    patterns = [p for source in sources for p in split_patterns(source, opts)]
    return patterns[::-1]


def check_ere(pattern: str) -> None:
    """glibc refuses an ERE whose `*`, `+` or `?` has nothing before it (at the start, after `(`,
    `|` or `^`), which posix_regex reads as a literal."""
    prev, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if c in "*+?" and prev in ("", "(", "|", "^"):
            raise RegexError("Invalid preceding regular expression")
        if c == "[":
            i = bracket_end(pattern, i)
            prev = "]"
            continue
        prev = pattern[i : i + 2] if c == "\\" else c
        i += 2 if c == "\\" else 1


def regex_message(pattern: str, exc: RegexError) -> str:
    """glibc's words for a refused pattern (a `[` or `[^` with nothing after it is a bad pattern,
    not an unmatched bracket)."""
    text = str(exc)
    unmatched = "character set" in text or text.startswith("Unmatched [")
    if unmatched and pattern.endswith(("[", "[^")):
        return "Invalid regular expression"
    if text.startswith(("Unmatched", "Invalid", "Trailing")):
        return text  # posix_regex's own, already glibc's
    for found, message in REGEX_MESSAGES:
        if found in text:
            return message
    return "Invalid regular expression"


def build_matcher(patterns: list[str], opts: Options, budget: Budget) -> Matcher:
    """Compiled patterns (GrepExit names the first refused); -o leaves out empty ones."""
    if opts.has("F"):
        return Matcher([], patterns, True, budget)
    regexes = []
    for pattern in patterns:
        if opts.has("o") and not pattern:
            continue
        try:
            if opts.has("E"):
                check_ere(pattern)
            body = to_python(pattern, extended=opts.has("E"))
            # (?p): POSIX's leftmost-longest match, which -o, -w, -x and the colours show
            compiled = compile_regex("(?p)" + body, opts.has("i"), budget)
        except RegexError as exc:
            raise GrepExit(f"bad regex '{pattern}': {regex_message(pattern, exc)}") from exc
        regexes.append((compiled, bool(WORD_ASSERTIONS.search(body))))
    return Matcher(regexes, [], False, budget)


def is_binary(data: bytes) -> bool:
    """Whether the first 256 bytes hold a NUL or something that is not UTF-8 (a character cut by
    the 256th byte is fine)."""
    head, i = data[:256], 0
    while i < len(head):
        size = char_length(head, i)
        if size == -2:
            return False
        if size < 1:
            return True
        i += size
    return False


def is_word(char: str) -> bool:
    """C's isalnum(c) || c == '_' on the byte there (bytes of a UTF-8 character are neither)."""
    return char.isascii() and (char.isalnum() or char == "_")


class LineScanner:
    """do_grep for one input: the state its lines share (counts, context, separators)."""

    def __init__(self, name: str, opts: Options, matcher: Matcher, show_name: bool, binary: bool) -> None:
        self.name, self.opts, self.matcher = name, opts, matcher
        self.show_name, self.binary = show_name, binary
        self.colors = COLORS if opts.color else ("",) * 5
        self.out: list[str] = []
        self.found = False
        self.mcount = 0
        self.after = 0
        self.held: collections.deque[tuple[str, int]] = collections.deque()  # -B lines, offsets
        self.bars = False

    def outline(self, line: str | None, dash: str, lcount: int, bcount: int, trim: int) -> None:
        """One output line with its name, line number and byte offset prefixes."""
        opts, (purple, cyan, red, green, grey) = self.opts, self.colors
        if not trim and opts.has("o"):
            return
        if self.show_name:
            self.out.append(f"{purple}{self.name}{cyan}{dash}")
        if opts.has("c"):
            self.out.append(f"{grey}{lcount}{opts.outdelim}")
        elif lcount and opts.has("n"):
            self.out.append(f"{green}{lcount}{cyan}{dash}")
        if bcount and opts.has("b"):
            self.out.append(f"{green}{bcount - 1}{cyan}{dash}")
        if line is not None:
            if opts.color:
                self.out.append(red if opts.has("o") else grey)
            self.out.append(line[:trim] + opts.outdelim)

    def find(self, text: str, start: int, alive: list[bool]) -> tuple[bool, int, int]:
        """(found, start, end) of the match chosen from `start` on, relative to `start`."""
        if self.matcher.is_fixed:
            return self.find_fixed(text, start)
        best: tuple[int, int] | None = None
        for k, (regex, looks_back) in enumerate(self.matcher.regexes):
            if not alive[k]:
                continue  # no match from an earlier place in the line: none from a later one
            hit = search(regex, looks_back, text, start)
            if hit is None:
                alive[k] = False
            elif best is None or hit[0] < best[0] or (hit[0] == best[0] and hit[1] >= best[1]):
                best = hit
        return (False, 0, 0) if best is None else (True, *best)

    def find_fixed(self, text: str, start: int) -> tuple[bool, int, int]:
        """-F: the first pattern found (strstr, stopping at a NUL), not the earliest match."""
        fold = self.opts.has("i")
        line = c_string(text)
        rest = c_string(text[start:])
        for pattern in self.matcher.fixed:
            if self.opts.has("x"):
                if fold_case(pattern, fold) == fold_case(line, fold):
                    return True, -start, -start + len(pattern)
            elif not pattern:
                return True, -start, -start + len(line)
            else:
                at = fold_case(rest, fold).find(fold_case(pattern, fold))
                if at >= 0:
                    return True, at, at + len(pattern)
        return False, 0, 0

    def line(self, text: str, lcount: int, offset: int) -> bool:
        """One line (without its delimiter) at byte `offset`; False once the input is done with (-l, -L)."""
        opts = self.opts
        ulen, start, matched = len(text), 0, 0
        alive = [True] * len(self.matcher.regexes)
        grey = self.colors[4]
        while True:
            ok, so, eo = self.find(text, start, alive)
            if ok and opts.has("o") and not eo and ulen > start:
                start += 1  # an empty match: -o looks one further
                if not more(text, start):
                    break
                continue
            if ok and opts.has("x") and (so or ulen - start != eo):
                ok = False
            if ok and opts.has("w") and not whole_word(text, start, so, eo):
                start += so + 1
                if not more(text, start):
                    break
                continue
            if opts.has("v"):
                if opts.has("o"):
                    if not ok:
                        eo = ulen - start
                    elif not so:
                        start += eo
                        if not more(text, start):
                            break
                        continue
                    else:
                        eo = so
                else:
                    if ok:
                        break
                    eo = ulen - start
                so = 0
            elif not ok:
                break
            if self.bars:
                self.out.append("--\n")
                self.bars = False
            matched += 1
            self.found = True
            if opts.has("q"):
                raise StopScan
            if opts.has("l") or opts.has("L"):
                if opts.has("l"):
                    self.out.append(self.name + opts.outdelim)
                return False
            if not opts.has("c"):
                self.show(text, lcount, offset, start, so, eo, matched)
            start += eo
            if so == eo or not more(text, start):
                break
            if not (opts.has("o") or opts.color or self.binary):
                break  # nothing more of this line would show
        if matched:
            if opts.color and not opts.has("o"):
                self.out.append(grey + (text[start:] if ulen > start else "") + opts.outdelim)
            self.mcount += 1
        else:
            self.unmatched(text, lcount, offset)
        return True

    def show(self, text: str, lcount: int, offset: int, start: int, so: int, eo: int, matched: int) -> None:
        """What a match shows: the binary notice, the -o part, or the line with its context."""
        opts = self.opts
        at = start + (so if opts.has("o") else 0)
        bcount = 1 + offset + byte_length(text, at) if opts.has("b") else 1
        if self.binary:
            self.out.append(f"Binary file {self.name} matches\n")
        elif opts.has("o"):
            self.outline(text[start + so :], ":", lcount, bcount, eo - so)
        else:
            while self.held:
                line, line_offset = self.held.popleft()
                self.outline(line, "-", lcount - len(self.held) - 1, line_offset + 1, len(line))
            if matched == 1:
                self.outline(None if opts.color else text, ":", lcount, bcount, len(text))
            if opts.color:
                grey, red = self.colors[4], self.colors[2]
                self.out.append(grey + text[start : start + so] + red + text[start + so : start + eo])
            if opts.after:
                self.after = opts.after + 1

    def unmatched(self, text: str, lcount: int, offset: int) -> None:
        """A line that did not match: after-context, held for before-context, or a gap (`--`)."""
        opts = self.opts
        discard = bool(self.after or opts.before)
        if self.after:
            self.after -= 1
            if self.after:
                self.outline(text, "-", lcount, 0, len(text))
                discard = False
        if discard and opts.before:
            self.held.append((text, offset))
            if len(self.held) > opts.before:
                self.held.popleft()
            else:
                discard = False
        if discard and self.mcount:
            self.bars = True


def fold_case(text: str, fold: bool) -> str:
    """strcasecmp's and strcasestr's view of a string: ASCII letters in one case."""
    return text.translate(ASCII_LOWER) if fold else text


class StopScan(Exception):
    """-q saw a match."""


def more(text: str, start: int) -> bool:
    """The loop's `while (*start)`: a NUL, or the line's end, ends the walk along a line."""
    return start < len(text) and text[start] != "\0"


def whole_word(text: str, start: int, so: int, eo: int) -> bool:
    """-w's test: no word character just before or just after the match."""
    begin, end = start + so, start + eo
    if begin and 0 <= begin - 1 < len(text) and is_word(text[begin - 1]):
        return False
    return not (end < len(text) and is_word(text[end]))


def search(regex: BoundedPattern, looks_back: bool, text: str, start: int) -> tuple[int, int] | None:
    """regexec on text[start:] (REG_NOTBOL past the line's start), relative offsets. A word
    assertion sees no character before `start`, as glibc sees none before the string it gets."""
    if start and looks_back:
        m = regex.search("\0" + text[start:], 1)
        return None if m is None else (m.start() - 1, m.end() - 1)
    m = regex.search(text, start)
    return None if m is None else (m.start() - start, m.end() - start)


def byte_length(text: str, end: int) -> int:
    """Bytes of text[:end] as the input had them."""
    return len(text[:end].encode("utf-8", "surrogateescape"))


def scan(data: bytes, name: str, opts: Options, matcher: Matcher, show_name: bool, binary: bool) -> Scan:
    """do_grep on one input's bytes (run in a worker thread: run_bounded)."""
    scanner = LineScanner(name, opts, matcher, show_name, binary)
    delim = opts.indelim.encode()
    pos, lcount = 0, 0
    try:
        while pos < len(data):
            lcount += 1
            if lcount % CHECK_EVERY == 0:
                matcher.budget.left()  # -F calls no regex that would look at the clock
            end = data.find(delim, pos)
            end = len(data) if end < 0 else end
            text = data[pos:end].decode("utf-8", "surrogateescape")
            if not scanner.line(text, lcount, pos):
                return Scan("".join(scanner.out), scanner.found)
            pos = end + 1
            if opts.has("m") and scanner.mcount >= opts.max_count:
                break
    except StopScan:
        return Scan("".join(scanner.out), True, quit=True)
    if opts.has("L"):
        scanner.out.append(name + opts.outdelim)
    elif opts.has("c"):
        scanner.outline(None, ":", scanner.mcount, 0, 1)
    return Scan("".join(scanner.out), scanner.found)


@dataclass
class Run:
    """One grep command's shared state: toybox's TT.found, TT.tried and the -H flag -r sets."""

    inv: Invocation
    opts: Options
    matcher: Matcher
    show_names: bool
    found: bool = False
    tried: int = 0

    def warn(self, message: str) -> None:
        """perror_msg: stderr is /dev/null with -s."""
        if not self.opts.has("s"):
            self.inv.err(f"grep: {message}\n".encode("utf-8", "surrogateescape"))

    async def grep_file(self, path: str, name: str) -> bool:
        """do_grep on an opened input; True once grep is to stop (-q matched)."""
        inv, opts = self.inv, self.opts
        stdin = path == "-"
        if stdin:
            name = "(standard input)"
        folder = is_folder(inv, path)
        data = b"" if folder else await read_input(inv, path)  # a folder opens; reading it fails
        if not opts.has("r"):
            self.tried += 1
        # toybox looks for binary data only in what it can seek back in: files, not pipes
        seekable = not stdin or inv.io.stdin.seekable
        binary = seekable and not opts.has("a") and is_binary(data)
        if binary and opts.has("I"):
            return False
        if folder:
            self.warn(f"{name}: Is a directory")
        result = await run_bounded(scan, data, name, opts, self.matcher, self.show_names, binary)
        inv.out(result.out.encode("utf-8", "surrogateescape"))
        await inv.io.stdout.maybe_flush()
        self.found = self.found or result.found
        return result.quit

    async def operand(self, path: str) -> bool:
        """One operand without -r (loopfiles): a file that does not open is only reported."""
        try:
            return await self.grep_file(path, path)
        except CommandError as exc:
            self.warn(str(exc))
            return False

    async def tree(self, root: str) -> bool:
        """One -r operand (dirtree_read): the files under a folder, filtered by -M -S --exclude-dir."""
        if root == "-":
            return await self.operand(root)
        try:
            top = self.inv.fs.lstat(root, self.inv.cwd)
        except (OSError, PathEscapeError) as exc:
            self.warn(str(command_error(root, exc)))
            return False
        self.tried += 1
        visited = [0]
        return await self.node(root, root, top, 0, visited)

    async def node(self, path: str, name: str, st: os.stat_result, depth: int, visited: list[int]) -> bool:
        """do_grep_r on one entry (depth 0: the operand itself)."""
        opts = self.opts
        if statmod.S_ISDIR(st.st_mode):
            if any(fnmatch.fnmatchcase(name, p) for p in opts.exclude_dir) or depth >= MAX_TREE_DEPTH:
                return False
            try:
                entries = self.inv.fs.entries(path, self.inv.cwd)
            except (OSError, PathEscapeError) as exc:
                self.warn(str(command_error(path, exc)))
                return False
            for child, child_st in entries:
                visited[0] += 1
                if visited[0] > MAX_TREE_FILES:
                    raise GrepExit(f"{path}: more than {MAX_TREE_FILES} files")
                child_path = f"{path.rstrip('/')}/{child}" if path.strip("/") else f"{path}{child}"
                if opts.has("R") and statmod.S_ISLNK(child_st.st_mode):
                    child_st = self.follow(child_path, child_st)
                if await self.node(child_path, child, child_st, depth + 1, visited):
                    return True
            return False
        if any(fnmatch.fnmatchcase(name, p) for p in opts.exclude):
            return False
        if opts.include and not any(fnmatch.fnmatchcase(name, p) for p in opts.include):
            return False
        if depth and not opts.has("h"):
            self.show_names = True  # "grep -r onefile" names no file, "grep -r onedir" does
        try:
            return await self.grep_file(path, path)
        except CommandError as exc:
            self.warn(str(exc))
            return False

    def follow(self, path: str, st: os.stat_result) -> os.stat_result:
        """-R: what a link points to (a dangling link stays a link)."""
        try:
            return self.inv.fs.stat(path, self.inv.cwd)
        except (OSError, PathEscapeError):
            return st


@command("grep", "egrep", "fgrep")
async def grep(inv: Invocation) -> int:
    """toybox's grep: status 0 for a match, 1 for none, 2 for an error (a file not read included)."""
    name = posixpath.basename(inv.argv[0])
    spec = dataclasses.replace(GREP, name=name)
    args = toyargs.parse_or_report(inv, spec)
    if args is None:
        return 2
    opts = options_of(args, name)
    operands = list(args.operands)
    budget = Budget()
    try:
        if not {"e", "f"} & opts.flags:
            if not operands:
                raise GrepExit("no REGEX")
            args.order.append(("e", operands.pop(0)))
        patterns = await gather_patterns(inv, args, opts)
        matcher = build_matcher(patterns, opts, budget)
    except GrepExit as exc:
        inv.err(f"{name}: {exc}\n".encode("utf-8", "surrogateescape"))
        return 2
    run = Run(inv, opts, matcher, "H" in opts.flags or (len(operands) > 1 and "h" not in opts.flags))
    try:
        for path in operands or (["."] if opts.has("r") else ["-"]):
            if await (run.tree(path) if opts.has("r") else run.operand(path)):
                return 0
    except RegexTimeout as exc:
        inv.err(f"{name}: {exc}\n")
        return 2
    except GrepExit as exc:
        inv.err(f"{name}: {exc}\n".encode("utf-8", "surrogateescape"))
        return 2
    if run.tried >= len(operands) or (opts.has("q") and run.found):
        return 0 if run.found else 1
    return 2
