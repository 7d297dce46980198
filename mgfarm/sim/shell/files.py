"""File commands as toybox prints them: cat, rm, mkdir, cp, mv, touch, find, stat, ln, md5sum...

Every file operation goes through the device filesystem's descriptor-based calls (`inv.fs`),
resolved at the moment of use beneath the device root: no check by path and then use by path.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
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
from pathlib import Path
from typing import Any, TypeVar

from mgfarm.sim.shell.interp import PIPE_LIMIT
from mgfarm.sim.shell.registry import COMMANDS, Invocation, command
from mgfarm.sim.shell.safe_regex import run_bounded
from mgfarm.sim.shell.system import local_zone, parse_date
from mgfarm.sim.shell.toyargs import ToySpec, parse_or_report
from mgfarm.sim.system.fs import (
    ENDLESS_NODES,
    SKELETON_LINKS,
    AccessDenied,
    DeviceFS,
    PathEscapeError,
    access_ns,
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


def is_folder(inv: Invocation, path: str) -> bool:
    """Whether a file operand names a folder: open(2) opens one, and a command's read of it fails
    later (or quietly), which each command reports in its own way."""
    return path != "-" and kind(inv, path) == statmod.S_IFDIR


async def read_file(inv: Invocation, path: str) -> bytes:
    """A file operand's bytes; a folder reads as nothing (a command that says so checks
    `is_folder`)."""
    return b"" if is_folder(inv, path) else await read_input(inv, path)


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


@functools.lru_cache(maxsize=4096)
def owner(path: str) -> tuple[str, str]:
    """Android's owner and group of a device path (by path: the sim keeps no owners); kept, as
    `ls -lR` asks for every entry more than once."""
    if path in SKELETON_LINKS:
        return "root", "root"
    if path.startswith("/system/bin/"):
        return "root", "shell"
    if DeviceFS.normalize(path).startswith("/storage/emulated"):
        return "root", "sdcard_rw"
    if path.startswith("/data/local/tmp"):
        return "shell", "shell"
    return "root", "root"


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


def touch_entry(inv: Invocation, path: str, atime: int | None, mtime: int | None) -> bool:
    """`touch -h`: the times of the entry itself, a link's own rather than its target's (None keeps
    one); False when there is no such entry (touch then creates a file, as toybox does)."""
    with inv.fs.locate(path, inv.cwd, follow=False) as loc:
        try:
            st = loc.lstat()
        except FileNotFoundError:
            return False
        inv.fs.check(loc.path, "w", path)
        times = (access_ns(st) if atime is None else atime, st.st_mtime_ns if mtime is None else mtime)
        os.utime(loc.name, ns=times, dir_fd=loc.dir_fd, follow_symlinks=False)
    return True


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
            chosen = (atime if both or "a" in flags else None, mtime if both or "m" in flags else None)
            if "h" in flags and fs_call(path, touch_entry, inv, path, *chosen):
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
        spec = ToySpec(name, flags="bcs", longs={"check": "c", "status": "s"}, exclusive=("bc",))
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
