"""toybox 0.8.6's `stat [-tfL] [-c FORMAT] FILE...`: printf-like fields with widths, the default
and terse (-t) layouts, and -f's filesystem fields (fixed values of the device's data partition)."""

from __future__ import annotations

import datetime as dt
import os
import stat as statmod
from collections.abc import Callable

from mgfarm.sim.shell.files import device_path, mode_string, owner
from mgfarm.sim.shell.find_cmd import IDS, context
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.system import local_zone
from mgfarm.sim.shell.toyargs import ToySpec, parse_or_report
from mgfarm.sim.system.fs import PathEscapeError, access_ns, change_ns

SPEC = ToySpec("stat", flags="fLt", strings="c", longs={"format": "c"}, min_args=1)
DEFAULT = (
    "  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: %B\t %F\n"
    "Device: %Dh/%dd\t Inode: %i\t Links: %h\t Device type: %t,%T\n"
    "Access: (%04a/%A)\tUid: (%5u/%8U)\tGid: (%5g/%8G)\n"
    "Access: %x\nModify: %y\nChange: %z"
)
TERSE = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %o"
FS_DEFAULT = (
    '  File: "%n"\n    ID: %i Namelen: %l    Type: %T\n'
    "Block Size: %s    Fundamental block size: %S\n"
    "Blocks: Total: %b\tFree: %f\tAvailable: %a\n"
    "Inodes: Total: %c\tFree: %d"
)
FS_TERSE = "%n %i %l %t %s %S %b %f %a %c %d"
DEVICE = 0xFD00  # the emulator's /data block device (253:0)
# statfs of the emulator's /data (ext4, 4 KiB blocks): fixed, as a snapshot of the device would be
STATFS: dict[str, int | str] = {"a": 1_500_000, "b": 1_548_000, "c": 393_216, "d": 390_000, "f": 1_520_000}
STATFS |= {"i": "d6b1a0c7b2f4e1a9", "l": 255, "t": 0xEF53, "T": "ext2/ext3", "s": 4096, "S": 4096}
TYPES = [
    (statmod.S_ISCHR, "character device"),
    (statmod.S_ISDIR, "directory"),
    (statmod.S_ISBLK, "block device"),
    (statmod.S_ISREG, "regular file"),
    (statmod.S_ISLNK, "symbolic link"),
    (statmod.S_ISSOCK, "socket"),
    (statmod.S_ISFIFO, "FIFO (named pipe)"),
]


def iso_time(inv: Invocation, ns: int) -> str:
    """`2026-03-02 10:00:00.123000000 +0100` in the device's local time."""
    secs, frac = divmod(ns, 1_000_000_000)
    moment = dt.datetime.fromtimestamp(secs, local_zone(inv, False))
    return moment.strftime("%Y-%m-%d %H:%M:%S") + f".{frac:09d} " + moment.strftime("%z")


def file_type(st: os.stat_result) -> str:
    if statmod.S_ISREG(st.st_mode) and not st.st_size:
        return "regular empty file"
    return next((name for test, name in TYPES if test(st.st_mode)), "character device")


def mount_point(path: str) -> str:
    for mount in ("/data", "/storage/emulated", "/cache", "/dev", "/proc"):
        if path == mount or path.startswith(mount + "/"):
            return mount
    return "/"


class Target:
    """One operand: its path as typed, its stat, and what the fields need of the device."""

    def __init__(self, inv: Invocation, shown: str, st: os.stat_result) -> None:
        self.inv, self.shown, self.st = inv, shown, st
        self.real = device_path(inv, shown)
        self.link = ""
        if statmod.S_ISLNK(st.st_mode):
            try:
                self.link = inv.fs.readlink(shown, inv.cwd)
            except (OSError, PathEscapeError):
                self.link = ""

    def size(self) -> int:
        return len(self.link.encode("utf-8", "surrogateescape")) if self.link else self.st.st_size

    def numbers(self) -> dict[str, tuple[str, int]]:
        """Numeric fields: (printf conversion, value)."""
        st = self.st
        user, group = owner(self.real)
        device_ns = self.inv.device.device_ns
        return {
            "a": ("o", st.st_mode & 0o7777),
            "b": ("d", st.st_blocks),
            "B": ("d", 512),
            "d": ("d", DEVICE),
            "D": ("x", DEVICE),
            "f": ("x", st.st_mode),
            "g": ("d", IDS.get(group, 0)),
            "h": ("d", st.st_nlink),
            "i": ("d", st.st_ino),
            "o": ("d", 4096),
            "s": ("d", self.size()),
            "t": ("x", os.major(st.st_rdev)),
            "T": ("x", os.minor(st.st_rdev)),
            "u": ("d", IDS.get(user, 0)),
            "X": ("d", access_ns(st) // 10**9),
            "Y": ("d", st.st_mtime_ns // 10**9),
            "Z": ("d", change_ns(st, device_ns) // 10**9),
        }

    def texts(self) -> dict[str, Callable[[], str]]:
        st, inv = self.st, self.inv
        return {
            "A": lambda: mode_string(st),
            "C": lambda: context(self.real),
            "F": lambda: file_type(st),
            "G": lambda: owner(self.real)[1],
            "U": lambda: owner(self.real)[0],
            "m": lambda: mount_point(self.real),
            "n": lambda: self.shown,
            "x": lambda: iso_time(inv, access_ns(st)),
            "y": lambda: iso_time(inv, st.st_mtime_ns),
            "z": lambda: iso_time(inv, change_ns(st, inv.device.device_ns)),
        }

    def field(self, spec: str, key: str, filesystem: bool) -> str:
        """One `%[flags][width][.precision]KEY`."""
        if key == "n":
            return (spec + "s") % self.shown
        if filesystem:
            value = STATFS.get(key)
            if value is None:
                return (spec + "s") % "?"
            return (spec + ("s" if isinstance(value, str) else "x" if key == "t" else "d")) % value
        if key == "N":
            return self.shown + (f" -> '{self.link}'" if statmod.S_ISLNK(self.st.st_mode) else "")
        numbers = self.numbers()
        if key in numbers:
            conv, number = numbers[key]
            return (spec + conv) % number
        texts = self.texts()
        if key in texts:
            return (spec + "s") % texts[key]()
        return "?"


class BadFormat(Exception):
    """A field toybox refuses (`bad %...`)."""


def render(target: Target, fmt: str, filesystem: bool) -> str:
    out: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%" or i + 1 >= len(fmt):
            out.append(c)
            i += 1
        elif fmt[i + 1] == "%":
            out.append("%")
            i += 2
        else:
            j = i + 1
            while j < len(fmt) and fmt[j] in "-+ #0'":
                j += 1
            while j < len(fmt) and (fmt[j].isdigit() or fmt[j] == "."):
                j += 1
            if j >= len(fmt) or j - i > 99:
                raise BadFormat(fmt[i:j])
            out.append(target.field(fmt[i:j].replace("'", ""), fmt[j], filesystem))
            i = j + 1
    return "".join(out)


@command("stat")
async def stat(inv: Invocation) -> int:
    """`stat [-tfL] [-c FORMAT] FILE...` as toybox 0.8.6."""
    opts = parse_or_report(inv, SPEC)
    if opts is None:
        return 1
    filesystem = "f" in opts.flags
    fmt = (FS_TERSE if filesystem else TERSE) if "t" in opts.flags else FS_DEFAULT if filesystem else DEFAULT
    fmt = str(opts.values.get("c", fmt))
    status = 0
    for path in opts.operands:
        try:
            st = inv.fs.stat(path, inv.cwd, follow="L" in opts.flags or filesystem)
        except (OSError, PathEscapeError) as exc:
            reason = getattr(exc, "strerror", None) or "No such file or directory"
            inv.err(f"stat: '{path}': {reason}\n")
            status = 1
            continue
        try:
            inv.out(render(Target(inv, path, st), fmt, filesystem) + "\n")
        except BadFormat as exc:
            inv.err(f"stat: bad {exc}\n")
            return 1
        await inv.io.stdout.maybe_flush()
    return status
