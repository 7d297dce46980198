"""File commands as toybox prints them: cat, ls, rm, mkdir, cp, mv, touch, find, stat, ln, md5sum...

Every file operation goes through the device filesystem's descriptor-based calls (`inv.fs`),
resolved at the moment of use beneath the device root: no check by path and then use by path.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import fnmatch
import functools
import hashlib
import os
import posixpath
import random
import re
import shutil
import stat as statmod
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from mgfarm.sim.shell.interp import PIPE_LIMIT
from mgfarm.sim.shell.registry import COMMANDS, Invocation, command
from mgfarm.sim.shell.safe_regex import Budget, RegexError, RegexTimeout, compile_regex, run_bounded
from mgfarm.sim.shell.system import local_zone, parse_date
from mgfarm.sim.shell.toyargs import ToySpec, parse_or_report
from mgfarm.sim.system.fs import (
    ENDLESS_NODES,
    SKELETON_LINKS,
    AccessDenied,
    DeviceFS,
    Entry,
    PathEscapeError,
    access_ns,
    change_ns,
)

T = TypeVar("T")
YIELD_EVERY = 256  # entries a walk handles between two turns of the event loop
# Bytes a command may load from one file into memory (sort, grep, sed...); cat streams instead.
MAX_INPUT = 64 * 1024 * 1024


class CommandError(Exception):
    """A per-file failure: the message is printed as `cmd: message` and the status becomes 1."""


def split_flags(argv: list[str], known: str) -> tuple[set[str], list[str]]:
    """Single-letter flags (bundled like `-rf`) and the remaining operands; `--` ends flags."""
    flags: set[str] = set()
    rest: list[str] = []
    done = False
    for arg in argv:
        if done or not arg.startswith("-") or arg == "-" or not all(c in known for c in arg[1:]):
            if arg == "--" and not done:
                done = True
                continue
            rest.append(arg)
            continue
        flags.update(arg[1:])
    return flags, rest


def take_value(args: list[str], option: str) -> str | None:
    """Remove the first `option` and its value from `args`, toybox-style: `-w 0` or `-w0`. Its value
    ("" when nothing follows it), or None when `args` does not hold it."""
    for i, arg in enumerate(args):
        if arg.startswith(option):
            attached = arg[len(option) :]
            value = attached or (args[i + 1] if i + 1 < len(args) else "")
            del args[i : i + (1 if attached else 2)]
            return value
    return None


def fs_call(path: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, a filesystem call for operand `path`, its failure as a CommandError."""
    try:
        return fn(*args, **kwargs)
    except (OSError, PathEscapeError) as exc:
        raise command_error(path, exc) from exc


def command_error(path: str, exc: OSError | PathEscapeError) -> CommandError:
    """A failed filesystem call for operand `path` as a command reports it."""
    if isinstance(exc, PathEscapeError):
        return CommandError(f"{path}: Permission denied")
    if isinstance(exc, AccessDenied):  # names the operand refused (cp's destination, not its source)
        return CommandError(f"{exc.filename}: {exc.strerror}")
    return CommandError(f"{path}: {exc.strerror or exc}")


def host_path(inv: Invocation, path: str) -> Path:
    """The host path of an operand, every device link resolved (for code that needs a path; prefer
    the `inv.fs` calls, which work on descriptors). No device link resolves on the host."""
    return fs_call(path, inv.fs.host, path, inv.cwd)


def device_path(inv: Invocation, path: str) -> str:
    """An operand as an absolute device path, as typed: /sdcard stays /sdcard (the calls resolve it)."""
    return inv.fs.normalize(path, inv.cwd, aliases=False)


def kind(inv: Invocation, path: str, follow: bool = True) -> int | None:
    """S_IFMT of an operand, None when it does not exist (or may not be reached)."""
    return inv.fs.kind(path, inv.cwd, follow)


async def read_input(inv: Invocation, path: str) -> bytes:
    """The bytes of a file operand, or stdin for `-` (at most MAX_INPUT)."""
    if path == "-":
        data = await inv.io.stdin.read()
        if len(data) > MAX_INPUT:
            raise CommandError("-: input larger than 64 MiB")
        return data
    if inv.fs.normalize(path, inv.cwd) in ENDLESS_NODES:
        # An endless device read ends where a pipe would end it (as if by SIGPIPE): enough for
        # `head -c N /dev/urandom`, bounded for `wc -c /dev/zero`.
        fd = fs_call(path, inv.fs.open, path, os.O_RDONLY, inv.cwd)
        try:
            return os.read(fd, PIPE_LIMIT)
        finally:
            inv.fs.close(fd)
    try:
        return inv.fs.read_bytes(path, inv.cwd, MAX_INPUT)
    except OSError as exc:
        if exc.errno == 27:  # EFBIG
            raise CommandError(f"{path}: larger than 64 MiB, too big for this command") from exc
        raise command_error(path, exc) from exc
    except PathEscapeError as exc:
        raise command_error(path, exc) from exc


def report(inv: Invocation, exc: CommandError | OSError) -> int:
    inv.err(f"{inv.argv[0]}: {exc if isinstance(exc, CommandError) else exc.strerror}\n")
    return 1


async def each_input(inv: Invocation, files: list[str]) -> AsyncIterator[tuple[str, bytes | None]]:
    """Each file operand (stdin when there are none) with its bytes; None for one that could not be
    read, which is already reported on stderr."""
    for path in files or ["-"]:
        try:
            data: bytes | None = await read_input(inv, path)
        except CommandError as exc:
            report(inv, exc)
            data = None
        yield path, data


@functools.lru_cache(maxsize=8)
def visible_table(flags: frozenset[str]) -> tuple[bytes, ...]:
    """What toybox cat's -v (^X, M-X, ^?), -t (tabs as ^I) and -e ($ before each newline) print
    for each byte."""
    table = []
    for byte in range(256):
        out, c = b"", byte
        if c > 126 and "v" in flags:
            if c > 127:
                out, c = b"M-", c - 128
            if c == 127:
                table.append(out + b"^?")
                continue
        if c == 10 and "e" in flags:
            out += b"$"
        elif c < 32 and c != 10 and ("t" if c == 9 else "v") in flags:
            table.append(out + b"^" + bytes([c + 64]))
            continue
        table.append(out + bytes([c]))
    return tuple(table)


def cat_visible(data: bytes, flags: frozenset[str]) -> bytes:
    table = visible_table(flags)
    return b"".join(map(table.__getitem__, data))


@command("cat")
async def cat(inv: Invocation) -> int:
    flags, files = split_flags(inv.argv[1:], "uvet")
    bad = next((a for a in files if a.startswith("-") and a != "-"), None)
    if bad is not None:
        rest = bad[2:] if bad.startswith("--") else bad[1:].lstrip("uvet")  # toybox names the rest
        inv.err(f"cat: Unknown option '{rest}' (see \"cat --help\")\n")
        return 1
    shown = frozenset(flags - {"u"})
    status = 0
    for path in files or ["-"]:
        if path == "-":
            data = await inv.io.stdin.read()
            inv.out(await run_bounded(cat_visible, data, shown) if shown else data)
            await inv.io.stdout.maybe_flush()
            continue
        try:
            fd = fs_call(path, inv.fs.open, path, os.O_RDONLY | os.O_NONBLOCK, inv.cwd)
        except CommandError as exc:
            status = report(inv, exc)
            continue
        assert isinstance(fd, int)
        try:
            # Streamed in chunks, so a huge file never sits in memory whole.
            while True:
                try:
                    chunk = os.read(fd, 1 << 16)
                except IsADirectoryError:
                    status = report(inv, CommandError(f"{path}: Is a directory"))
                    break
                if not chunk:
                    break
                inv.out(cat_visible(chunk, shown) if shown else chunk)
                await inv.io.stdout.maybe_flush()
        finally:
            os.close(fd)
    return status


def mode_string(st: os.stat_result) -> str:
    return statmod.filemode(st.st_mode)


def owner(path: str) -> tuple[str, str]:
    if path in SKELETON_LINKS:
        return "root", "root"
    if path.startswith("/system/bin/"):
        return "root", "shell"
    if DeviceFS.normalize(path).startswith("/storage/emulated"):
        return "root", "sdcard_rw"
    if path.startswith("/data/local/tmp"):
        return "shell", "shell"
    return "root", "root"


@dataclass
class LsOptions:
    """`ls` flags; `long` counts -l (2 or more: full time, as toybox's -ll/--full-time)."""

    flags: set[str]
    long: int = 0

    @property
    def atime(self) -> bool:
        return "u" in self.flags

    def when(self, st: os.stat_result, device_ns: Callable[[int], int]) -> int:
        if "u" in self.flags:
            return access_ns(st)
        if "c" in self.flags:
            return change_ns(st, device_ns)
        return st.st_mtime_ns


LS_FLAGS = "laRA1dhtrSsZnFiucCq"


def parse_ls(argv: list[str]) -> tuple[LsOptions, list[str]]:
    """Flags may come after the operands (`ls DIR -ll -au`, as AndroidWorld runs it)."""
    opts = LsOptions(set())
    paths: list[str] = []
    done = False
    for arg in argv:
        if not done and arg == "--":
            done = True
        elif not done and arg == "--full-time":
            opts.long = max(opts.long, 2)
        elif not done and len(arg) > 1 and arg[0] == "-" and all(c in LS_FLAGS for c in arg[1:]):
            opts.flags.update(arg[1:])
            opts.long += arg.count("l")
        else:
            paths.append(arg)
    return opts, paths


def format_time(inv: Invocation, ns: int, full: bool) -> str:
    """toybox's time column in the device's local time (localtime(3): TZ, else persist.sys.timezone):
    `2023-11-28 23:17` or, with -ll, `2023-11-28 23:17:43.176000000 +0100`."""
    secs, frac = divmod(ns, 1_000_000_000)
    moment = dt.datetime.fromtimestamp(secs, local_zone(inv, False))
    if full:
        return moment.strftime("%Y-%m-%d %H:%M:%S") + f".{frac:09d} " + moment.strftime("%z")
    return moment.strftime("%Y-%m-%d %H:%M")


def printable(name: str, opts: LsOptions) -> str:
    """A name as `ls` prints it: as is, or with -q each unprintable character (a newline, a
    control character) as '?', so that one entry is always one line."""
    if "q" not in opts.flags or name.isprintable():
        return name
    return "".join(c if c.isprintable() else "?" for c in name)


def long_line(inv: Invocation, st: os.stat_result, device: str, name: str, opts: LsOptions) -> list[str]:
    user, group = owner(device)
    if "n" in opts.flags:
        user, group = str(st.st_uid), str(st.st_gid)
    shown = printable(name, opts)
    size = str(st.st_size)
    if statmod.S_ISLNK(st.st_mode):
        with contextlib.suppress(OSError, PathEscapeError):
            target = inv.fs.readlink(device)
            shown += " -> " + printable(target, opts)
            size = str(len(target.encode()))  # the device's link, not the host's (LINK_DIR prefix)
    if statmod.S_ISCHR(st.st_mode) or statmod.S_ISBLK(st.st_mode):
        size = f"{os.major(st.st_rdev)}, {os.minor(st.st_rdev)}"
    return [
        mode_string(st),
        str(st.st_nlink),
        user,
        group,
        size,
        format_time(inv, opts.when(st, inv.device.device_ns), opts.long > 1),
        shown,
    ]


def format_rows(rows: list[list[str]]) -> str:
    """Columns right-aligned for numbers, left for names, as toybox ls -l lays them out."""
    if not rows:
        return ""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for r in rows:
        cells = [r[0].ljust(widths[0]), r[1].rjust(widths[1]), r[2].ljust(widths[2]), r[3].ljust(widths[3])]
        cells += [r[4].rjust(widths[4]), r[5], r[6]]
        out.append(" ".join(cells) + "\n")
    return "".join(out)


def sort_entries(
    entries: list[tuple[str, os.stat_result]], opts: LsOptions, device_ns: Callable[[int], int]
) -> list[tuple[str, os.stat_result]]:
    """Entries in `ls` order: by name, newest first (-t, by atime with -u) or largest first (-S)."""
    entries = sorted(entries, key=lambda e: e[0])
    if "t" in opts.flags:
        entries.sort(key=lambda e: opts.when(e[1], device_ns), reverse=True)
    elif "S" in opts.flags:
        entries.sort(key=lambda e: e[1].st_size, reverse=True)
    return entries[::-1] if "r" in opts.flags else entries


def _decorate(name: str, st: os.stat_result, opts: LsOptions) -> str:
    prefix = ""
    if "i" in opts.flags:
        prefix += f"{st.st_ino} "
    if "s" in opts.flags and not opts.long:
        prefix += f"{(st.st_blocks + 1) // 2} "
    suffix = ""
    if "F" in opts.flags:
        suffix = "/" if statmod.S_ISDIR(st.st_mode) else "@" if statmod.S_ISLNK(st.st_mode) else ""
        if statmod.S_ISREG(st.st_mode) and st.st_mode & 0o111:
            suffix = "*"
    return prefix + printable(name, opts) + suffix


def list_dir(inv: Invocation, device: str, opts: LsOptions) -> tuple[str, list[tuple[str, str]]]:
    """One folder's listing and (device path, name) of its subfolders, for -R."""
    fs = inv.fs
    entries = fs.entries(device)
    if "a" not in opts.flags:
        entries = [(n, st) for n, st in entries if not n.startswith(".") or "A" in opts.flags]
    entries = sort_entries(entries, opts, inv.device.device_ns)
    if "a" in opts.flags:
        dots = [(".", fs.stat(device)), ("..", fs.stat(posixpath.join(device, "..")))]
        entries = dots + entries
    named = [(posixpath.join(device, n), n, st) for n, st in entries]
    if opts.long:
        rows = [long_line(inv, st, d, n, opts) for d, n, st in named]
        if "i" in opts.flags:
            rows = [[f"{st.st_ino} {r[0]}", *r[1:]] for r, (_, _, st) in zip(rows, named, strict=True)]
        blocks = sum((st.st_blocks + 1) // 2 for _, _, st in named)
        text = f"total {blocks}\n" + format_rows(rows)
    else:
        text = "".join(_decorate(n, st, opts) + "\n" for _, n, st in named)
    subdirs = [(d, n) for d, n, st in named if n not in (".", "..") and statmod.S_ISDIR(st.st_mode)]
    return text, subdirs


@command("ls")
async def ls(inv: Invocation) -> int:
    opts, paths = parse_ls(inv.argv[1:])
    fs = inv.fs
    status = 0
    files: list[tuple[str, os.stat_result]] = []
    dirs: list[tuple[str, str]] = []
    for path in paths or ["."]:
        dev = device_path(inv, path)
        try:
            st = fs.lstat(path, inv.cwd)  # a trailing slash follows a link, as the kernel's lookup
            # An operand that is a link to a folder lists the folder, unless -l or -d shows the link.
            if statmod.S_ISLNK(st.st_mode) and not opts.long and "d" not in opts.flags:
                st = fs.stat(dev)
        except (OSError, PathEscapeError) as exc:
            inv.err(f"ls: {path}: {getattr(exc, 'strerror', None) or 'No such file or directory'}\n")
            status = 1
            continue
        if statmod.S_ISDIR(st.st_mode) and "d" not in opts.flags:
            dirs.append((dev, path))
        else:
            files.append((path, st))
    files = sort_entries(files, opts, inv.device.device_ns)
    if opts.long:
        inv.out(format_rows([long_line(inv, st, device_path(inv, p), p, opts) for p, st in files]))
    else:
        inv.out("".join(_decorate(p, st, opts) + "\n" for p, st in files))
    show_header = len(paths) > 1 or "R" in opts.flags
    queue = list(dirs)
    first = not files
    while queue:
        dev, shown = queue.pop(0)
        try:
            text, subdirs = list_dir(inv, dev, opts)
        except (OSError, PathEscapeError) as exc:
            inv.err(f"ls: {shown}: {getattr(exc, 'strerror', None) or 'Permission denied'}\n")
            status = 1
            continue
        if show_header:
            inv.out(("" if first else "\n") + f"{printable(shown, opts)}:\n")
        first = False
        inv.out(text)
        await inv.io.stdout.maybe_flush()
        await asyncio.sleep(0)  # one folder at a time: `ls -R /` over a huge tree holds no one up
        if "R" in opts.flags:
            queue[0:0] = [(d, posixpath.join(shown, n)) for d, n in subdirs]
    return status


@command("rm")
async def rm(inv: Invocation) -> int:
    flags, paths = split_flags(inv.argv[1:], "rRfiv")
    force, recursive = "f" in flags, bool(flags & {"r", "R"})
    if not paths and not force:
        inv.err("rm: Needs 1 argument\n")
        return 1
    status = 0
    fs = inv.fs
    for path in paths:
        try:
            if device_path(inv, path) == "/":
                raise CommandError(f"{path}: Device or resource busy")
            found = kind(inv, path, follow=False)
            if found is None:
                try:
                    fs.lstat(path, inv.cwd)
                except AccessDenied as exc:  # not missing but out of reach: -f does not hide that
                    raise command_error(path, exc) from exc
                except (OSError, PathEscapeError):
                    pass
                if not force:
                    raise CommandError(f"{path}: No such file or directory")
                continue
            if found == statmod.S_IFDIR and not recursive:
                raise CommandError(f"{path}: Is a directory")
            # Resolved again inside remove(), from the root, without following the last component.
            fs_call(path, fs.remove, path, inv.cwd, recursive=recursive)
        except CommandError as exc:
            status = report(inv, exc)
    return status


@command("rmdir")
async def rmdir(inv: Invocation) -> int:
    status = 0
    for path in split_flags(inv.argv[1:], "p")[1]:
        try:
            fs_call(path, inv.fs.rmdir, path, inv.cwd)
        except CommandError as exc:
            status = report(inv, exc)
    return status


@command("mkdir")
async def mkdir(inv: Invocation) -> int:
    flags, paths = split_flags(inv.argv[1:], "pvm")
    if not paths:
        inv.err("mkdir: Needs 1 argument\n")
        return 1
    status = 0
    for path in paths:
        try:
            fs_call(path, inv.fs.mkdir, path, inv.cwd, parents="p" in flags)
        except CommandError as exc:
            status = report(inv, exc)
    return status


# bionic's mkstemp and mkdtemp replace each trailing X with one of these
TEMP_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
TEMP_TRIES = 100


@command("mktemp")
async def mktemp(inv: Invocation) -> int:
    """`mktemp [-dqu] [-p DIR] [-t] [TEMPLATE]`: make a new file (0600) or folder (-d, 0700) named
    by TEMPLATE's trailing Xs and print its path; by default tmp.XXXXXXXXXX in $TMPDIR
    (/data/local/tmp on a device)."""
    args = list(inv.argv[1:])
    folder: str | None = None
    rest: list[str] = []
    while args:
        arg = args.pop(0)
        if arg == "-p" and args:
            folder = args.pop(0)
        elif arg.startswith("--tmpdir"):
            folder = arg.partition("=")[2]
        else:
            rest.append(arg)
    flags, names = split_flags(rest, "dqut")
    if len(names) > 1:
        inv.err("mktemp: Max 1 argument\n")
        return 1
    tmpdir = inv.env.get("TMPDIR", "")
    where = folder if folder else None
    if not where or ("t" in flags and tmpdir):
        where = tmpdir
    where = where or "/tmp"
    template = names[0] if names else "tmp.XXXXXXXXXX"
    if template.startswith("/") and folder:
        inv.err("mktemp: -p + /template\n")
        return 1
    if names and folder is None and "t" not in flags:
        where = ""  # a TEMPLATE is a path of its own unless -p or -t says where
    path = f"{where}/{template}" if where else template
    stem = path.rstrip("X")
    if len(path) - len(stem) < 3:
        inv.err("mktemp: need XXX\n")
        return 1
    length = len(path) - len(stem)
    for _ in range(TEMP_TRIES):
        path = stem + "".join(random.choice(TEMP_CHARS) for _ in range(length))
        if "u" in flags:
            break
        try:
            if "d" in flags:
                inv.fs.mkdir(path, inv.cwd)
                fd = inv.fs.open(path, os.O_RDONLY | os.O_DIRECTORY, inv.cwd)
                os.fchmod(fd, 0o700)  # mkdtemp's mode
                inv.fs.close(fd)
            else:
                inv.fs.close(inv.fs.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, inv.cwd, 0o600))
            break
        except FileExistsError:
            continue
        except (OSError, PathEscapeError) as exc:
            if "q" not in flags:
                kind_made = "directory" if "d" in flags else "file"
                inv.err(f"mktemp: Failed to create {kind_made} {command_error(path, exc)}\n")
            return 1
    inv.out(path + "\n")
    return 0


TOUCH_TIME = re.compile(r"((?:[0-9]{2})?[0-9]{2})?([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})(?:\.([0-9]{2}))?")
TOUCH_DATE = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?)(?:\.([0-9]{1,9}))?(Z?)"
)


def touch_ns(inv: Invocation, option: str, value: str) -> int:
    """toybox touch's `-d YYYY-MM-DD[T ]hh:mm[:ss][.frac][Z]` and `-t [[CC]YY]MMDDhhmm[.ss]`, in
    the local zone (UTC with Z), as ns since the epoch; ValueError for anything else."""
    zone = local_zone(inv, False)
    now = dt.datetime.fromtimestamp(inv.device.services.clock.now(), zone)
    frac = ""
    if option == "-t":
        m = TOUCH_TIME.fullmatch(value)
        if not m:
            raise ValueError(value)
        year = int(m.group(1)) if m.group(1) and len(m.group(1)) == 4 else now.year
        if m.group(1) and len(m.group(1)) == 2:
            year = (1900 if int(m.group(1)) >= 69 else 2000) + int(m.group(1))
        month, day, hour, minute = (int(m.group(i)) for i in range(2, 6))
        moment = dt.datetime(year, month, day, hour, minute, int(m.group(6) or 0), tzinfo=zone)
    else:
        m = TOUCH_DATE.fullmatch(value)
        if not m:
            raise ValueError(value)
        moment = parse_date(m.group(1).replace("T", " "), dt.timezone.utc if m.group(3) else zone, now)
        frac = m.group(2) or ""
    return int(moment.timestamp()) * 1_000_000_000 + int(frac.ljust(9, "0") or 0)


@command("touch")
async def touch(inv: Invocation) -> int:
    """`touch [-acmh] [-d DATE | -t TIME | -r FILE] FILE...`: the device clock's time by default."""
    args = inv.argv[1:]
    flags: set[str] = set()
    when: tuple[int, int] | None = None
    paths: list[str] = []
    while args:
        arg = args.pop(0)
        if arg in ("-d", "-t", "-r") and args:
            value = args.pop(0)
            try:
                if arg == "-r":
                    st = fs_call(value, inv.fs.stat, value, inv.cwd)
                    when = (access_ns(st), st.st_mtime_ns)
                else:
                    stamp = touch_ns(inv, arg, value)
                    when = (stamp, stamp)
            except CommandError as exc:
                return report(inv, exc)
            except (ValueError, OverflowError, OSError):
                inv.err(f"touch: bad '{value}'\n")
                return 1
        elif arg.startswith("-") and len(arg) > 1 and arg != "--" and all(c in "acmh" for c in arg[1:]):
            flags.update(arg[1:])
        else:
            paths.append(arg)
    if not paths:
        inv.err("touch: Needs 1 argument\n")
        return 1
    now = inv.fs.now_ns()
    atime, mtime = when or (now, now)
    both = not flags & {"a", "m"}
    status = 0
    for path in paths:
        try:
            if "c" in flags and kind(inv, path) is None:
                continue
            fs_call(
                path,
                inv.fs.utime,
                path,
                atime if both or "a" in flags else None,
                mtime if both or "m" in flags else None,
                inv.cwd,
            )
        except CommandError as exc:
            status = report(inv, exc)
    return status


def _copy_targets(inv: Invocation, operands: list[str]) -> list[tuple[str, str]]:
    """(source operand, destination device path) pairs for cp/mv's two forms."""
    if len(operands) < 2:
        raise CommandError("Needs 2 arguments")
    dest = operands[-1]
    sources = operands[:-1]
    into = kind(inv, dest) == statmod.S_IFDIR
    if len(sources) > 1 and not into:
        raise CommandError(f"{dest}: Not a directory")
    out = []
    for src in sources:
        name = posixpath.basename(device_path(inv, src)) or "/"
        out.append((src, posixpath.join(device_path(inv, dest), name) if into else device_path(inv, dest)))
    return out


def _each_copy(inv: Invocation, operands: list[str], one: Callable[[str, str], None]) -> int:
    """Runs `one(source operand, destination path)` for each cp/mv source that exists, reporting a
    failed source and going on to the next; a bad operand list stops it all."""
    status = 0
    try:
        for src, target in _copy_targets(inv, operands):
            try:
                if kind(inv, src, follow=False) is None:
                    raise CommandError(f"{src}: No such file or directory")
                one(src, target)
            except CommandError as exc:
                status = report(inv, exc)
    except CommandError as exc:
        return report(inv, exc)
    return status


@command("cp")
async def cp(inv: Invocation) -> int:
    flags, operands = split_flags(inv.argv[1:], "rRafpdPLnuvi")
    recursive = bool(flags & {"r", "R", "a"})
    keep_times = bool(flags & {"p", "a"})  # otherwise a copy is new: it gets the device time
    fs = inv.fs

    def copy(src: str, target: str) -> None:
        if kind(inv, src) == statmod.S_IFDIR and not recursive:
            raise CommandError(f"{src}: Is a directory (use -r)")
        if "n" in flags and kind(inv, target, follow=False) is not None:
            return
        fs_call(src, fs.copy, src, target, inv.cwd, keep_times=keep_times)

    return _each_copy(inv, operands, copy)


@command("mv")
async def mv(inv: Invocation) -> int:
    _, operands = split_flags(inv.argv[1:], "fniv")

    def move(src: str, target: str) -> None:
        source = device_path(inv, src)
        if source == "/" or target.startswith(source.rstrip("/") + "/"):
            raise CommandError(f"{src}: Invalid argument")
        fs_call(src, inv.fs.rename, src, target, inv.cwd)

    return _each_copy(inv, operands, move)


@command("ln")
async def ln(inv: Invocation) -> int:
    """`ln -s [-fnv] TARGET LINK` as toybox's ln; a link in shared storage fails as the FUSE mount
    makes it fail. Hard links are not made (a device folder's files may be the golden snapshot's)."""
    flags, operands = split_flags(inv.argv[1:], "sfnv")
    if "s" not in flags or len(operands) != 2:
        inv.err("ln: only `ln -s TARGET LINK` is supported\n")
        return 1
    target, link = operands
    fs = inv.fs
    if "n" not in flags and kind(inv, link) == statmod.S_IFDIR:
        link = f"{link}/{posixpath.basename(target.rstrip('/')) or '/'}"  # as toybox joins them

    def failed(reason: str) -> int:
        inv.err(f"ln: cannot create symbolic link from '{target}' to '{link}': {reason}\n")
        return 1

    try:
        if kind(inv, link, follow=False) is not None:
            if "f" not in flags:
                return failed("File exists")
            fs_call(link, fs.unlink, link, inv.cwd)
        # The target is stored as typed and read in device terms (chroot semantics): whatever it
        # names, it resolves beneath the device root. Shared storage refuses links (ENOSYS).
        fs.symlink(target, link, inv.cwd)
    except PathEscapeError:
        return failed("Permission denied")
    except OSError as exc:  # toybox says every failure to make the link in one form
        return failed(exc.strerror or str(exc))
    except CommandError as exc:
        return report(inv, exc)
    if "v" in flags:
        inv.err(f"'{link}' -> '{target}'\n")
    return 0


@command("chown", "chgrp", "chcon", "restorecon", "sync")
async def accept(inv: Invocation) -> int:
    """Owners and labels are not modelled; these succeed when their operands exist."""
    _, rest = split_flags(inv.argv[1:], "RhfvLHPFn")
    operands = rest[1:] if inv.argv[0] in ("chown", "chgrp", "chcon") else rest
    if inv.argv[0] == "sync":
        operands = []
    status = 0
    for path in operands:
        if kind(inv, path) is None:
            status = report(inv, CommandError(f"{path}: No such file or directory"))
    return status


def parse_mode(spec: str, old: int, is_dir: bool) -> int:
    """An octal mode or a symbolic one (`u+x`, `go-w`, `a=rX`, comma-separated), as chmod reads it."""
    if spec and all(c in "01234567" for c in spec):
        return int(spec, 8) & 0o7777
    mode = old & 0o7777
    for clause in spec.split(","):
        who_end = len(clause) - len(clause.lstrip("ugoa"))
        who = clause[:who_end] or "a"
        rest = clause[who_end:]
        if not rest or rest[0] not in "+-=":
            raise CommandError(f"bad mode '{spec}'")
        op, perms = rest[0], rest[1:]
        if any(c not in "rwxXst" for c in perms):
            raise CommandError(f"bad mode '{spec}'")
        bits = 0
        for c in perms:
            if c == "X" and not (is_dir or old & 0o111):
                continue
            bits |= {"r": 0o444, "w": 0o222, "x": 0o111, "X": 0o111, "s": 0o6000, "t": 0o1000}[c]
        mask = 0
        for w in "ugo" if "a" in who else who:
            mask |= {"u": 0o4700, "g": 0o2070, "o": 0o1007}[w]
        bits &= mask
        if op == "+":
            mode |= bits
        elif op == "-":
            mode &= ~bits
        else:
            mode = (mode & ~mask) | bits
    return mode


@command("chmod")
async def chmod(inv: Invocation) -> int:
    """`chmod [-R] MODE FILE...`: through the descriptor of each file, found beneath the root."""
    flags, rest = split_flags(inv.argv[1:], "Rfv")
    if len(rest) < 2:
        inv.err("chmod: Needs 2 arguments\n")
        return 1
    spec, paths = rest[0], rest[1:]
    fs = inv.fs
    status = 0
    for path in paths:
        try:
            entries = [path]
            if "R" in flags and kind(inv, path) == statmod.S_IFDIR:
                walked = fs_call(path, lambda p=path: list(fs.walk(p, inv.cwd)))
                entries = [e.path for e in walked if not statmod.S_ISLNK(e.st.st_mode)]
            for each in entries:
                fs_call(each, fs.access, each, "w", inv.cwd, follow=True)  # chmod(2) follows a link
                fd = fs_call(each, fs.open, each, os.O_RDONLY | os.O_NONBLOCK, inv.cwd)
                try:
                    st = os.fstat(fd)
                    is_dir = statmod.S_ISDIR(st.st_mode)
                    # The owner keeps read and write (and search on folders): the worker may run as
                    # an ordinary user, and a reset must always be able to remove the tree.
                    keep = 0o700 if is_dir else 0o600
                    os.fchmod(fd, parse_mode(spec, st.st_mode, is_dir) | keep)
                finally:
                    os.close(fd)
        except CommandError as exc:
            status = report(inv, exc)
    return status


# ---- find -------------------------------------------------------------------------------------


@dataclass
class Node:
    """One node of a find expression: an operator ("and", "or", "not") or a primary."""

    op: str
    args: list[str] = field(default_factory=list)
    kids: list[Node] = field(default_factory=list)


FIND_ACTIONS = ("-print", "-print0", "-delete", "-exec", "-execdir", "-ok")
FIND_OPTIONS = ("-maxdepth", "-mindepth", "-depth", "-xdev", "-follow", "-mount", "-H", "-L")
FIND_TESTS_1: tuple[str, ...] = (
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-type",
    "-mtime",
    "-mmin",
    "-atime",
)
FIND_TESTS_1 += (
    "-amin",
    "-ctime",
    "-cmin",
    "-newer",
    "-size",
    "-regex",
    "-iregex",
    "-user",
    "-group",
    "-perm",
)
FIND_TESTS_1 += ("-links", "-inum")
FIND_TESTS_0 = ("-true", "-false", "-empty", "-prune", "-quit")


@dataclass
class FindQuery:
    """A parsed `find` command line."""

    paths: list[str]
    expr: Node | None
    maxdepth: int = 1 << 30
    mindepth: int = 0
    depth_first: bool = False
    has_action: bool = False


class FindParser:
    """toybox find's grammar: `!`/`-not`, implicit or explicit `-a`/`-and`, `-o`/`-or`, `( )`."""

    def __init__(self, args: list[str], query: FindQuery) -> None:
        self.args = args
        self.query = query

    def parse(self) -> Node | None:
        if not self.args:
            return None
        node = self.parse_or()
        if self.args:
            raise CommandError(f"bad arg '{self.args[0]}'")
        return node

    def parse_or(self) -> Node:
        left = self.parse_and()
        while self.args and self.args[0] in ("-o", "-or"):
            self.args.pop(0)
            left = Node("or", kids=[left, self.parse_and()])
        return left

    def parse_and(self) -> Node:
        left = self.parse_not()
        while self.args and self.args[0] not in ("-o", "-or", ")"):
            if self.args[0] in ("-a", "-and"):
                self.args.pop(0)
            left = Node("and", kids=[left, self.parse_not()])
        return left

    def parse_not(self) -> Node:
        if not self.args:
            raise CommandError("need arg")
        if self.args[0] in ("!", "-not"):
            self.args.pop(0)
            return Node("not", kids=[self.parse_not()])
        if self.args[0] == "(":
            self.args.pop(0)
            inner = self.parse_or()
            if not self.args or self.args.pop(0) != ")":
                raise CommandError("missing ')'")
            return inner
        return self.primary()

    def primary(self) -> Node:
        opt = self.args.pop(0)
        q = self.query
        if opt in ("-exec", "-execdir", "-ok"):
            argv: list[str] = []
            while self.args and self.args[0] not in (";", "+"):
                argv.append(self.args.pop(0))
            if not self.args or not argv:
                raise CommandError(f"'{opt}' needs a command ending in ';' or '+'")
            end = self.args.pop(0)
            q.has_action = True
            return Node(opt, [end, *argv])
        if opt in FIND_ACTIONS:
            q.has_action = True
            if opt == "-delete":
                q.depth_first = True
            return Node(opt)
        if opt in FIND_OPTIONS:
            if opt in ("-maxdepth", "-mindepth"):
                if not self.args or not self.args[0].isdigit():
                    raise CommandError(f"'{opt}' needs a number")
                setattr(q, opt[1:], int(self.args.pop(0)))
            elif opt == "-depth":
                q.depth_first = True
            return Node("-true")
        if opt in FIND_TESTS_0:
            return Node(opt)
        if opt in FIND_TESTS_1:
            if not self.args:
                raise CommandError(f"'{opt}' needs 1 arg")
            value = self.args.pop(0)
            if opt in ("-regex", "-iregex"):
                try:
                    compile_regex(value, ignore_case=opt == "-iregex")
                except RegexError as exc:
                    raise CommandError(f"bad regex '{value}': {exc}") from exc
            return Node(opt, [value])
        raise CommandError(f"bad arg '{opt}'")


def parse_find(args: list[str]) -> FindQuery:
    args = list(args)
    paths: list[str] = []
    while args and args[0] in ("-H", "-L"):  # before the paths: follow the links named (-H) or all
        args.pop(0)
    while args and (not args[0].startswith("-") or args[0] == "-") and args[0] not in ("(", "!"):
        paths.append(args.pop(0))
    query = FindQuery(paths or ["."], None)
    query.expr = FindParser(args, query).parse()
    return query


@dataclass
class FindRun:
    """State of one `find` run: the query, the device clock, the exit status."""

    inv: Invocation
    query: FindQuery
    now: float
    status: int = 0
    newer: dict[str, float] = field(default_factory=dict)
    batches: dict[int, list[str]] = field(default_factory=dict)  # `-exec ... {} +` pending paths
    budget: Budget = field(default_factory=Budget)  # for -regex, over the whole run
    entry: Entry | None = None  # the walk's current entry (for -delete)


def _numeric(value: str, actual: float) -> bool:
    """find's `N`, `+N` (more than) and `-N` (less than)."""
    if value.startswith("+"):
        return actual > float(value[1:])
    if value.startswith("-"):
        return actual < float(value[1:])
    return int(actual) == int(value)


SIZE_UNITS = {"c": 1, "k": 1024, "M": 1 << 20, "G": 1 << 30, "b": 512}


def _size_test(value: str, size: int) -> bool:
    unit = value[-1] if value[-1:] in SIZE_UNITS else "b"
    number = value.rstrip("ckMGb")
    scale = SIZE_UNITS[unit]
    return _numeric(number, -(-size // scale))


async def _evaluate(run: FindRun, node: Node, path: str, st: os.stat_result) -> bool:
    op = node.op
    if op == "and":
        return await _evaluate(run, node.kids[0], path, st) and await _evaluate(run, node.kids[1], path, st)
    if op == "or":
        return await _evaluate(run, node.kids[0], path, st) or await _evaluate(run, node.kids[1], path, st)
    if op == "not":
        return not await _evaluate(run, node.kids[0], path, st)
    inv = run.inv
    value = node.args[0] if node.args else ""
    name = posixpath.basename(path.rstrip("/")) or path
    if op == "-name":
        return fnmatch.fnmatchcase(name, value)
    if op == "-iname":
        return fnmatch.fnmatchcase(name.lower(), value.lower())
    if op in ("-path", "-wholename"):
        return fnmatch.fnmatchcase(path, value)
    if op == "-ipath":
        return fnmatch.fnmatchcase(path.lower(), value.lower())
    if op in ("-regex", "-iregex"):
        pattern = compile_regex(value, ignore_case=op == "-iregex", budget=run.budget)
        return await run_bounded(pattern.fullmatch, path) is not None
    if op == "-type":
        kinds = {"f": statmod.S_ISREG, "d": statmod.S_ISDIR, "l": statmod.S_ISLNK, "p": statmod.S_ISFIFO}
        kinds |= {"s": statmod.S_ISSOCK, "c": statmod.S_ISCHR, "b": statmod.S_ISBLK}
        return any(kinds[c](st.st_mode) for c in value.split(",") if c in kinds)
    if op in ("-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin"):
        changed = change_ns(st, inv.device.device_ns) / 1e9
        stamp = {"m": st.st_mtime, "a": access_ns(st) / 1e9, "c": changed}[op[1]]
        unit = 60 if op.endswith("min") else 86400
        return _numeric(value, (run.now - stamp) // unit)
    if op == "-newer":
        if value not in run.newer:
            try:
                run.newer[value] = inv.fs.stat(value, inv.cwd).st_mtime
            except (OSError, PathEscapeError) as exc:
                raise CommandError(f"'{value}': No such file or directory") from exc
        return st.st_mtime > run.newer[value]
    if op == "-size":
        return _size_test(value, st.st_size)
    if op == "-empty":
        if statmod.S_ISDIR(st.st_mode):
            try:
                return not inv.fs.listdir(path, inv.cwd)
            except (OSError, PathEscapeError):
                return False
        return statmod.S_ISREG(st.st_mode) and st.st_size == 0
    if op in ("-user", "-group"):
        return value in ("root", "0")
    if op == "-links":
        return _numeric(value, st.st_nlink)
    if op == "-inum":
        return _numeric(value, st.st_ino)
    if op == "-perm":
        want = int(value.lstrip("-/"), 8)
        mode = statmod.S_IMODE(st.st_mode)
        return (
            (mode & want) == want
            if value[0] == "-"
            else bool(mode & want)
            if value[0] == "/"
            else mode == want
        )
    if op in ("-true", "-prune"):
        return True
    if op in ("-false", "-quit"):
        return False
    if op == "-print":
        inv.out(path + "\n")
        return True
    if op == "-print0":
        inv.out(path + "\0")
        return True
    if op == "-delete":
        # Through the descriptor of the folder the walk holds: the entry it saw is the one
        # removed, whatever folders were renamed or swapped since (by -exec or anyone).
        try:
            if run.entry is None:
                raise OSError(2, "No such file or directory")
            inv.fs.remove_entry(run.entry)
        except OSError as exc:
            inv.err(f"find: {path}: {getattr(exc, 'strerror', None) or 'Permission denied'}\n")
            run.status = 1
            return False
        return True
    if op in ("-exec", "-execdir", "-ok"):
        end, argv = node.args[0], node.args[1:]
        if end == "+":
            run.batches.setdefault(id(node), [])
            run.batches[id(node)].append(path)
            return True
        status = await _find_exec(inv, [a.replace("{}", path) for a in argv])
        return status == 0
    raise CommandError(f"bad arg '{op}'")


async def _find_exec(inv: Invocation, argv: list[str]) -> int:
    """Runs one `-exec` command line through the shell's command table."""
    from mgfarm.sim.shell.interp import Shell

    shell = Shell(inv.device, dict(inv.env), inv.cwd, uid=inv.uid)
    return await shell.call(argv, inv.io)


def _exec_nodes(node: Node | None) -> list[Node]:
    if node is None:
        return []
    if node.op in ("-exec", "-execdir", "-ok") and node.args[0] == "+":
        return [node]
    return [n for kid in node.kids for n in _exec_nodes(kid)]


@command("find")
async def find(inv: Invocation) -> int:
    try:
        query = parse_find(inv.argv[1:])
    except CommandError as exc:
        return report(inv, exc)
    run = FindRun(inv, query, inv.device.services.clock.now())
    fs = inv.fs
    follow = bool({"-H", "-L", "-follow"} & set(inv.argv[1:]))  # the sim's walk enters no link below
    seen = 0
    for path in query.paths:
        try:
            walk = fs.walk(path, inv.cwd, follow, query.depth_first, query.maxdepth)
            for entry in walk:
                if entry.depth < query.mindepth:
                    continue
                run.entry = entry
                try:
                    matched = query.expr is None or await _evaluate(run, query.expr, entry.path, entry.st)
                except CommandError as exc:
                    return report(inv, exc)
                except RegexTimeout as exc:
                    inv.err(f"find: {exc}\n")
                    return 1
                if matched and not query.has_action:
                    inv.out(entry.path + "\n")
                if entry.denied:
                    inv.err(f"find: '{entry.path}': Permission denied\n")
                    run.status = 1
                await inv.io.stdout.maybe_flush()
                seen += 1
                if seen % YIELD_EVERY == 0:
                    await asyncio.sleep(0)  # a walk over a huge tree must not hold the other devices
        except (OSError, PathEscapeError):
            inv.err(f"find: '{path}': No such file or directory\n")
            run.status = 1
        finally:
            run.entry = None
    for node in _exec_nodes(query.expr):
        paths = run.batches.get(id(node), [])
        if paths:
            argv = node.args[1:]
            at = argv.index("{}") if "{}" in argv else len(argv)
            status = await _find_exec(inv, [*argv[:at], *paths, *argv[at + 1 :]])
            run.status = run.status or (1 if status else 0)
    return run.status


FILE_TYPES = {"regular file": statmod.S_ISREG, "directory": statmod.S_ISDIR, "symbolic link": statmod.S_ISLNK}


def _file_type(st: os.stat_result) -> str:
    for name, check in FILE_TYPES.items():
        if check(st.st_mode):
            return "regular empty file" if name == "regular file" and st.st_size == 0 else name
    return "special file"


def _stat_time(inv: Invocation, ns: int) -> str:
    """toybox stat's %x/%y/%z: `2026-03-02 10:00:00.123000000 +0100` in the device's local time."""
    secs, frac = divmod(ns, 1_000_000_000)
    moment = dt.datetime.fromtimestamp(secs, local_zone(inv, False))
    return moment.strftime("%Y-%m-%d %H:%M:%S") + f".{frac:09d} " + moment.strftime("%z")


def _stat_field(inv: Invocation, shown: str, st: os.stat_result, key: str) -> str:
    user, group = owner(device_path(inv, shown))
    if key == "z":
        return _stat_time(inv, change_ns(st, inv.device.device_ns))
    if key in "xy":
        return _stat_time(inv, access_ns(st) if key == "x" else st.st_mtime_ns)
    fields = {
        "s": str(st.st_size),
        "n": shown,
        "N": f"'{shown}'",
        "a": f"{statmod.S_IMODE(st.st_mode):o}",
        "A": mode_string(st),
        "F": _file_type(st),
        "U": user,
        "G": group,
        "u": "0",
        "g": "0",
        "Y": str(int(st.st_mtime)),
        "X": str(access_ns(st) // 1_000_000_000),
        "Z": str(change_ns(st, inv.device.device_ns) // 1_000_000_000),
        "h": str(st.st_nlink),
        "i": str(st.st_ino),
        "b": str(st.st_blocks),
        "B": "512",
        "%": "%",
    }
    return fields.get(key, "?")


@command("stat")
async def stat(inv: Invocation) -> int:
    args = inv.argv[1:]
    fmt = None
    follow = False
    operands = []
    while args:
        arg = args.pop(0)
        if arg in ("-c", "--format") and args:
            fmt = args.pop(0)
        elif arg.startswith("-c") and len(arg) > 2:
            fmt = arg[2:]
        elif arg in ("-L", "-t"):
            follow = follow or arg == "-L"
        else:
            operands.append(arg)
    if fmt is None:
        fmt = (
            "  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: 4096\t%F\nDevice: fd00h/64768d\t Inode: %i\t "
            "Links: %h\nAccess: (0%a/%A)\tUid: (    %u/    %U)\tGid: (    %g/    %G)\nAccess: %x\n"
            "Modify: %y\nChange: %z"
        )
    status = 0
    for path in operands:
        try:
            st = inv.fs.stat(path, inv.cwd, follow=follow)
        except (OSError, PathEscapeError):
            status = report(inv, CommandError(f"{path}: No such file or directory"))
            continue
        out: list[str] = []
        i = 0
        while i < len(fmt):
            if fmt[i] == "%" and i + 1 < len(fmt):
                out.append(_stat_field(inv, path, st, fmt[i + 1]))
                i += 2
            else:
                out.append(fmt[i])
                i += 1
        inv.out("".join(out) + "\n")
    return status


class ReadFailed(CommandError):
    """A read of an opened input failed (a directory reads so): toybox stops there."""


BLANKS = b" \t\n\v\f\r"  # C's isspace


def open_input(inv: Invocation, path: str) -> int | None:
    """A descriptor for a file operand, None for stdin (`-`)."""
    if path == "-":
        return None
    fd: int = fs_call(path, inv.fs.open, path, os.O_RDONLY, inv.cwd)
    return fd


async def input_chunks(inv: Invocation, fd: int | None, path: str) -> AsyncIterator[bytes]:
    """An opened input a piece at a time, other devices of the worker running between pieces (a
    device hashes a file of any size); closes it."""
    if fd is None:
        yield await inv.io.stdin.read()
        return
    # An endless device (/dev/zero) ends where read_input ends it: a real hash would run forever.
    left = PIPE_LIMIT if inv.fs.normalize(path, inv.cwd) in ENDLESS_NODES else -1
    try:
        while left:
            try:
                chunk = os.read(fd, 1 << 20 if left < 0 else min(left, 1 << 20))
            except OSError as exc:
                raise ReadFailed(f"{path}: {exc.strerror}") from exc
            if not chunk:
                return
            left -= len(chunk) if left > 0 else 0
            yield chunk
            await asyncio.sleep(0)
    finally:
        os.close(fd)


async def file_digest(inv: Invocation, algo: str, path: str) -> str:
    """The hex digest of a file operand (stdin for `-`); a directory hashes as empty, as toybox's
    read loop ends at the failed read without a word."""
    fd = open_input(inv, path)
    digest = hashlib.new(algo)
    with contextlib.suppress(ReadFailed):
        async for chunk in input_chunks(inv, fd, path):
            digest.update(chunk)
    return digest.hexdigest()


def split_check_line(line: bytes) -> tuple[bytes, bytes] | None:
    """A `-c` list line as toybox splits it (up to a NUL): the hash before the first blank and the
    name after the blanks, or None when there is no blank at all."""
    text = line.split(b"\0", 1)[0]
    blank = next((i for i, byte in enumerate(text) if byte in BLANKS), -1)
    if blank < 0:
        return None
    return text[:blank], text[blank:].lstrip(BLANKS)


async def check_line(inv: Invocation, algo: str, expected: bytes, raw_name: bytes, quiet: bool) -> bool:
    """Check one file against its listed hash; False for a mismatch or a file that would not open."""
    name = raw_name.decode("utf-8", "surrogateescape")
    try:
        got = await file_digest(inv, algo, name)
    except CommandError as exc:
        report(inv, exc)
        got = ""
    ok = bool(got) and expected.lower() == got.encode()
    if not quiet:
        inv.out(raw_name + (b": OK\n" if ok else b": FAILED\n"))
    return ok


async def check_list(inv: Invocation, algo: str, path: str, quiet: bool) -> int:
    """`-c`: check every line of a list file; 1 when any failed or the list had no good line."""
    if path != "-" and kind(inv, path) == statmod.S_IFDIR:
        inv.err(f"{inv.argv[0]}: getline: Is a directory\n")
        data = b""
    else:
        try:
            data = await read_input(inv, path)
        except CommandError as exc:
            return report(inv, exc)
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()
    status, seen = 0, False
    for line in lines:
        parts = split_check_line(line)
        if parts is None or not parts[0] or not parts[1]:
            shown = parts[0] if parts else line.split(b"\0", 1)[0]
            inv.err(f"{inv.argv[0]}: bad line ".encode() + shown + b"\n")
            status = 1
            continue
        seen = True
        if not await check_line(inv, algo, parts[0], parts[1], quiet):
            status = 1
    if not seen:
        status = report(inv, CommandError(f"{path}: no lines"))
    return status


def _digest_command(algo: str) -> None:
    name = f"{algo}sum"

    async def run(inv: Invocation) -> int:
        spec = ToySpec(name, flags="bcs", longs={"check": "c", "status": "s"}, exclusive="bc")
        args = parse_or_report(inv, spec)
        if args is None:
            return 1
        status = 0
        if "c" in args.flags:
            for path in args.operands:
                status |= await check_list(inv, algo, path, "s" in args.flags)
            return status
        if "s" in args.flags:
            return report(inv, CommandError("-s only with -c"))
        for path in args.operands or ["-"]:
            try:
                digest = await file_digest(inv, algo, path)
            except CommandError as exc:
                status = report(inv, exc)
                continue
            inv.out(digest + "\n" if "b" in args.flags else f"{digest}  {path}\n")
        return status

    command(name)(run)


for _algo in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512"):
    _digest_command(_algo)


def _crc_tables() -> tuple[bytes, list[int]]:
    """A table reversing the bits of a byte, and toybox's big-endian CRC-32 table (cksum's)."""
    reverse = bytes(int(f"{i:08b}"[::-1], 2) for i in range(256))
    table = []
    for i in range(256):
        crc = i << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
        table.append(crc)
    return reverse, table


BIT_REVERSE, CRC_TABLE = _crc_tables()


def _reverse32(value: int) -> int:
    return int(f"{value:032b}"[::-1], 2)


def crc_update(crc: int, data: bytes, little_endian: bool) -> int:
    """cksum's CRC-32 (no inversions) of `data` from state `crc`. zlib runs the little-endian one
    in C (its pre- and post-inversion undone); the big-endian one is that on reversed bits."""
    if little_endian:
        return ~zlib.crc32(data, ~crc & 0xFFFFFFFF) & 0xFFFFFFFF
    return _reverse32(crc_update(_reverse32(crc), data.translate(BIT_REVERSE), True))


def crc_length(crc: int, length: int, little_endian: bool) -> int:
    """The length, low byte first, mixed in after the data (toybox feeds each byte to the CRC)."""
    while length:
        if little_endian:
            crc = crc_update(crc, bytes([length & 0xFF]), True)
        else:
            crc = ((crc << 8) & 0xFFFFFFFF) ^ CRC_TABLE[(crc >> 24) ^ (length & 0xFF)]
        length >>= 8
    return crc


async def cksum_line(inv: Invocation, path: str, flags: set[str], named: bool) -> tuple[str, int]:
    """One input's cksum line and status: a failed read (a directory) is reported, and what was
    read still gets its line."""
    little = "L" in flags
    fd = open_input(inv, path)
    crc, length, status = (0xFFFFFFFF if "P" in flags else 0), 0, 0
    try:
        async for chunk in input_chunks(inv, fd, path):
            crc, length = crc_update(crc, chunk, little), length + len(chunk)
    except ReadFailed as exc:
        status = report(inv, exc)
    if "N" not in flags:
        crc = crc_length(crc, length, little)
    value = crc if "I" in flags else ~crc & 0xFFFFFFFF
    line = f"{value:08x}" if "H" in flags else str(value)
    line += "" if "N" in flags else f" {length}"
    return line + (f" {path}" if named else "") + "\n", status


@command("cksum")
async def cksum(inv: Invocation) -> int:
    args = parse_or_report(inv, ToySpec("cksum", flags="HIPLN"))
    if args is None:
        return 1
    status = 0
    for path in args.operands or ["-"]:
        try:
            line, failed = await cksum_line(inv, path, args.flags, bool(args.operands))
            inv.out(line)
            status |= failed
        except CommandError as exc:
            status = report(inv, exc)
    return status


@command("toybox", "busybox")
async def toybox(inv: Invocation) -> int:
    if len(inv.argv) < 2:
        inv.out(" ".join(sorted(n for n in COMMANDS if n.isalnum())) + "\n")
        return 0
    fn = COMMANDS.get(inv.argv[1])
    if fn is None or inv.argv[1] in ("toybox", "busybox"):
        inv.err(f"Unknown command {inv.argv[1]}\n")
        return 1
    inv.argv = inv.argv[1:]
    return await fn(inv)


@command("df")
async def df(inv: Invocation) -> int:
    """/data (and shared storage on it) is the device's space (system/space.py): its size, what the
    device's files take; the read-only system partition shows the host's disk as before."""
    host = shutil.disk_usage(inv.fs.root)
    space = inv.fs.space
    space.recount_if_freed()
    data = (space.size // 1024, min(space.used(), space.size) // 1024)
    inv.out("Filesystem     1K-blocks    Used Available Use% Mounted on\n")
    for name, size, taken, mount in (
        ("/dev/block/dm-0", host.total // 1024, host.used // 1024, "/"),
        ("/dev/block/vdc", *data, "/data"),
        ("/dev/fuse", *data, "/storage/emulated"),
    ):
        pct = f"{-(-taken * 100 // size) if size else 0}%"  # df rounds the percentage up
        inv.out(f"{name:<14} {size:>9} {taken:>7} {size - taken:>9} {pct:>4} {mount}\n")
    return 0


@command("mount")
async def mount(inv: Invocation) -> int:
    inv.out(
        "/dev/block/dm-0 on / type ext4 (ro,seclabel,relatime)\n"
        "/dev/block/vdc on /data type ext4 (rw,seclabel,nosuid,nodev,noatime)\n"
        "/dev/fuse on /storage/emulated type fuse (rw,lazytime,nosuid,nodev,noexec,noatime)\n"
    )
    return 0


@command("readlink", "realpath")
async def readlink(inv: Invocation) -> int:
    flags, paths = split_flags(inv.argv[1:], "fenqm")
    status = 0
    for path in paths:
        fs = inv.fs
        try:
            if inv.argv[0] == "realpath" or flags & {"f", "e", "m"}:
                inv.out(fs.canonical(path, inv.cwd) + "\n")
            elif fs.is_link(path, inv.cwd):
                inv.out(fs.readlink(path, inv.cwd) + "\n")
            else:
                status = 1
        except (OSError, PathEscapeError):
            status = 1
    return status
