"""`ls` as toybox 0.8.6 prints it (toys/posix/ls.c), output not being a terminal: one name a line
unless -C/-x/-m, long formats (-l -n -g -o, -ll full time), -h sizes, columns fitted to -w or
$COLUMNS (80), the same padding, sorting and quirks. Owners are Android's, by path rules (`owner`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import posixpath
import stat as statmod
from dataclasses import dataclass, field

from mgfarm.sim.shell.archive_cmd import IDS
from mgfarm.sim.shell.files import owner
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.system import local_zone
from mgfarm.sim.shell.toyargs import ToyArgs, ToySpec, parse_or_report
from mgfarm.sim.shell.utf8 import wcwidth
from mgfarm.sim.system.fs import PathEscapeError, access_ns, change_ns

# Stand-in letters for the long options that have no short form.
COLOR, FULL_TIME, SHOW_CONTROL = "\x01", "\x02", "\x03"
LS_SPEC = ToySpec(
    name="ls",
    flags="ZgoACFHLRSabcdfhiklmnpqrstux1" + FULL_TIME + SHOW_CONTROL,
    strings=COLOR,
    optional=COLOR,
    long_only=COLOR + FULL_TIME + SHOW_CONTROL,
    numbers={"w": (0, None)},
    longs={"color": COLOR, "full-time": FULL_TIME, "show-control-chars": SHOW_CONTROL},
    overrides=("Cxm1", "Cxml", "Cxmo", "Cxmg", "cu", "ftS", "HL"),
    exclusive=("qb",),
)
LONG = frozenset("lngo")  # any of these prints the long format
MAX_DEPTH = 256  # folders deep -R goes (-LR through a loop would go on; toybox runs out of fds)
BACKSLASH_ESCAPES = dict(zip("\\\a\b\033\f\n\r\t\v", "\\abefnrtv", strict=True))


@dataclass
class Options:
    """The flags after ls_main's adjustments, and what they imply."""

    flags: set[str]
    full_time: bool
    width: int
    escmore: str

    def has(self, letters: str) -> bool:
        return any(c in self.flags for c in letters)

    @property
    def long(self) -> bool:
        return bool(self.flags & LONG)


@dataclass
class Entry:
    """One name to show: an operand or a folder's entry (toybox's struct dirtree)."""

    name: str  # as given, or the name in its folder
    path: str  # for the filesystem calls (relative to the command's cwd)
    device: str  # the absolute device path, for Android's owners and labels
    st: os.stat_result | None  # None: it could not be statted, most fields print as '?'
    mode: int
    link: str | None = None  # a symlink's target
    sec: int = 0  # the time shown and sorted by (-u/-c replace only the seconds, as toybox does)
    nsec: int = 0
    blocks: int = 0  # in KiB
    context: str = "?"
    parent: Entry | None = None
    children: list[Entry] = field(default_factory=list)


def parse_options(inv: Invocation, args: ToyArgs) -> Options:
    """ls_main: --full-time is -ll, not a tty means -1 (unless -m) and --color=X switches color off."""
    flags = set(args.flags)
    full_time = sum(1 for letter, _ in args.order if letter == "l") > 1
    if FULL_TIME in flags:
        flags.add("l")
        full_time = True
    if "m" not in flags:
        flags.add("1")
    if args.values.get(COLOR) is not None:
        flags ^= {COLOR}
    width = _columns(inv) if "w" not in flags else int(args.values["w"]) + 2
    if "d" in flags:
        flags.discard("R")
    return Options(flags, full_time, max(width, 2), " \\" if "b" in flags else "")


def _columns(inv: Invocation) -> int:
    """terminal_size without a terminal: $COLUMNS as sscanf %u reads it, else 80."""
    digits = ""
    for c in inv.env.get("COLUMNS", "").lstrip():
        if not c.isdigit():
            break
        digits += c
    return int(digits) if digits and int(digits) else 80


# -- entries --------------------------------------------------------------------------------------


def _stat(inv: Invocation, path: str, follow: bool) -> tuple[os.stat_result | None, OSError | None]:
    """dirtree_add_node's stat: following a link when asked, the link itself when it dangles."""
    try:
        st = inv.fs.stat(path, inv.cwd, follow)
        if path.endswith("/") and not statmod.S_ISDIR(st.st_mode):
            return None, NotADirectoryError(20, "Not a directory")  # the kernel's `file/`
        return st, None
    except PathEscapeError:
        return None, OSError(13, "Permission denied")
    except OSError as exc:
        if not follow or not isinstance(exc, FileNotFoundError):
            return None, exc
    try:
        return inv.fs.stat(path, inv.cwd, False), None
    except (OSError, PathEscapeError) as exc:
        return None, exc if isinstance(exc, OSError) else OSError(13, "Permission denied")


def make_entry(inv: Invocation, opts: Options, name: str, path: str, st: os.stat_result | None) -> Entry:
    """An entry filled in as toybox's filter() leaves it."""
    entry = Entry(name, path, inv.fs.normalize(path, inv.cwd, aliases=False), st, st.st_mode if st else 0)
    if st is None:
        return entry
    if statmod.S_ISLNK(st.st_mode):
        try:
            entry.link = inv.fs.readlink(path, inv.cwd)
        except (OSError, PathEscapeError):
            entry.link = ""
    entry.sec, entry.nsec = divmod(st.st_mtime_ns, 1_000_000_000)
    if "u" in opts.flags:
        entry.sec = access_ns(st) // 1_000_000_000
    if "c" in opts.flags:
        entry.sec = change_ns(st, inv.device.device_ns) // 1_000_000_000
    entry.blocks = st.st_blocks >> 1
    if "Z" in opts.flags:
        entry.context = context(inv.fs.normalize(path, inv.cwd))
    return entry


def context(path: str) -> str:
    """The SELinux label Android 13 gives a path (the few places a shell user lists)."""
    if path.startswith("/data/local/tmp"):
        return "u:object_r:shell_data_file:s0"
    if path.startswith(("/storage", "/sdcard", "/data/media")):
        return "u:object_r:media_rw_data_file:s0"
    if path.startswith(("/system", "/vendor", "/product")):
        return "u:object_r:system_file:s0"
    if path == "/dev/null":
        return "u:object_r:null_device:s0"
    return "u:object_r:rootfs:s0"


def read_folder(inv: Invocation, opts: Options, folder: Entry) -> list[Entry]:
    """A folder's entries as filter() keeps them: dotfiles with -a/-A, `.` and `..` with -a/-f."""
    follow = "L" in opts.flags
    found = inv.fs.entries(folder.path, inv.cwd)
    names = [".", ".."] + [name for name, _ in found]
    lstats = dict(found)
    kept = []
    for name in names:
        if not opts.has("af") and (name.startswith(".") and ("A" not in opts.flags or name in (".", ".."))):
            continue
        path = posixpath.join(folder.path, name)
        st = lstats.get(name)
        if follow or st is None or statmod.S_ISLNK(st.st_mode):  # fs.stat: the device's link size
            st, _ = _stat(inv, path, follow)
            if st is None and name in lstats:
                device = inv.fs.normalize(path, inv.cwd, aliases=False)
                mode = statmod.S_IFMT(lstats[name].st_mode)
                kept.append(Entry(name, path, device, None, mode, parent=folder))
                continue
        entry = make_entry(inv, opts, name, path, st)
        entry.parent = folder
        kept.append(entry)
    return kept


def sort_key(entry: Entry, opts: Options) -> tuple[int, int, bytes]:
    """compare(): largest (-S) or newest (-t) first, then by name's bytes."""
    name = entry.name.encode("utf-8", "surrogateescape")
    size = entry.st.st_size if entry.st else 0
    if "S" in opts.flags:
        return (-size, 0, name)
    if "t" in opts.flags:
        return (-entry.sec, -entry.nsec, name)
    return (0, 0, name)


def display_path(entry: Entry) -> str:
    """dirtree_path: the names from the operand down, each without one trailing '/'."""
    parts = []
    node: Entry | None = entry
    while node is not None:
        parts.append(node.name[:-1] if node.name.endswith("/") else node.name)
        node = node.parent
    return "/".join(reversed(parts))


# -- text -----------------------------------------------------------------------------------------


def crunch(text: str, opts: Options) -> tuple[str, int]:
    """crunch_str with ls's escapes: (what to print, its width in columns). Unprintable characters
    are printed as they are, as '?' with -q, as backslash escapes with -b (which escapes ' ' and
    '\\' too)."""
    if text.isascii() and text.isprintable() and not (opts.escmore and any(c in opts.escmore for c in text)):
        return text, len(text)  # the common name: one column a character, nothing to escape
    out, columns = [], 0
    for c in text:
        width = -1 if "\udc80" <= c <= "\udcff" else wcwidth(c)
        if width >= 0 and c not in opts.escmore:
            out.append(c)
            columns += width
            continue
        shown = _escape(c, opts)
        out.append(shown)
        columns += len(shown.encode("utf-8", "surrogateescape"))
    return "".join(out), columns


def _escape(c: str, opts: Options) -> str:
    """crunch_qb for one unprintable character."""
    if "q" in opts.flags:
        return "?"
    if "b" not in opts.flags:
        return c
    parts = []
    for byte in c.encode("utf-8", "surrogateescape"):
        char = chr(byte)
        if char in opts.escmore:
            parts.append("\\" + char)
        elif char in BACKSLASH_ESCAPES:
            parts.append("\\" + BACKSLASH_ESCAPES[char])
        else:
            parts.append(f"\\{byte:03o}")
    return "".join(parts)


def human(value: int) -> str:
    """human_readable(): at most 3 digits, 1024s rounded, one decimal when a single digit is left."""
    unit, snap = 0, 0
    while len(str(value)) > 3:
        snap, value = value, (value + 512) // 1024
        unit += 1
    if not unit:
        return str(value)
    if value < 10:
        whole = snap // 1024
        tenths = ((snap - whole * 1024) * 100 + 50) // 1024 // 10
        return f"{whole}.{tenths}{' KMGTPEZY'[unit]}"
    return f"{value}{' KMGTPEZY'[unit]}"


def with_h(value: int, units: int, opts: Options) -> str:
    return human(value * units) if "h" in opts.flags else str(value)


def end_type(mode: int, opts: Options) -> str:
    """-F's and -p's mark after a name."""
    if opts.has("Fp") and statmod.S_ISDIR(mode):
        return "/"
    if "F" not in opts.flags:
        return ""
    if statmod.S_ISLNK(mode):
        return "@"
    if statmod.S_ISREG(mode) and mode & 0o111:
        return "*"
    return "|" if statmod.S_ISFIFO(mode) else "=" if statmod.S_ISSOCK(mode) else ""


def ids(entry: Entry, opts: Options) -> tuple[str, str]:
    """The owner and group column: Android's names, or their ids with -n."""
    user, group = owner(entry.device)
    if "n" in opts.flags:
        return str(IDS.get(user, 0)), str(IDS.get(group, 0))
    return user, group


def measure(entry: Entry, opts: Options) -> list[int]:
    """entrylen(): the width of each field of an entry (name, inode, links, user, group, size,
    blocks, context)."""
    widths = [0] * 8
    widths[0] = crunch(entry.name, opts)[1] + bool(end_type(entry.mode, opts)) + ("m" in opts.flags)
    st = entry.st
    widths[1] = len(str(st.st_ino if st else 0)) if "i" in opts.flags else 0
    if opts.long:
        user, group = ids(entry, opts)
        widths[2] = len(str(st.st_nlink if st else 0))
        widths[3] = crunch(user, opts)[1]
        widths[4] = crunch(group, opts)[1]
        if st and (statmod.S_ISBLK(st.st_mode) or statmod.S_ISCHR(st.st_mode)):
            widths[5] = len(str(os.major(st.st_rdev))) + 5  # toybox assumes 3-digit minors
        else:
            widths[5] = len(with_h(st.st_size if st else 0, 1, opts))
    widths[6] = len(with_h(entry.blocks, 1024, opts)) if "s" in opts.flags else 0
    widths[7] = crunch(entry.context, opts)[1] if "Z" in opts.flags else 0
    return widths


def stamp(inv: Invocation, entry: Entry, full: bool) -> str:
    """The time column, always toybox's long-iso (`2024-01-02 03:04`), -ll adding seconds, ns, zone."""
    moment = dt.datetime.fromtimestamp(entry.sec, local_zone(inv, False))
    text = moment.strftime(" %Y-%m-%d %H:%M")
    if full:
        text += f":{moment.second:02d}.{entry.nsec:09d} " + moment.strftime("%z")
    return text


def color_of(mode: int) -> int:
    """color_from_mode: bold (0x100) plus an ANSI colour, 0 for none."""
    if statmod.S_ISDIR(mode):
        return 0x100 + 34
    if statmod.S_ISLNK(mode):
        return 0x100 + 36
    if statmod.S_ISBLK(mode) or statmod.S_ISCHR(mode):
        return 0x100 + 33
    if statmod.S_ISREG(mode) and mode & 0o111:
        return 0x100 + 32
    if statmod.S_ISFIFO(mode):
        return 33
    return 0x100 + 35 if statmod.S_ISSOCK(mode) else 0


def _sgr(color: int) -> str:
    return f"\033[{color >> 8};{color & 255}m"


def _pad(text: str, width: int) -> str:
    """printf's %*s: right-aligned, left-aligned for a negative width."""
    return text.ljust(-width) if width < 0 else text.rjust(width)


def render(inv: Invocation, entry: Entry, opts: Options, totals: list[int], folder: str) -> str:
    """One entry as the output loop prints it, without the separator before it."""
    st, zap = entry.st, entry.st is None
    parts = []
    if "i" in opts.flags:
        parts.append(_pad("?" if zap else str(st.st_ino if st else 0), totals[1]) + " ")
    if "s" in opts.flags:
        parts.append(_pad("?" if zap else with_h(entry.blocks, 1024, opts), totals[6]) + " ")
    if opts.long:
        parts.append(_long_owner(entry, opts, totals))
    if "Z" in opts.flags:
        label = entry.context.ljust(totals[7]) + " "
        parts.append(" " + label if "l" in opts.flags else label)
    if opts.long:
        parts.append(_long_size_time(inv, entry, opts, totals))
    color = color_of(entry.mode) if COLOR in opts.flags else 0
    name = crunch(entry.name, opts)[0]
    parts.append(_sgr(color) + name + "\033[0m" if color else name)
    if opts.long and statmod.S_ISLNK(entry.mode):
        parts.append(" -> " + _link_target(inv, entry, opts, folder))
    parts.append(end_type(entry.mode, opts))
    return "".join(parts)


def _long_owner(entry: Entry, opts: Options, totals: list[int]) -> str:
    """Mode, links, user and group of the long format."""
    st = entry.st
    mode = statmod.filemode(entry.mode)
    if st is None:
        mode = mode[0] + "?" * 9
    text = mode + _pad("?" if st is None else str(st.st_nlink), totals[2] + 1)
    user, group = ids(entry, opts)
    if st is None:
        user = group = "?"
    elif "n" not in opts.flags:
        # draw_trim_esc cuts a name to the column's width (all of it, unmeasured with -f)
        user, group = crunch(user, opts)[0][: totals[3]], crunch(group, opts)[0][: totals[4]]
    if "g" not in opts.flags:
        text += " " + user.ljust(totals[3])
    if "o" not in opts.flags:
        text += " " + group.ljust(totals[4])
    return text


def _long_size_time(inv: Invocation, entry: Entry, opts: Options, totals: list[int]) -> str:
    """Size (or a device's major, minor) and time of the long format."""
    st = entry.st
    width = 30 if opts.full_time else 17
    if st is None:
        return _pad("?", totals[5] + 1) + _pad("?", width) + " "
    if statmod.S_ISCHR(st.st_mode) or statmod.S_ISBLK(st.st_mode):
        # printf("% *d,% 4d"): a space before each number, the major in the column's width
        major = format(os.major(st.st_rdev), f" {max(totals[5] - 4, 1)}d")
        size = major + "," + format(os.minor(st.st_rdev), " 4d")
    else:
        size = _pad(with_h(st.st_size, 1, opts), totals[5] + 1)
    return size + _pad(stamp(inv, entry, opts.full_time), width) + " "


def _link_target(inv: Invocation, entry: Entry, opts: Options, folder: str) -> str:
    """A link's target as it is (never escaped), coloured by what it points at, relative to the
    listed folder (the cwd for an operand, as toybox's fstatat)."""
    target = entry.link or ""
    if entry.st is None:
        return "?"
    if COLOR not in opts.flags:
        return target
    try:
        color = color_of(inv.fs.stat(posixpath.join(folder, target), inv.cwd).st_mode)
    except (OSError, PathEscapeError):
        color = 0x100 + 31
    return _sgr(color) + target + "\033[0m" if color else target


# -- listing --------------------------------------------------------------------------------------


@dataclass
class Lister:
    """listfiles(): one folder (or the operands) measured, printed, then its subfolders."""

    inv: Invocation
    opts: Options
    status: int = 0
    single: Entry | None = None  # an operand folder listed alone: no title unless -R
    titled: bool = False  # toybox's nl_title: something came out, a title needs a blank line first

    async def top(self, operands: list[Entry]) -> None:
        root = Entry("", ".", "/", None, statmod.S_IFDIR)
        lone = len(operands) == 1 and statmod.S_ISDIR(operands[0].mode)
        if lone and not self.opts.has("dR"):
            self.single = operands[0]
            await self.folder(operands[0], 0)
            return
        root.children = operands
        await self.show(root, None, 0)

    async def folder(self, entry: Entry, depth: int) -> None:
        try:
            if depth > MAX_DEPTH:
                raise OSError(24, "Too many open files")
            entry.children = read_folder(self.inv, self.opts, entry)
        except (OSError, PathEscapeError) as exc:
            reason = getattr(exc, "strerror", None) or "Permission denied"
            self.inv.err(f"ls: {entry.name}: {reason}\n")
            self.status = 1
            return
        await self.show(entry, entry, depth)

    async def show(self, holder: Entry, folder: Entry | None, depth: int) -> None:
        """Print `holder`'s children (the operands when `folder` is None), then recurse."""
        opts, out = self.opts, self.inv.out
        entries = holder.children
        if "f" not in opts.flags:
            reverse = "r" in opts.flags
            entries = sorted(entries, key=lambda e: sort_key(e, opts), reverse=reverse)
        if folder is not None and (folder is not self.single or "R" in opts.flags):
            out(("\n" if self.titled else "") + display_path(folder) + ":\n")
            self.titled = True
        totals = [0] * 8
        last = [0] * 8
        if "f" not in opts.flags:
            for entry in entries:
                last = measure(entry, opts)
                totals = [max(a, b) for a, b in zip(totals, last, strict=True)]
            if folder is not None and (opts.long or opts.has("hs")):
                out(f"total {with_h(sum(e.blocks for e in entries), 1024, opts)}\n")
        out(self.lines(entries, folder, totals, last))
        await self.inv.io.stdout.maybe_flush()
        await asyncio.sleep(0)  # one folder at a time: `ls -R /` over a huge tree holds no one up
        for entry in entries:
            if "d" in opts.flags or not statmod.S_ISDIR(entry.mode):
                continue
            if folder is None or ("R" in opts.flags and entry.name not in (".", "..")):
                await self.folder(entry, depth + 1)

    def lines(self, entries: list[Entry], folder: Entry | None, totals: list[int], last: list[int]) -> str:
        """The output loop: names one a line, streamed with -m, or in -C/-x columns."""
        opts = self.opts
        count = len(entries)
        totpad = sum(totals[i] + bool(totals[i]) for i in (1, 6, 7))
        columns, sizes = self.fit(entries, totpad) if opts.has("Cx") else (1, [])
        where = "." if folder is None else folder.path
        out: list[str] = []
        width = 0
        length = last[0]
        for ul in range(count):
            previous = length
            index, col = next_column(ul, count, columns, "C" in opts.flags)
            entry = entries[index]
            if statmod.S_ISDIR(entry.mode) and folder is None and "d" not in opts.flags:
                continue
            self.titled = True
            length = measure(entry, opts)[0]
            if ul:
                if "m" in opts.flags:
                    out.append(",")
                if opts.has("Cx"):
                    if not col:
                        out.append("\n")
                    else:
                        before = next_column(ul - 1, count, columns, "C" in opts.flags)[1]
                        out.append(" " * max(sizes[before] - previous - totpad, 1))
                elif "1" in opts.flags or width + 1 + length > opts.width:
                    out.append("\n")
                    width = 0
                else:
                    out.append(" " if "m" in opts.flags else "  ")
                    width += 1 if "m" in opts.flags else 2
            width += length
            out.append(render(self.inv, entry, opts, totals, where))
        if width:
            out.append("\n")
        return "".join(out)

    def fit(self, entries: list[Entry], totpad: int) -> tuple[int, list[int]]:
        """The most columns (at most half the width, one per entry) whose widths fit the line."""
        count = len(entries)
        vertical = "C" in self.opts.flags
        columns = min(1024, self.opts.width // 2, count)
        sizes: list[int] = []
        while columns > 1:
            sizes = [0] * columns
            total = columns
            fitted = True
            for ul in range(count):
                index, col = next_column(ul, count, columns, vertical)
                if index >= count:
                    fitted = False  # the remainder is taller than the columns
                    break
                length = measure(entries[index], self.opts)[0]
                if col < columns - 1:
                    length += totpad + 2
                if length > sizes[col]:
                    total += length - sizes[col]
                    sizes[col] = length
                    if total > self.opts.width:
                        fitted = False
                        break
            if fitted:
                break
            columns -= 1
        return columns, sizes


def next_column(ul: int, count: int, columns: int, vertical: bool) -> tuple[int, int]:
    """(index of the entry to print `ul`-th, its column): across (-x) or down the columns (-C),
    the rows of an uneven last stretch being one shorter."""
    if not vertical:
        return ul, ul % columns
    height = (count + columns - 1) // columns
    extra = count % height
    if extra and ul >= extra * columns:
        ul -= extra * columns
        columns -= 1
    else:
        extra = 0
    col = ul % columns
    return col * height + extra + ul // columns, col


def stream_names(inv: Invocation, opts: Options, operands: list[Entry]) -> int:
    """`ls -f` alone (-1f): names as they are read, nothing measured or sorted."""
    if len(operands) == 1 and statmod.S_ISDIR(operands[0].mode):
        try:
            names = [".", "..", *inv.fs.listdir(operands[0].path, inv.cwd)]
        except (OSError, PathEscapeError) as exc:
            inv.err(f"ls: {operands[0].name}: {getattr(exc, 'strerror', None) or 'Permission denied'}\n")
            return 1
    else:
        names = [entry.name for entry in operands]
    inv.out("".join(name + "\n" for name in names))
    return 0


@command("ls")
async def ls(inv: Invocation) -> int:
    """`ls [-ACFHLRSZacdfhiklmnpqrstuwx1] [--color] [--full-time] [FILE...]`, options anywhere."""
    args = parse_or_report(inv, LS_SPEC)
    if args is None:
        return 1
    opts = parse_options(inv, args)
    status = 0
    operands = []
    follow = not opts.has("ldF") or opts.has("LH")
    for name in args.operands or ["."]:
        st, error = _stat(inv, name, follow)
        if st is None:
            inv.err(f"ls: {name}: {error.strerror if error else 'No such file or directory'}\n")
            status = 1
            continue
        operands.append(make_entry(inv, opts, name, name, st))
    if opts.flags == {"1", "f"}:
        return stream_names(inv, opts, operands) or status
    lister = Lister(inv, opts)
    await lister.top(operands)
    return status or lister.status
