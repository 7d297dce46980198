"""The device filesystem: Android paths inside one host folder, resolved so that nothing can leave it.

Every operation walks its path from a descriptor of the root, one component at a time with
O_NOFOLLOW, at the moment of use: symlinks are followed by this walk with chroot semantics (an
absolute target starts again at the device root, `..` stops at it), never by the kernel. A device
symlink is stored on the host with a target that starts with LINK_DIR, a name that never exists, so
any host code that follows it by path (SQLite, a snapshot copy, an app) finds nothing.

Every change made through this class is stamped with the device's clock (`now`), not the host's: the
entry written or created gets that mtime, and so does the folder whose entries changed, as the
device's kernel would stamp them. The host kernel stamps ctime itself and nothing can set it, as on
a device; the device reports it in device time (`change_ns`).
"""

from __future__ import annotations

import contextlib
import copy
import errno
import os
import posixpath
import shutil
import stat as statmod
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from mgfarm.sim.system.space import BLOCK, DEFAULT_STORAGE, Space, no_space

# Folders every device has, as on a stock emulator image (`ls /` on the pinned Android 13 one).
SKELETON = (
    "data/data",
    "data/app",
    "data/local/tmp",
    "data/system",
    "data/misc",
    "data/user",
    "storage/emulated/0/DCIM",
    "storage/emulated/0/Pictures",
    "storage/emulated/0/Download",
    "storage/emulated/0/Documents",
    "storage/emulated/0/Music",
    "storage/emulated/0/Movies",
    "storage/emulated/0/Alarms",
    "storage/self",
    "mnt/user/0",
    "system/bin",
    "system/etc",
    "system/app",
    "system/priv-app",
    "system_ext",
    "product",
    "vendor",
    "odm",
    "apex",
    "acct",
    "config",
    "metadata",
    "linkerconfig",
    "proc",
    "sys/kernel",
    "dev",
    "cache",
)
# Its links (init.rc and vold make them): device path -> target. /sdcard reaches shared storage
# through two of them, and /data/user/0 is the primary user's /data/data.
SKELETON_LINKS = {
    "/sdcard": "/storage/self/primary",
    "/storage/self/primary": "/mnt/user/0/primary",
    "/mnt/user/0/primary": "/storage/emulated/0",
    "/data/user/0": "/data/data",
    "/etc": "/system/etc",
    "/bin": "/system/bin",
    "/d": "/sys/kernel/debug",
}
# Files of the system image tools read.
SKELETON_FILES = {"/system/etc/hosts": b"127.0.0.1       localhost\n::1             ip6-localhost\n"}

# Android's own aliases, resolved before mapping so that `/sdcard/x` and `/storage/emulated/0/x` are
# one file without walking the links above each time. A path that names one of those links itself is
# the link when not followed (`ls -l /sdcard`, `readlink`, `find /sdcard` as toybox's, which stays on it).
ALIASES = {
    "/sdcard": "/storage/emulated/0",
    "/storage/self/primary": "/storage/emulated/0",
    "/mnt/sdcard": "/storage/emulated/0",
    "/data/media/0": "/storage/emulated/0",  # the backing store, as root sees it
}

ALIAS_TARGETS = frozenset(ALIASES.values())

# Host symlink targets start with this folder name, which no device path may contain: the kernel
# never resolves a device link on the host. The device sees the rest of the target.
LINK_DIR = "..mgfarm-link.."
LINK_PREFIX = LINK_DIR + "/"
MAX_LINKS = 40  # symlinks followed in one lookup, as Linux allows (then ELOOP)
MAX_TREE_DEPTH = 256  # folders deep a walk or a copy goes (a tree copied into itself ends here)
DIR_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


WRITE_MODES = os.O_WRONLY | os.O_RDWR
# os.stat_result's fields after the ten of its tuple, in the order its constructor takes them.
STAT_EXTRA = (
    "st_atime",
    "st_mtime",
    "st_ctime",
    "st_atime_ns",
    "st_mtime_ns",
    "st_ctime_ns",
    "st_blksize",
    "st_blocks",
    "st_rdev",
)

# Device nodes a shell reads and writes as on a device, through the host's own (which a confined
# worker may open): /dev/zero reads zeros, /dev/urandom and /dev/random random bytes, /dev/null
# nothing, and what is written to any of them is discarded, never counted against the partition.
DEVICE_NODES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")
ENDLESS_NODES = DEVICE_NODES[1:]  # reads never end

# The folder of the image's programs (`fs.programs`), and the time its files carry (the build's).
PROGRAMS = "/system/bin"
IMAGE_TIME = 1_230_768_000  # 2009-01-01 00:00 UTC: the date Android's build stamps system files with


def made_stat(mode: int, gid: int, ns: int) -> os.stat_result:
    """The stat of a file the device makes (/proc, a program): empty, root's, all times `ns`."""
    secs = ns // 1_000_000_000
    fields = (statmod.S_IFREG | mode, 0, 0, 1, 0, gid, 0, secs, secs, secs)
    return os.stat_result(fields + (float(secs),) * 3 + (ns,) * 3 + (BLOCK, 0, 0))


PROGRAM_STAT = made_stat(0o755, 2000, IMAGE_TIME * 10**9)

# Who a shell command runs as (adbd's uid, or su's). The device's own services and apps are not checked.
ROOT, SYSTEM, SHELL = 0, 1000, 2000
USER_NAMES = {ROOT: "root", SYSTEM: "system", SHELL: "shell"}
# Mounted read-write on an Android 13 emulator; every other path is on the read-only system image
# (`/`, /system, /vendor, /etc...): creating, changing or removing anything there is EROFS, root or not.
WRITABLE = ("/data/", "/storage/emulated/", "/dev/", "/cache/")
# What any uid but root may change: its own /data/local/tmp and shared storage (MediaProvider's FUSE
# mount lets the shell in, Android/data included).
SHELL_WRITABLE = ("/data/local/tmp/", "/storage/emulated/")
# Folders of /data the shell user may pass through (their x bit) but not list: /data, /data/data and
# the like are drwxrwx--x. Apps' own folders (0700), /data/system and the rest of /data are EACCES.
PASS_THROUGH = frozenset({"/data", "/data/local", "/data/data", "/data/user", "/data/user/0", "/data/app"})
# Shared storage is MediaProvider's FUSE mount: its FuseDaemon has no symlink (or link) operation, so
# a shell cannot make a link there (ENOSYS), as root either, nor move or copy one in from /data.
SHARED_STORAGE = "/storage/emulated/"


def shell_may_read(path: str) -> bool:
    """Whether a uid other than root may read or list the canonical device path `path`: anything
    outside /data, its /data/local/tmp, and the installed APKs (`adb pull` of a `pm path`)."""
    if path != "/data" and not path.startswith("/data/"):
        return True
    return path == "/data/local/tmp" or path.startswith(("/data/local/tmp/", "/data/app/"))


def shell_may_pass(path: str) -> bool:
    """Whether a uid other than root may pass through the folder `path` to what is in it."""
    return path in PASS_THROUGH or shell_may_read(path)


class AccessDenied(OSError):
    """What this uid may not do (EACCES) or nobody may (EROFS); `filename` is the path as typed."""


def denied(errno_: int, path: str) -> AccessDenied:
    return AccessDenied(errno_, os.strerror(errno_), path)


def access_ns(st: os.stat_result) -> int:
    """The device's atime of an entry. A device mounts its data partition noatime: reading never
    moves it (AndroidWorld's Markor checks compare `ls -au` times before and after). The host
    kernel's does, without moving the ctime, so an atime past the ctime is a read's: the device
    shows the mtime then, which every stamp of a file created sets its atime to as well."""
    return st.st_atime_ns if st.st_atime_ns <= st.st_ctime_ns else st.st_mtime_ns


def change_ns(st: os.stat_result, device_ns: Callable[[int], int]) -> int:
    """The device's ctime of an entry: the host kernel's, in device time (`SimDevice.device_ns`).
    Nothing sets it (`touch` sets the others), so it moves whenever an entry's bytes or metadata do."""
    return device_ns(st.st_ctime_ns)


class PathEscapeError(ValueError):
    """A device path the sandbox refuses (it names the reserved link folder)."""


@dataclass
class Located:
    """A resolved path: a descriptor of its parent folder, the last component, the canonical path.

    `name` may not exist yet (for creation); it is "." for the root itself. Close it after use.
    """

    dir_fd: int
    name: str
    path: str

    def close(self) -> None:
        os.close(self.dir_fd)

    def __enter__(self) -> Located:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def lstat(self) -> os.stat_result:
        return os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=False)

    def open(self, flags: int, mode: int = 0o666) -> int:
        """A descriptor of the entry itself; a symlink swapped in since the lookup fails with ELOOP."""
        return os.open(self.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=self.dir_fd)


def _host_target(target: str) -> str:
    return LINK_PREFIX + target


def device_link_target(raw: str, root: str) -> str:
    """The device's view of a host symlink target (links made before LINK_DIR are read as well)."""
    if raw.startswith(LINK_PREFIX):
        return raw[len(LINK_PREFIX) :]
    if raw == root or raw.startswith(root + "/"):
        return raw[len(root) :] or "/"
    return raw


class DeviceFS:
    """Android paths under `root`; every method resolves beneath it at the moment of the call."""

    def __init__(self, root: Path, now: Callable[[], float] = time.time, size: int = DEFAULT_STORAGE) -> None:
        self.root = root.resolve()
        self.now = now  # the device clock, in seconds since the epoch
        self.space = Space(self.root, size)  # every write below is counted against it first
        # Descriptors opened for writing by `open`, with the mtime they had then: `close` restamps
        # one whose mtime the host kernel has changed since (a write happened).
        self._writers: dict[int, int] = {}
        # The uid whose permissions every call is checked with (`as_user`); None: the device itself.
        self.uid: int | None = None
        self._views: dict[int, DeviceFS] = {}
        self._nodes: set[int] = set()  # descriptors `open` gave for device nodes
        # Files made when read, by device path (/proc: system/procfs.py); read-only, size 0 as procfs.
        self.virtual: dict[str, Callable[[], bytes]] = {}
        # The names of the programs in /system/bin (the shell's commands), listed and stat'ed there
        # as the image's executables; they read as empty. Set by the device, read when asked.
        self.programs: Callable[[], Collection[str]] | None = None

    def as_user(self, uid: int) -> DeviceFS:
        """This filesystem as a shell running as `uid` sees it: the system image is read-only, and a
        uid other than root reaches only what the shell user may (`shell_may_read`, `SHELL_WRITABLE`)."""
        view = self._views.get(uid)
        if view is None:
            view = copy.copy(self)  # the same root, space and open writers
            view.uid = uid
            view._views = {}
            self._views[uid] = view
        return view

    # -- permissions -------------------------------------------------------------------------------

    def check(self, path: str, mode: str, shown: str | None = None) -> None:
        """Whether this filesystem's uid may do `mode` to the canonical device path `path`: "r" read
        or list it, "x" pass through it, "w" change it (create, write, remove, rename, set times or
        mode). OSError EROFS or EACCES (naming `shown`, else `path`) when it may not; the device
        itself may do anything."""
        if self.uid is None:
            return
        name = path if shown is None else shown
        if mode == "w":
            if not path.startswith(WRITABLE):
                raise denied(errno.EROFS, name)
            if self.uid != ROOT and not path.startswith(SHELL_WRITABLE):
                raise denied(errno.EACCES, name)
        elif self.uid != ROOT and not (shell_may_pass(path) if mode == "x" else shell_may_read(path)):
            raise denied(errno.EACCES, name)

    def _no_links_there(self, path: str, shown: str) -> None:
        """ENOSYS for a checked caller when the canonical `path` is in shared storage: no symlink
        can be made there."""
        if self.uid is not None and path.startswith(SHARED_STORAGE):
            raise denied(errno.ENOSYS, shown)

    def access(self, path: str, mode: str, cwd: str = "/", follow: bool | None = None) -> None:
        """`check` for a path as typed (symlinks resolved, but the last one for "w" unless `follow`:
        removing or making an entry changes its folder; a missing entry is checked by its name)."""
        follow = mode != "w" if follow is None else follow
        with self.locate(path, cwd, follow=follow, lenient=True) as loc:
            self.check(loc.path, mode, path)

    # -- time stamps ------------------------------------------------------------------------------

    def now_ns(self) -> int:
        return int(self.now() * 1000) * 1_000_000  # the clock keeps milliseconds

    def _stamp_at(self, dir_fd: int, name: str, created: bool = False, when_ns: int | None = None) -> None:
        """Give the entry `name` of `dir_fd` the device time (never following a link); its atime
        too when it was just created. A time stamp never makes the write itself fail."""
        when = self.now_ns() if when_ns is None else when_ns
        with contextlib.suppress(OSError):
            atime = when if created else access_ns(os.stat(name, dir_fd=dir_fd, follow_symlinks=False))
            os.utime(name, ns=(atime, when), dir_fd=dir_fd, follow_symlinks=False)

    def _stamp_dir(self, dir_fd: int) -> None:
        """The folder of `dir_fd` had entries added or removed: its mtime is the device time."""
        self._stamp_at(dir_fd, ".")

    def _stamp_fd(self, fd: int, created: bool = False) -> int:
        """Stamp an open file with the device time; returns the mtime set (ns), or -1 on failure."""
        when = self.now_ns()
        try:
            atime = when if created else access_ns(os.fstat(fd))
            os.utime(fd, ns=(atime, when))
        except OSError:
            return -1
        return when

    def create_skeleton(self) -> None:
        for rel in SKELETON:
            (self.root / rel).mkdir(parents=True, exist_ok=True)
        for link, target in SKELETON_LINKS.items():
            host = self.root / link.lstrip("/")
            if not host.is_symlink() and not host.exists():
                host.symlink_to(_host_target(target))
        for path, data in SKELETON_FILES.items():
            host = self.root / path.lstrip("/")
            if not host.exists():
                host.write_bytes(data)

    @staticmethod
    def normalize(path: str, cwd: str = "/", aliases: bool = True) -> str:
        """An absolute, normalised Android path with aliases applied; `..` never climbs above /."""
        joined = path if path.startswith("/") else posixpath.join(cwd, path)
        norm = posixpath.normpath("/" + joined.lstrip("/"))
        if norm.startswith("//"):
            norm = "/" + norm.lstrip("/")
        if not aliases:
            return norm
        for alias, target in ALIASES.items():
            if norm == alias or norm.startswith(alias + "/"):
                norm = target + norm[len(alias) :]
                break
        return norm

    # -- resolution -------------------------------------------------------------------------------

    def locate(self, path: str, cwd: str = "/", follow: bool = True, lenient: bool = False) -> Located:
        """Walk `path` from the root. Symlinks in folders are followed (in device terms); the last
        component too when `follow`. Raises FileNotFoundError/NotADirectoryError for a missing or
        non-folder parent (unless `lenient`: then `path` names the missing rest as typed), OSError(ELOOP)
        for too many links, PathEscapeError for the reserved name."""
        norm = self.normalize(path, cwd)
        follow = follow or (path.endswith("/") and norm != "/")  # `link/` names what it points at
        if not follow and norm in ALIAS_TARGETS:
            plain = self.normalize(path, cwd, aliases=False)
            if plain in SKELETON_LINKS and plain != norm and (self.root / plain[1:]).is_symlink():
                norm = plain  # the link itself (a tree saved before it existed has none: the alias)
        todo = [c for c in norm.split("/") if c]
        stack: list[tuple[int, str]] = [(os.open(self.root, DIR_FLAGS), "")]
        hops = 0
        try:
            while todo:
                comp = todo.pop(0)
                if comp == ".":
                    continue
                if comp == "..":
                    if len(stack) > 1:
                        os.close(stack.pop()[0])
                    continue
                if comp == LINK_DIR:
                    raise PathEscapeError(f"{path}: reserved name")
                fd, where = stack[-1]
                here = f"{where}/{comp}"
                last = not todo
                if last and not follow:
                    return self._found(stack, comp, here)
                try:
                    st = os.stat(comp, dir_fd=fd, follow_symlinks=False)
                except FileNotFoundError:
                    if last or lenient:
                        # The missing rest as typed, `..` clamped at the root (a link may bring some).
                        return self._found(stack, comp, posixpath.normpath("/".join([here, *todo])))
                    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), here) from None
                if statmod.S_ISLNK(st.st_mode):
                    hops += 1
                    if hops > MAX_LINKS:
                        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
                    target = device_link_target(os.readlink(comp, dir_fd=fd), str(self.root))
                    if target.startswith("/"):
                        while len(stack) > 1:
                            os.close(stack.pop()[0])
                        target = self.normalize(target)
                    todo[0:0] = [c for c in target.split("/") if c]
                    continue
                if last:
                    return self._found(stack, comp, here)
                if not statmod.S_ISDIR(st.st_mode):
                    raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), here)
                self.check(here, "x", path)
                stack.append((os.open(comp, DIR_FLAGS, dir_fd=fd), here))
            return self._found(stack, ".", stack[-1][1] or "/")
        except BaseException:
            for fd, _ in stack:
                os.close(fd)
            raise

    @staticmethod
    def _found(stack: list[tuple[int, str]], name: str, path: str) -> Located:
        """The top of the walk as a Located; the other folder descriptors are closed."""
        while len(stack) > 1:
            os.close(stack.pop(0)[0])
        return Located(stack[0][0], name, path or "/")

    def host(self, path: str, cwd: str = "/") -> Path:
        """The host path of a device path with every device symlink resolved (for code that needs a
        path, such as SQLite). Whatever is swapped in later, the kernel follows no device link."""
        with self.locate(path, cwd, lenient=True) as loc:
            rel = loc.path.lstrip("/")
        return self.root / rel if rel else self.root

    def canonical(self, path: str, cwd: str = "/") -> str:
        """The device path with every symlink resolved (`realpath`)."""
        with self.locate(path, cwd) as loc:
            return loc.path

    # -- queries ----------------------------------------------------------------------------------

    def stat(self, path: str, cwd: str = "/", follow: bool = True) -> os.stat_result:
        node = self.normalize(path, cwd)
        if node in DEVICE_NODES:
            return os.stat(node)  # the host's character device: `ls -l` shows crw-rw-rw-
        if node in self.virtual:
            return made_stat(0o444, 0, self.now_ns())
        if self._is_program(node):
            return PROGRAM_STAT
        with self.locate(path, cwd, follow) as loc:
            st = loc.lstat()
            if not statmod.S_ISLNK(st.st_mode):
                return st
            # a link's size is its target's length: the device's, not the host's with LINK_DIR
            target = device_link_target(os.readlink(loc.name, dir_fd=loc.dir_fd), str(self.root))
        extra = [getattr(st, name) for name in STAT_EXTRA]
        return os.stat_result((*st[:6], len(target.encode()), *st[7:10], *extra))

    def lstat(self, path: str, cwd: str = "/") -> os.stat_result:
        return self.stat(path, cwd, follow=False)

    def kind(self, path: str, cwd: str = "/", follow: bool = True) -> int | None:
        """S_IFMT of the entry (S_IFDIR, S_IFREG, S_IFLNK...), or None when it does not exist."""
        try:
            return statmod.S_IFMT(self.stat(path, cwd, follow).st_mode)
        except (OSError, PathEscapeError):
            return None

    def exists(self, path: str, cwd: str = "/") -> bool:
        return self.kind(path, cwd, follow=False) is not None

    def is_dir(self, path: str, cwd: str = "/") -> bool:
        return self.kind(path, cwd) == statmod.S_IFDIR

    def is_file(self, path: str, cwd: str = "/") -> bool:
        return self.kind(path, cwd) == statmod.S_IFREG

    def is_link(self, path: str, cwd: str = "/") -> bool:
        return self.kind(path, cwd, follow=False) == statmod.S_IFLNK

    def readlink(self, path: str, cwd: str = "/") -> str:
        with self.locate(path, cwd, follow=False) as loc:
            return device_link_target(os.readlink(loc.name, dir_fd=loc.dir_fd), str(self.root))

    @contextlib.contextmanager
    def opendir(self, path: str, cwd: str = "/") -> Iterator[int]:
        """A descriptor of the folder at `path` (O_RDONLY, for listing and *at calls)."""
        with self.locate(path, cwd) as loc:
            self.check(loc.path, "r", path)
            fd = loc.open(os.O_RDONLY | os.O_DIRECTORY)
        try:
            yield fd
        finally:
            os.close(fd)

    def entries(self, path: str, cwd: str = "/") -> list[tuple[str, os.stat_result]]:
        """(name, lstat) of each entry of a folder, in name order (/dev lists its device nodes)."""
        with self.opendir(path, cwd) as fd:
            found = {}
            for name in os.listdir(fd):
                with contextlib.suppress(FileNotFoundError):
                    found[name] = os.stat(name, dir_fd=fd, follow_symlinks=False)
        for name in self._made_here(self.normalize(path, cwd)):
            found[name] = self.stat(posixpath.join(path, name), cwd)
        return sorted(found.items())

    def listdir(self, path: str, cwd: str = "/") -> list[str]:
        with self.opendir(path, cwd) as fd:
            names = set(os.listdir(fd))
        names |= set(self._made_here(self.normalize(path, cwd)))
        return sorted(names)

    def _made_here(self, folder: str) -> list[str]:
        """Names of the device nodes and virtual files directly in `folder` (canonical)."""
        paths = [*DEVICE_NODES, *self.virtual]
        names = [posixpath.basename(p) for p in paths if posixpath.dirname(p) == folder]
        if folder == PROGRAMS and self.programs is not None:
            names += self.programs()
        return names

    def _made_entries(self, folder: str) -> dict[str, os.stat_result]:
        """The entries `_made_here` names in `folder`, with their stat (for a walk)."""
        names = self._made_here(folder)
        return {name: self.stat(posixpath.join(folder, name)) for name in names} if names else {}

    def _is_program(self, node: str) -> bool:
        return (
            self.programs is not None
            and node.startswith(PROGRAMS + "/")
            and node[len(PROGRAMS) + 1 :] in self.programs()
        )

    # -- reading and writing ----------------------------------------------------------------------

    def open(self, path: str, flags: int, cwd: str = "/", mode: int = 0o666) -> int:
        """A descriptor for `path` (symlinks followed in device terms). Close one opened for
        writing with `close`, which stamps what was written with the device time."""
        node = self.normalize(path, cwd)
        if node in DEVICE_NODES:
            # Writes go to the host's /dev/null whichever node: /dev/zero and the random ones
            # discard them too, and the worker may only read those.
            access = flags & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR)
            fd = os.open("/dev/null" if access else node, access | os.O_CLOEXEC)
            self._nodes.add(fd)
            return fd
        if node in self.virtual or self._is_program(node):
            return self._open_virtual(node, flags)
        with self.locate(path, cwd) as loc:
            if not flags & WRITE_MODES:
                self.check(loc.path, "r", path)
                return loc.open(flags, mode)
            self.check(loc.path, "w", path)
            created = False
            if flags & os.O_CREAT:
                try:
                    loc.lstat()
                except FileNotFoundError:
                    created = True
                    self.space.reserve(0, 1, path)
            if flags & os.O_TRUNC and not created:
                self.space.freed()  # what the file held
            fd = loc.open(flags, mode)
            if created:
                self._stamp_dir(loc.dir_fd)
        # Creating or truncating changed the file now; later writes are restamped by `close`.
        stamped = self._stamp_fd(fd, created) if created or flags & os.O_TRUNC else os.fstat(fd).st_mtime_ns
        self._writers[fd] = stamped
        return fd

    def _open_virtual(self, path: str, flags: int) -> int:
        """A descriptor reading what the virtual file holds now (a pipe: it is a few KiB)."""
        if flags & WRITE_MODES:
            raise denied(errno.EACCES if path in self.virtual else errno.EROFS, path)
        data = self.virtual[path]() if path in self.virtual else b""  # a program reads as empty
        assert len(data) < 32768, "more than a pipe holds"
        read, write = os.pipe2(os.O_CLOEXEC)
        try:
            _write_all(write, data)
        finally:
            os.close(write)
        return read

    def close(self, fd: int) -> None:
        """Close a descriptor from `open`; a file written through it gets the device time, as the
        device's kernel gives each write (a descriptor nothing was written to keeps its time)."""
        seen = self._writers.pop(fd, None)
        self._nodes.discard(fd)
        try:
            if seen is not None:
                with contextlib.suppress(OSError):
                    if os.fstat(fd).st_mtime_ns != seen:
                        self._stamp_fd(fd)
        finally:
            os.close(fd)

    def read_bytes(self, path: str, cwd: str = "/", limit: int | None = None) -> bytes:
        """A file's bytes; OSError(EFBIG) when it holds more than `limit` (an endless device node
        always does)."""
        node = self.normalize(path, cwd)
        if node in ENDLESS_NODES:
            raise OSError(errno.EFBIG, os.strerror(errno.EFBIG), path)
        if self._is_program(node):
            return b""  # not an ELF file: the shell runs its command by name
        if node in self.virtual:
            data = self.virtual[node]()
            if limit is not None and len(data) > limit:
                raise OSError(errno.EFBIG, os.strerror(errno.EFBIG), path)
            return data
        fd = self.open(path, os.O_RDONLY, cwd)
        try:
            st = os.fstat(fd)
            if statmod.S_ISDIR(st.st_mode):
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
            if limit is not None and st.st_size > limit:
                raise OSError(errno.EFBIG, os.strerror(errno.EFBIG), path)
            chunks = []
            total = 0
            while chunk := os.read(fd, 1 << 20):
                total += len(chunk)
                if limit is not None and total > limit:
                    raise OSError(errno.EFBIG, os.strerror(errno.EFBIG), path)
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def write_bytes(self, path: str, data: bytes, cwd: str = "/", append: bool = False) -> None:
        """Write a whole file; one that does not fit in the device's space is not even created."""
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        self.space.reserve(len(data), name=path)
        try:
            fd = self.open(path, flags, cwd)
        except BaseException:
            self.space.unreserve(len(data))
            raise
        try:
            _write_all(fd, data)
        finally:
            self.close(fd)

    def write(self, fd: int, data: bytes) -> None:
        """Write all of `data` to a descriptor from `open`, counted against the device's space
        (a device node's is discarded)."""
        if fd not in self._nodes:
            self.space.reserve(len(data))
        _write_all(fd, data)

    # -- changing the tree ------------------------------------------------------------------------

    def mkdir(self, path: str, cwd: str = "/", parents: bool = False) -> None:
        if parents:
            parts = self.normalize(path, cwd).split("/")
            for i in range(2, len(parts) + 1):
                with contextlib.suppress(FileExistsError):
                    self.mkdir("/".join(parts[:i]) or "/")
            if not self.is_dir(path, cwd):
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
            return
        with self.locate(path, cwd, follow=False) as loc:
            self._made(loc, lambda: os.mkdir(loc.name, dir_fd=loc.dir_fd), path)
            self._stamp_at(loc.dir_fd, loc.name, created=True)
            self._stamp_dir(loc.dir_fd)

    def _replacing(self, loc: Located) -> None:
        """An entry about to be replaced is freed space: the count may be high from now on."""
        with contextlib.suppress(FileNotFoundError):
            loc.lstat()
            self.space.freed()

    def _made(self, loc: Located, make: Callable[[], None], path: str) -> None:
        """Make one new entry, counted in the device's space first (uncounted again if it failed);
        an entry that exists is EEXIST, full or not, as the kernel checks that first."""
        with contextlib.suppress(FileNotFoundError):
            loc.lstat()
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
        self.check(loc.path, "w", path)  # after EEXIST, as the kernel checks
        self.space.reserve(0, 1, path)
        try:
            make()
        except OSError:
            self.space.unreserve(0, 1)
            raise

    def symlink(self, target: str, link: str, cwd: str = "/") -> None:
        """A device symlink: `target` is kept as the device will read it back."""
        if LINK_DIR in target.split("/"):
            raise PathEscapeError(f"{target}: reserved name")
        with self.locate(link, cwd, follow=False) as loc:

            def make() -> None:
                self._no_links_there(loc.path, link)  # after EEXIST, as the kernel asks the mount last
                os.symlink(_host_target(target), loc.name, dir_fd=loc.dir_fd)

            self._made(loc, make, link)
            self._stamp_at(loc.dir_fd, loc.name, created=True)
            self._stamp_dir(loc.dir_fd)

    def unlink(self, path: str, cwd: str = "/") -> None:
        self.space.freed()
        with self.locate(path, cwd, follow=False) as loc:
            self.check(loc.path, "w", path)
            os.unlink(loc.name, dir_fd=loc.dir_fd)
            self._stamp_dir(loc.dir_fd)

    def rmdir(self, path: str, cwd: str = "/") -> None:
        self.space.freed()
        with self.locate(path, cwd, follow=False) as loc:
            self.check(loc.path, "w", path)
            os.rmdir(loc.name, dir_fd=loc.dir_fd)
            self._stamp_dir(loc.dir_fd)

    def remove(self, path: str, cwd: str = "/", recursive: bool = False) -> None:
        """Unlink a file or link, or a folder (with everything in it when `recursive`)."""
        self.space.freed()
        with self.locate(path, cwd, follow=False) as loc:
            if loc.name == ".":
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), path)
            self.check(loc.path, "w", path)
            if not statmod.S_ISDIR(loc.lstat().st_mode):
                os.unlink(loc.name, dir_fd=loc.dir_fd)
            elif recursive:
                # rmtree with dir_fd works on descriptors and never follows a link (3.11+).
                shutil.rmtree(loc.name, dir_fd=loc.dir_fd)
            else:
                os.rmdir(loc.name, dir_fd=loc.dir_fd)
            self._stamp_dir(loc.dir_fd)

    def rename(self, src: str, dst: str, cwd: str = "/") -> None:
        """Move an entry; it keeps its times, the folders it left and entered get the device time."""
        with self.locate(src, cwd, follow=False) as s, self.locate(dst, cwd, follow=False) as d:
            if s.name == "." or d.name == ".":
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), src)
            self.check(s.path, "w", src)
            self.check(d.path, "w", dst)
            # Into shared storage from elsewhere is another filesystem: a device copies, and a link
            # cannot be made there (a folder holding one is refused whole: a simplification).
            if self.uid is not None and not s.path.startswith(SHARED_STORAGE) and _holds_link(s):
                self._no_links_there(d.path, dst)
            self._replacing(d)
            os.rename(s.name, d.name, src_dir_fd=s.dir_fd, dst_dir_fd=d.dir_fd)
            self._stamp_dir(s.dir_fd)
            self._stamp_dir(d.dir_fd)

    def place(self, host_file: Path, path: str, mtime: float | None = None, cwd: str = "/") -> None:
        """Move a finished host file (outside the root, e.g. a staged push) into `path`, replacing
        a file there, with `mtime` or else the device time; the parent folder must exist. The
        caller held its bytes (`space.hold`) while writing it, and counts them once placed."""
        with self.locate(path, cwd) as loc:
            if loc.name == ".":
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
            self.check(loc.path, "w", path)
            self._replacing(loc)
            os.replace(host_file, loc.name, dst_dir_fd=loc.dir_fd)
            when = None if mtime is None else int(mtime * 1_000_000_000)
            self._stamp_at(loc.dir_fd, loc.name, created=True, when_ns=when)
            self._stamp_dir(loc.dir_fd)

    def utime(
        self, path: str, atime_ns: int | None = None, mtime_ns: int | None = None, cwd: str = "/"
    ) -> None:
        """`touch`: set the access and modification times (ns; None keeps that one), creating a
        missing file."""
        try:
            fd = self.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, cwd)
        except IsADirectoryError:
            fd = self.open(path, os.O_RDONLY | os.O_DIRECTORY, cwd)
        try:
            st = os.fstat(fd)
            atime = access_ns(st) if atime_ns is None else atime_ns
            os.utime(fd, ns=(atime, st.st_mtime_ns if mtime_ns is None else mtime_ns))
        finally:
            self._writers.pop(fd, None)  # its times are set: nothing to restamp at close
            os.close(fd)

    def copy(self, src: str, dst: str, cwd: str = "/", keep_times: bool = False) -> None:
        """Copy a file, link or folder tree `src` to the new or existing entry `dst`, keeping
        links as links and modes; the copies get the device time, or the sources' times with
        `keep_times` (cp -p/-a). Descriptors throughout, so no swap redirects it. ENOSPC when the
        copy would take more than the space left (as from an endless device node)."""
        node = self.normalize(src, cwd)
        if node in DEVICE_NODES or node in self.virtual or self._is_program(node):  # what a read gives
            if node in ENDLESS_NODES:
                raise no_space(dst)
            fd = self.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, cwd)
            try:
                self.write(fd, self.virtual[node]() if node in self.virtual else b"")
            finally:
                self.close(fd)
            return
        with self.locate(src, cwd) as s:
            self.check(s.path, "r", src)
            sfd = s.open(os.O_RDONLY)
            spath = s.path
        stamp = None if keep_times else self.now_ns()
        # All the room is the copy's while it runs; then what it wrote is counted.
        room, entries = self.space.take_room()
        budget = [room, entries]
        try:
            with self.locate(dst, cwd, follow=False) as d:
                self.check(d.path, "w", dst)
                if statmod.S_ISDIR(os.fstat(sfd).st_mode):
                    if d.path == spath or d.path.startswith(spath.rstrip("/") + "/"):
                        raise OSError(errno.EINVAL, "cannot copy a directory into itself", src)
                    if self.uid is not None and d.path.startswith(SHARED_STORAGE) and _holds_link_fd(sfd):
                        self._no_links_there(d.path, dst)
                    _copy_tree(sfd, d.dir_fd, d.name, budget, 0, stamp)
                else:
                    _copy_file(sfd, d.dir_fd, d.name, budget, stamp)
                self._stamp_dir(d.dir_fd)
        finally:
            os.close(sfd)
            self.space.release(room)
            self.space.add(room - budget[0], entries - budget[1])

    def walk(
        self,
        path: str,
        cwd: str = "/",
        follow: bool = False,
        depth_first: bool = False,
        maxdepth: int = MAX_TREE_DEPTH,
    ) -> Iterator[Entry]:
        """`path` and everything under it (to `maxdepth`), names in order, parents first (or last
        with `depth_first`); links are listed, not entered. Each Entry's `dir_fd` is valid while it
        is the current one: act on it there (`remove_entry`), not later by path. A folder this uid
        may not list is an entry whose `denied` is set, its contents left out (find reports it)."""
        with self.locate(path, cwd, follow) as loc:
            top = Entry(path, loc.lstat(), 0, loc.dir_fd, loc.name, loc.path)
            made = self._made_entries
            is_dir = statmod.S_ISDIR(top.st.st_mode)
            top.denied = is_dir and maxdepth > 0 and not self._may_list(loc.path)
            if not depth_first:
                yield top
            if is_dir and maxdepth > 0 and not top.denied and not top.prune:
                fd = loc.open(os.O_RDONLY | os.O_DIRECTORY)
                try:
                    yield from _walk_fd(fd, top, 1, depth_first, maxdepth, self._may_list, made)
                finally:
                    os.close(fd)
            if depth_first:
                yield top

    def _may_list(self, path: str) -> bool:
        try:
            self.check(path, "r")
        except OSError:
            return False
        return True

    def remove_entry(self, entry: Entry) -> None:
        """Unlink a walked file or link, or remove a walked (empty) folder, through its folder's
        descriptor: the entry the walk saw, whatever was renamed since."""
        self.check(entry.real, "w", entry.path)
        self.space.freed()
        if statmod.S_ISDIR(entry.st.st_mode):
            os.rmdir(entry.name, dir_fd=entry.dir_fd)
        else:
            os.unlink(entry.name, dir_fd=entry.dir_fd)
        self._stamp_dir(entry.dir_fd)

    # -- messages ---------------------------------------------------------------------------------

    def os_error(self, exc: OSError) -> str:
        """`path: reason` for a failed host call, naming the device path: host paths never reach a user."""
        reason = exc.strerror or exc.__class__.__name__
        if exc.filename is None:
            return reason
        text, root = os.fsdecode(exc.filename), str(self.root)
        if text.startswith("/") and not (text == root or text.startswith(root + "/")):
            return f"{posixpath.basename(text)}: {reason}"  # a host path: its name only
        return f"{self.scrub(text)}: {reason}"

    def scrub(self, text: str) -> str:
        """`text` with the host root replaced by the device root: output never names a host path."""
        root = str(self.root)
        return text.replace(root + "/", "/").replace(root, "/")

    def device_path(self, host: Path) -> str:
        """The device path of a host path under the root."""
        rel = host.relative_to(self.root)
        return "/" + str(rel) if str(rel) != "." else "/"


@dataclass
class Entry:
    """One entry of a walk: the device path as the caller spelled it, its lstat, its depth, and
    its folder's descriptor with its name there (valid only while the walk is at this entry)."""

    path: str
    st: os.stat_result
    depth: int
    dir_fd: int
    name: str
    real: str  # the canonical device path
    denied: bool = False  # a folder whose contents the walk's uid may not list
    prune: bool = False  # set by the caller while at this entry: do not enter this folder


def _walk_fd(
    fd: int,
    parent: Entry,
    depth: int,
    depth_first: bool,
    maxdepth: int,
    may_list: Callable[[str], bool],
    made: Callable[[str], dict[str, os.stat_result]],
) -> Iterator[Entry]:
    if depth > MAX_TREE_DEPTH:
        raise OSError(errno.ELOOP, "tree too deep", parent.path)
    extra = made(parent.real)  # the folder's device nodes, /proc files, programs
    for name in sorted({*os.listdir(fd), *extra}):
        try:
            st = extra.get(name) or os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        real = posixpath.join(parent.real, name)
        entry = Entry(posixpath.join(parent.path, name), st, depth, fd, name, real)
        is_dir = statmod.S_ISDIR(st.st_mode)
        entry.denied = is_dir and depth < maxdepth and not may_list(real)
        if not depth_first:
            yield entry
        if is_dir and depth < maxdepth and not entry.denied and not entry.prune:
            try:
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except OSError:
                child = -1  # replaced since the listing: skip its contents, as find does
            if child >= 0:
                try:
                    yield from _walk_fd(child, entry, depth + 1, depth_first, maxdepth, may_list, made)
                finally:
                    os.close(child)
        if depth_first:
            yield entry


def _holds_link(loc: Located) -> bool:
    """Whether the entry `loc` is a symlink or a folder with one somewhere beneath it."""
    st = loc.lstat()
    if statmod.S_ISLNK(st.st_mode):
        return True
    if not statmod.S_ISDIR(st.st_mode):
        return False
    fd = loc.open(os.O_RDONLY | os.O_DIRECTORY)
    try:
        return _holds_link_fd(fd)
    finally:
        os.close(fd)


def _holds_link_fd(fd: int, depth: int = 0) -> bool:
    """Whether the folder of `fd` holds a symlink at any depth (to MAX_TREE_DEPTH)."""
    if depth > MAX_TREE_DEPTH:
        return False
    for name in os.listdir(fd):
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if statmod.S_ISLNK(st.st_mode):
            return True
        if statmod.S_ISDIR(st.st_mode):
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            try:
                if _holds_link_fd(child, depth + 1):
                    return True
            finally:
                os.close(child)
    return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _spend(budget: list[int], nbytes: int, name: str, entries: int = 0) -> None:
    """Take `nbytes` and `entries` from a copy's budget (the device's room: [bytes, entries]);
    ENOSPC when either runs out."""
    budget[0] -= nbytes + entries * BLOCK
    budget[1] -= entries
    if budget[0] < 0 or budget[1] < 0:
        raise no_space(name)


def _copy_file(sfd: int, dir_fd: int, name: str, budget: list[int], stamp: int | None) -> None:
    """Copy one file's bytes and mode; its times are the source's, or `stamp` (ns) when given."""
    _spend(budget, 0, name, entries=1)
    st = os.fstat(sfd)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    dfd = os.open(name, flags, statmod.S_IMODE(st.st_mode) | 0o600, dir_fd=dir_fd)
    try:
        while chunk := os.read(sfd, 1 << 20):
            _spend(budget, len(chunk), name)
            os.write(dfd, chunk)
        os.utime(dfd, ns=(st.st_atime_ns, st.st_mtime_ns) if stamp is None else (stamp, stamp))
    finally:
        os.close(dfd)


def _copy_tree(sfd: int, dir_fd: int, name: str, budget: list[int], depth: int, stamp: int | None) -> None:
    """Copy a folder's regular files, folders and links; times as in `_copy_file`, set on each
    folder after its entries (adding them changed it)."""
    if depth > MAX_TREE_DEPTH:
        raise OSError(errno.ELOOP, "tree too deep", name)
    _spend(budget, 0, name, entries=1)
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, dir_fd=dir_fd)
    dfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        for entry in sorted(os.listdir(sfd)):
            st = os.stat(entry, dir_fd=sfd, follow_symlinks=False)
            if statmod.S_ISLNK(st.st_mode):
                _spend(budget, 0, entry, entries=1)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry, dir_fd=dfd)
                os.symlink(os.readlink(entry, dir_fd=sfd), entry, dir_fd=dfd)
                times = (st.st_atime_ns, st.st_mtime_ns) if stamp is None else (stamp, stamp)
                os.utime(entry, ns=times, dir_fd=dfd, follow_symlinks=False)
                continue
            if not (statmod.S_ISDIR(st.st_mode) or statmod.S_ISREG(st.st_mode)):
                continue
            child = os.open(entry, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=sfd)
            try:
                if statmod.S_ISDIR(st.st_mode):
                    _copy_tree(child, dfd, entry, budget, depth + 1, stamp)
                else:
                    _copy_file(child, dfd, entry, budget, stamp)
            finally:
                os.close(child)
        own = os.fstat(sfd)
        os.utime(dfd, ns=(own.st_atime_ns, own.st_mtime_ns) if stamp is None else (stamp, stamp))
    finally:
        os.close(dfd)
