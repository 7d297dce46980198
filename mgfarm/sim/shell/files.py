"""File commands as toybox prints them: cat, ls, rm, mkdir, cp, mv, touch, find, stat, ln, md5sum..."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import posixpath
import shutil
import stat as statmod
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mgfarm.sim.shell.registry import COMMANDS, Invocation, command
from mgfarm.sim.system.fs import PathEscapeError


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


def host_path(inv: Invocation, path: str) -> Path:
    try:
        return inv.device.fs.host(path, inv.cwd)
    except PathEscapeError as exc:
        raise CommandError(f"{path}: Permission denied") from exc


def device_path(inv: Invocation, path: str) -> str:
    return inv.device.fs.normalize(path, inv.cwd)


def exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


async def read_input(inv: Invocation, path: str) -> bytes:
    """The bytes of a file operand, or stdin for `-`."""
    if path == "-":
        return await inv.io.stdin.read()
    host = host_path(inv, path)
    if host.is_dir():
        raise CommandError(f"{path}: Is a directory")
    if not host.exists():
        raise CommandError(f"{path}: No such file or directory")
    return host.read_bytes()


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


@command("cat")
async def cat(inv: Invocation) -> int:
    _, files = split_flags(inv.argv[1:], "uvet")
    status = 0
    async for _, data in each_input(inv, files):
        if data is None:
            status = 1
        else:
            inv.out(data)
        await inv.io.stdout.maybe_flush()
    return status


def mode_string(st: os.stat_result) -> str:
    return statmod.filemode(st.st_mode)


def owner(path: str) -> tuple[str, str]:
    if path.startswith("/storage") or path.startswith("/sdcard"):
        return "root", "sdcard_rw"
    if path.startswith("/data/local/tmp"):
        return "shell", "shell"
    return "root", "root"


def long_line(inv: Invocation, host: Path, device: str, name: str) -> list[str]:
    st = host.lstat()
    user, group = owner(device)
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(st.st_mtime))
    shown = name
    if host.is_symlink():
        shown += " -> " + readlink_device(inv, host)
    return [mode_string(st), str(st.st_nlink), user, group, str(st.st_size), when, shown]


def readlink_device(inv: Invocation, host: Path) -> str:
    """A symlink's target as a device path (links are stored relative inside the root)."""
    target = os.readlink(host)
    if os.path.isabs(target):
        return target
    resolved = os.path.normpath(os.path.join(host.parent, target))
    root = str(inv.device.fs.root)
    return "/" + os.path.relpath(resolved, root) if resolved.startswith(root) else target


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


def sorted_names(host: Path, flags: set[str]) -> list[str]:
    """Folder entries in `ls` order: by name, newest first (-t) or largest first (-S); -r reverses."""
    names = sorted(p.name for p in host.iterdir())
    if "t" in flags:
        names.sort(key=lambda n: (host / n).lstat().st_mtime_ns, reverse=True)
    elif "S" in flags:
        names.sort(key=lambda n: (host / n).lstat().st_size, reverse=True)
    return names[::-1] if "r" in flags else names


def list_dir(inv: Invocation, host: Path, device: str, flags: set[str]) -> tuple[str, list[tuple[Path, str]]]:
    names = sorted_names(host, flags)
    if "a" not in flags:
        names = [n for n in names if not n.startswith(".")]
    entries = [(host / n, posixpath.join(device, n), n) for n in names]
    if "a" in flags:
        entries = [(host, device, "."), (host.parent, posixpath.dirname(device), ".."), *entries]
    if "l" in flags:
        rows = [long_line(inv, h, d, n) for h, d, n in entries]
        blocks = sum((h.lstat().st_blocks + 1) // 2 for h, _, _ in entries)
        text = f"total {blocks}\n" + format_rows(rows)
    else:
        text = "".join(n + "\n" for _, _, n in entries)
    subdirs = [(h, d) for h, d, n in entries if n not in (".", "..") and h.is_dir() and not h.is_symlink()]
    return text, subdirs


@command("ls")
async def ls(inv: Invocation) -> int:
    flags, paths = split_flags(inv.argv[1:], "laRA1dhtrSsZnF")
    if "A" in flags:
        flags.discard("A")
    status = 0
    files: list[list[str] | str] = []
    dirs: list[tuple[Path, str, str]] = []
    for path in paths or ["."]:
        try:
            host = host_path(inv, path)
        except CommandError as exc:
            status = report(inv, exc)
            continue
        if not exists(host):
            inv.err(f"ls: {path}: No such file or directory\n")
            status = 1
        elif host.is_dir() and "d" not in flags:
            dirs.append((host, device_path(inv, path), path))
        else:
            files.append(long_line(inv, host, device_path(inv, path), path) if "l" in flags else path + "\n")
    rows = [f for f in files if isinstance(f, list)]
    inv.out(format_rows(rows) + "".join(f for f in files if isinstance(f, str)))
    show_header = len(paths) > 1 or "R" in flags
    queue = list(dirs)
    first = not files
    while queue:
        host, dev, shown = queue.pop(0)
        text, subdirs = list_dir(inv, host, dev, flags)
        if show_header:
            inv.out(("" if first else "\n") + f"{shown}:\n")
        first = False
        inv.out(text)
        await inv.io.stdout.maybe_flush()
        if "R" in flags:
            children = [(h, d, posixpath.join(shown, h.name)) for h, d in subdirs]
            queue[0:0] = children
    return status


@command("rm")
async def rm(inv: Invocation) -> int:
    flags, paths = split_flags(inv.argv[1:], "rRfiv")
    force, recursive = "f" in flags, bool(flags & {"r", "R"})
    if not paths and not force:
        inv.err("rm: Needs 1 argument\n")
        return 1
    status = 0
    for path in paths:
        try:
            host = host_path(inv, path)
            if host == inv.device.fs.root:
                raise CommandError(f"{path}: Device or resource busy")
            if not exists(host):
                if not force:
                    raise CommandError(f"{path}: No such file or directory")
                continue
            if host.is_dir() and not host.is_symlink():
                if not recursive:
                    raise CommandError(f"{path}: Is a directory")
                shutil.rmtree(host)
            else:
                host.unlink()
        except CommandError as exc:
            status = report(inv, exc)
    return status


@command("rmdir")
async def rmdir(inv: Invocation) -> int:
    status = 0
    for path in split_flags(inv.argv[1:], "p")[1]:
        try:
            host_path(inv, path).rmdir()
        except OSError as exc:
            inv.err(f"rmdir: {path}: {exc.strerror}\n")
            status = 1
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
            host = host_path(inv, path)
            if exists(host) and not ("p" in flags and host.is_dir()):
                raise CommandError(f"{path}: File exists")
            if not host.parent.is_dir() and "p" not in flags:
                raise CommandError(f"{path}: No such file or directory")
            host.mkdir(parents=True, exist_ok=True)
        except CommandError as exc:
            status = report(inv, exc)
    return status


@command("touch")
async def touch(inv: Invocation) -> int:
    flags, paths = split_flags(inv.argv[1:], "acmh")
    status = 0
    for path in paths:
        try:
            host = host_path(inv, path)
            if not host.parent.is_dir():
                raise CommandError(f"{path}: No such file or directory")
            if not exists(host) and "c" in flags:
                continue
            now = inv.device.services["clock"].now() if "clock" in inv.device.services else time.time()
            host.touch()
            os.utime(host, (now, now))
        except CommandError as exc:
            status = report(inv, exc)
    return status


def _copy_targets(inv: Invocation, operands: list[str]) -> Iterator[tuple[str, Path, Path]]:
    """(source operand, source host path, destination host path) for cp/mv's two forms."""
    if len(operands) < 2:
        raise CommandError("Needs 2 arguments")
    dest = host_path(inv, operands[-1])
    sources = operands[:-1]
    if len(sources) > 1 and not dest.is_dir():
        raise CommandError(f"{operands[-1]}: Not a directory")
    for src in sources:
        shost = host_path(inv, src)
        target = dest / shost.name if dest.is_dir() else dest
        yield src, shost, target


def _each_copy(inv: Invocation, operands: list[str], one: Callable[[str, Path, Path], None]) -> int:
    """Runs `one(src, source host path, target host path)` for each cp/mv source that exists,
    reporting a failed source and going on to the next; a bad operand list stops it all."""
    status = 0
    try:
        for src, shost, target in _copy_targets(inv, operands):
            try:
                if not exists(shost):
                    raise CommandError(f"{src}: No such file or directory")
                one(src, shost, target)
            except CommandError as exc:
                status = report(inv, exc)
    except CommandError as exc:
        return report(inv, exc)
    return status


@command("cp")
async def cp(inv: Invocation) -> int:
    flags, operands = split_flags(inv.argv[1:], "rRafpdPLnuvi")
    recursive = bool(flags & {"r", "R", "a"})

    def copy(src: str, shost: Path, target: Path) -> None:
        if shost.is_dir():
            if not recursive:
                raise CommandError(f"{src}: Is a directory (use -r)")
            if target == shost or shost in target.parents:
                raise CommandError(f"{src}: cannot copy a directory into itself")
            shutil.copytree(shost, target, symlinks=True, dirs_exist_ok=True)
        elif "n" in flags and exists(target):
            return
        else:
            if not target.parent.is_dir():
                raise CommandError(f"{src}: No such file or directory")
            shutil.copy2(shost, target, follow_symlinks=False)

    return _each_copy(inv, operands, copy)


@command("mv")
async def mv(inv: Invocation) -> int:
    _, operands = split_flags(inv.argv[1:], "fniv")

    def move(src: str, shost: Path, target: Path) -> None:
        if shost == inv.device.fs.root or shost in target.parents:
            raise CommandError(f"{src}: Invalid argument")
        if not target.parent.is_dir():
            raise CommandError(f"{operands[-1]}: No such file or directory")
        shutil.move(str(shost), str(target))

    return _each_copy(inv, operands, move)


@command("ln")
async def ln(inv: Invocation) -> int:
    flags, operands = split_flags(inv.argv[1:], "sfnv")
    if "s" not in flags or len(operands) != 2:
        inv.err("ln: only `ln -s TARGET LINK` is supported\n")
        return 1
    target, link = operands
    try:
        thost = host_path(inv, target)  # refuses targets outside the root
        lhost = host_path(inv, link)
        if lhost.is_dir() and not lhost.is_symlink():
            lhost = lhost / thost.name
        if exists(lhost):
            if "f" not in flags:
                raise CommandError(f"{link}: File exists")
            lhost.unlink()
        # Relative on the host so the link stays valid when a snapshot copies the root elsewhere.
        lhost.symlink_to(os.path.relpath(thost, lhost.parent))
    except CommandError as exc:
        return report(inv, exc)
    return 0


@command("chmod", "chown", "chgrp", "chcon", "restorecon", "sync")
async def accept(inv: Invocation) -> int:
    """Permissions are not modelled; these succeed when their operands exist."""
    operands = [a for a in inv.argv[2:] if not a.startswith("-")] if inv.argv[0] != "sync" else []
    status = 0
    for path in operands:
        try:
            if not exists(host_path(inv, path)):
                raise CommandError(f"{path}: No such file or directory")
        except CommandError as exc:
            status = report(inv, exc)
    return status


def _walk(host: Path, dev: str, depth: int) -> Iterator[tuple[Path, str, int]]:
    yield host, dev, depth
    if host.is_dir() and not host.is_symlink():
        for child in sorted(host.iterdir(), key=lambda p: p.name):
            yield from _walk(child, posixpath.join(dev, child.name), depth + 1)


@dataclass
class FindQuery:
    """A parsed `find` command line."""

    paths: list[str]
    tests: list[tuple[str, str]] = field(default_factory=list)  # ("-name", pattern); "!-name" negated
    maxdepth: int = 1 << 30
    mindepth: int = 0
    delete: bool = False
    exec_argv: list[str] = field(default_factory=list)
    printing: bool | None = None  # None: print unless an action (-delete, -exec) is given

    @property
    def prints(self) -> bool:
        return bool(self.printing or (self.printing is None and not self.delete and not self.exec_argv))


def parse_find(args: list[str]) -> FindQuery:
    args = list(args)
    paths: list[str] = []
    while args and not args[0].startswith("-") and args[0] not in ("(", "!"):
        paths.append(args.pop(0))
    query = FindQuery(paths or ["."])
    negate = False
    while args:
        opt = args.pop(0)
        if opt in ("-print", "-delete", "-xdev", "!", "-not"):
            query.printing = True if opt == "-print" else query.printing
            query.delete = query.delete or opt == "-delete"
            negate = opt in ("!", "-not")
            continue
        if opt == "-exec":
            while args and args[0] not in (";", "+"):
                query.exec_argv.append(args.pop(0))
            if not args or not query.exec_argv:
                raise CommandError("-exec needs a command ending in ';'")
            args.pop(0)
            continue
        if not args:
            raise CommandError(f"'{opt}' needs 1 arg")
        value = args.pop(0)
        if opt in ("-maxdepth", "-mindepth"):
            setattr(query, opt[1:], int(value))
        elif opt in ("-name", "-iname", "-type", "-path"):
            query.tests.append((("!" if negate else "") + opt, value))
            negate = False
        else:
            raise CommandError(f"Unknown option '{opt}'")
    return query


def find_matches(host: Path, shown: str, query: FindQuery) -> list[tuple[Path, str]]:
    return [
        (h, path)
        for h, path, depth in _walk(host, shown, 0)
        if query.mindepth <= depth <= query.maxdepth
        and all(_find_test(h, path, t, v) for t, v in query.tests)
    ]


@command("find")
async def find(inv: Invocation) -> int:
    try:
        query = parse_find(inv.argv[1:])
    except CommandError as exc:
        return report(inv, exc)
    status = 0
    for path in query.paths:
        try:
            host = host_path(inv, path)
            if not exists(host):
                raise CommandError(f"'{path}': No such file or directory")
        except CommandError as exc:
            status = report(inv, exc)
            continue
        matched = find_matches(host, path, query)
        if query.prints:
            inv.out("".join(shown + "\n" for _, shown in matched))
        if query.exec_argv:
            status = await _find_exec(inv, query.exec_argv, [shown for _, shown in matched]) or status
        if query.delete:
            for h, _ in reversed(matched):
                if h.is_dir() and not h.is_symlink():
                    h.rmdir()
                else:
                    h.unlink()
        await inv.io.stdout.maybe_flush()
    return status


async def _find_exec(inv: Invocation, argv: list[str], paths: list[str]) -> int:
    """Runs `-exec CMD {} ;` once per match through the shell's command table."""
    from mgfarm.sim.shell.interp import Shell

    shell = Shell(inv.device, dict(inv.env), inv.cwd)
    status = 0
    for path in paths:
        status = await shell.call([a.replace("{}", path) for a in argv], inv.io) or status
    return status


def _find_test(host: Path, shown: str, test: str, value: str) -> bool:
    negate = test.startswith("!")
    test = test.lstrip("!")
    name = posixpath.basename(shown.rstrip("/")) or shown
    if test == "-name":
        ok = fnmatch.fnmatchcase(name, value)
    elif test == "-iname":
        ok = fnmatch.fnmatchcase(name.lower(), value.lower())
    elif test == "-path":
        ok = fnmatch.fnmatchcase(shown, value)
    else:
        kinds = {"f": host.is_file() and not host.is_symlink(), "d": host.is_dir() and not host.is_symlink()}
        kinds["l"] = host.is_symlink()
        ok = kinds.get(value, False)
    return ok != negate


FILE_TYPES = {"regular file": statmod.S_ISREG, "directory": statmod.S_ISDIR, "symbolic link": statmod.S_ISLNK}


def _file_type(st: os.stat_result) -> str:
    for name, check in FILE_TYPES.items():
        if check(st.st_mode):
            return "regular empty file" if name == "regular file" and st.st_size == 0 else name
    return "special file"


def _stat_field(inv: Invocation, host: Path, shown: str, st: os.stat_result, key: str) -> str:
    user, group = owner(device_path(inv, shown))
    stamp = time.strftime("%Y-%m-%d %H:%M:%S.000000000 +0000", time.gmtime(st.st_mtime))
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
        "X": str(int(st.st_atime)),
        "Z": str(int(st.st_ctime)),
        "y": stamp,
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
    operands = []
    while args:
        arg = args.pop(0)
        if arg in ("-c", "--format") and args:
            fmt = args.pop(0)
        elif arg.startswith("-c") and len(arg) > 2:
            fmt = arg[2:]
        elif arg in ("-L", "-t"):
            continue
        else:
            operands.append(arg)
    if fmt is None:
        fmt = (
            "  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: 4096\t%F\nDevice: fd00h/64768d\t Inode: %i\t "
            "Links: %h\nAccess: (0%a/%A)\tUid: (    %u/    %U)\tGid: (    %g/    %G)\nAccess: %y\n"
            "Modify: %y\nChange: %y"
        )
    status = 0
    for path in operands:
        try:
            host = host_path(inv, path)
            if not exists(host):
                raise CommandError(f"{path}: No such file or directory")
        except CommandError as exc:
            status = report(inv, exc)
            continue
        st = host.lstat()
        out: list[str] = []
        i = 0
        while i < len(fmt):
            if fmt[i] == "%" and i + 1 < len(fmt):
                out.append(_stat_field(inv, host, path, st, fmt[i + 1]))
                i += 2
            else:
                out.append(fmt[i])
                i += 1
        inv.out("".join(out) + "\n")
    return status


def _digest_command(algo: str) -> None:
    async def run(inv: Invocation) -> int:
        flags, files = split_flags(inv.argv[1:], "bc")
        status = 0
        async for path, data in each_input(inv, files):
            if data is None:
                status = 1
                continue
            digest = hashlib.new(algo, data).hexdigest()
            inv.out(digest + "\n" if "b" in flags else f"{digest}  {path}\n")
        return status

    command(f"{algo}sum")(run)


for _algo in ("md5", "sha1", "sha256"):
    _digest_command(_algo)


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
    usage = shutil.disk_usage(inv.device.fs.root)
    total, used, free = usage.total // 1024, usage.used // 1024, usage.free // 1024
    pct = f"{(used * 100 // total) if total else 0}%"
    inv.out("Filesystem     1K-blocks    Used Available Use% Mounted on\n")
    for name, mount in (
        ("/dev/block/dm-0", "/"),
        ("/dev/block/vdc", "/data"),
        ("/dev/fuse", "/storage/emulated"),
    ):
        inv.out(f"{name:<14} {total:>9} {used:>7} {free:>9} {pct:>4} {mount}\n")
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
        try:
            host = host_path(inv, path)
        except CommandError as exc:
            status = report(inv, exc)
            continue
        if inv.argv[0] == "realpath" or flags & {"f", "e", "m"}:
            inv.out(inv.device.fs.device_path(host) + "\n")
        elif host.is_symlink():
            inv.out(readlink_device(inv, host) + "\n")
        else:
            status = 1
    return status
