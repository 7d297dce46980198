"""The kernel sandbox around a `mgfarm sim serve` worker: defence in depth behind the device's own checks.

A device is driven by an agent with `adb shell`; if a bug in the simulated shell ever lets a path
reach the host, the kernel must still say no. So the worker, before it boots a device:

- caps its memory (RLIMIT_DATA), so one runaway device cannot take the host down;
- gives up root: runs as an unprivileged user (default `nobody`) when every folder it needs is
  reachable by that user, else keeps uid 0 without any capability (no DAC override, no kill of
  other users' processes, no mount);
- restricts itself with Landlock (Linux 5.13+): read-write beneath its data folders only,
  read-only beneath the golden snapshots and the Python install, nothing else; TCP bind only on
  its device ports and connect only to the adb server (Landlock ABI 4+); no signals or abstract
  sockets outside the sandbox (ABI 6+).

Every step that the host cannot do is skipped with a logged reason, never a crash.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import pwd
import resource
import stat
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("mgfarm.sim.confine")

# Landlock syscall numbers: one table for every architecture (they were added after the unification).
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ_RIGHTS = FS_READ_FILE | FS_READ_DIR
WRITE_RIGHTS = (
    READ_RIGHTS
    | FS_WRITE_FILE
    | FS_REMOVE_DIR
    | FS_REMOVE_FILE
    | FS_MAKE_DIR
    | FS_MAKE_REG
    | FS_MAKE_SYM
    | FS_REFER
    | FS_TRUNCATE
)

PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522

# The system libraries Python and its extensions load (read-only); /usr also holds zoneinfo.
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/localtime")
DEVICES_RW = ("/dev/null",)
DEVICES_READ = ("/dev/urandom", "/dev/random", "/dev/zero")  # also the shell's (fs.DEVICE_NODES)
# The sim's Chrome runs the host's Chromium (mgfarm.sim.system.chromium) inside the sandbox: it executes
# its binary and the dynamic loader, reads /proc/cpuinfo and fonts, and binds its profile's singleton
# socket beneath the worker's data folder.
CHROMIUM_EXEC = ("/usr/lib/chromium", "/usr/lib/chromium-browser")
LOADERS = ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1")
CHROMIUM_READ = ("/proc/cpuinfo", "/etc/fonts")


@dataclass
class Sandbox:
    """What one worker may touch once confined."""

    writable: list[Path]  # its data folder(s): device roots, its own snapshots, temp files
    readable: list[Path] = field(default_factory=list)  # golden snapshots, the token file
    bind_ports: list[int] = field(default_factory=list)
    connect_ports: list[int] = field(default_factory=list)
    user: str = "nobody"  # who to become when started as root; "" or "root" keeps uid 0
    own_threads: int = 0  # threads started on purpose before confining (mgfarm.sim.hostnet's connector)
    memory_bytes: int = 0  # RLIMIT_DATA; 0 leaves it alone


@dataclass
class Report:
    """What was applied, for the worker's log and for tests."""

    landlock_abi: int = 0
    uid: int = -1
    memory_bytes: int = 0
    notes: list[str] = field(default_factory=list)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> tuple[int, str]:
    """(ABI version, '') when the kernel enforces Landlock, else (0, why not)."""
    if not sys.platform.startswith("linux"):
        return 0, f"Landlock is Linux-only (this is {sys.platform})"
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(ctypes.c_long(SYS_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 0:
        code = ctypes.get_errno()
        why = {
            errno.ENOSYS: "the kernel was built without Landlock (needs Linux 5.13+)",
            errno.EOPNOTSUPP: "Landlock is disabled at boot (add it to the lsm= kernel parameter)",
        }.get(code, os.strerror(code))
        return 0, why
    return int(abi), ""


def handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPort(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")
    return result


def landlock_restrict(
    abi: int,
    rules: list[tuple[Path, int]],
    bind_ports: list[int],
    connect_ports: list[int],
) -> None:
    """Restrict this thread and every thread or process it starts later to `rules` (path, rights)."""
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    fs = handled_fs(abi)
    attr = _RulesetAttr(fs, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0, 0)
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _check(
        libc.syscall(ctypes.c_long(SYS_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), 0),
        "landlock_create_ruleset",
    )
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a folder this host does not have (/lib64 on some systems)
            try:
                allowed = rights & fs
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    allowed &= FILE_RIGHTS
                rule = _PathBeneath(allowed, fd)
                _check(
                    libc.syscall(
                        ctypes.c_long(SYS_ADD_RULE), ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0
                    ),
                    f"landlock_add_rule {path}",
                )
            finally:
                os.close(fd)
        if abi >= 4:
            ports = {p: NET_BIND_TCP for p in bind_ports}
            for port in connect_ports:
                ports[port] = ports.get(port, 0) | NET_CONNECT_TCP
            for port, rights in ports.items():
                net = _NetPort(rights, port)
                _check(
                    libc.syscall(ctypes.c_long(SYS_ADD_RULE), ruleset, RULE_NET_PORT, ctypes.byref(net), 0),
                    f"landlock_add_rule port {port}",
                )
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")
        _check(libc.syscall(ctypes.c_long(SYS_RESTRICT_SELF), ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def python_paths() -> list[Path]:
    """Where this interpreter and its packages live (read-only for the worker)."""
    import mgfarm

    found = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.base_exec_prefix)}
    found |= {Path(p) for p in sys.path if p and os.path.isabs(p)}
    found.add(Path(mgfarm.__file__).resolve().parent)
    found.add(Path(os.path.realpath(sys.executable)).parent)
    resolved = {Path(os.path.realpath(p)) for p in found} | found
    return sorted(p for p in resolved if p.exists())


def rules_for(box: Sandbox) -> list[tuple[Path, int]]:
    rules: list[tuple[Path, int]] = [(p, READ_RIGHTS) for p in python_paths()]
    rules += [(Path(os.path.realpath(sys.executable)), FS_READ_FILE | FS_EXECUTE)]
    rules += [(Path(p), READ_RIGHTS) for p in SYSTEM_READ + DEVICES_READ]
    rules += [(Path(p), FS_READ_FILE | FS_WRITE_FILE) for p in DEVICES_RW]
    rules += [(p, READ_RIGHTS) for p in box.readable]
    rules += [(p, WRITE_RIGHTS) for p in box.writable]
    if any(os.path.isdir(p) for p in CHROMIUM_EXEC):
        run = [Path(os.path.realpath(p)) for p in CHROMIUM_EXEC + LOADERS]
        rules += [(p, READ_RIGHTS | FS_EXECUTE) for p in run]
        rules += [(Path(p), READ_RIGHTS) for p in CHROMIUM_READ]
        rules += [(p, FS_MAKE_SOCK) for p in box.writable]
    return rules


def set_memory_limit(limit: int) -> None:
    """Cap the worker's data segment (heap and private mappings) at `limit` bytes."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def reachable(path: Path, uid: int, gid: int, itself: bool = True) -> bool:
    """True when `uid` may search every folder on the way to `path` (file modes only, as that user).

    `itself`: the folder must be searchable too (False for data folders, which are given to `uid`).
    """
    folders = [*reversed(path.parents), path] if itself and path.is_dir() else list(reversed(path.parents))
    for folder in folders:
        try:
            st = os.stat(folder)
        except OSError:
            return False
        bit = stat.S_IXUSR if st.st_uid == uid else stat.S_IXGRP if st.st_gid == gid else stat.S_IXOTH
        if not st.st_mode & bit:
            return False
    return True


def chown_tree(folder: Path, uid: int, gid: int) -> None:
    """Give a data folder to the worker's user; never follows a symlink out of it."""
    os.lchown(folder, uid, gid)
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), uid, gid)


def become_user(box: Sandbox, report: Report) -> bool:
    """Switch to box.user when root and every needed folder is reachable by it; True when switched."""
    if os.geteuid() != 0:
        report.notes.append(f"runs as uid {os.geteuid()} (not root: nothing to drop)")
        return False
    if box.user in ("", "root"):
        report.notes.append("stays uid 0 as asked (--user root); capabilities dropped")
        return False
    try:
        entry = pwd.getpwnam(box.user)
    except KeyError:
        report.notes.append(f"no user {box.user!r} on this host; stays uid 0 without capabilities")
        return False
    uid, gid = entry.pw_uid, entry.pw_gid
    blocked = [p for p in box.writable if not reachable(p, uid, gid, itself=False)]
    blocked += [p for p in [*box.readable, *python_paths()] if not reachable(p, uid, gid)]
    if blocked:
        report.notes.append(
            f"stays uid 0 without capabilities: {blocked[0]} is not reachable by {box.user!r}"
        )
        return False
    for folder in box.writable:
        chown_tree(folder, uid, gid)
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    return True


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_capabilities() -> None:
    """Give up every capability for good (bounding set, ambient, effective, permitted, inheritable)."""
    libc = _libc()
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0:
            if ctypes.get_errno() == errno.EINVAL:
                break  # past the kernel's last capability
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(libc.capset(ctypes.byref(header), data), "capset")


def confine(box: Sandbox) -> Report:
    """Apply everything the host supports, in the order that keeps each step possible.

    Call it before any thread starts: Landlock binds the calling thread and what it creates later.
    """
    report = Report()
    threads = os_threads() - box.own_threads
    if threads > 1:
        report.notes.append(f"{threads - 1} thread(s) already running stay unconfined")
    if box.memory_bytes:
        try:
            set_memory_limit(box.memory_bytes)
            report.memory_bytes = resource.getrlimit(resource.RLIMIT_DATA)[0]
        except (OSError, ValueError) as exc:
            report.notes.append(f"no memory cap: {exc}")
    if sys.platform.startswith("linux"):
        try:
            if not become_user(box, report) and os.geteuid() == 0:
                drop_capabilities()
        except OSError as exc:
            report.notes.append(f"could not give up root: {exc}")
    report.uid = os.geteuid()
    abi, why = landlock_abi()
    if not abi:
        report.notes.append(f"{why}: the device's own path checks are the only fence")
        return report
    try:
        landlock_restrict(abi, rules_for(box), box.bind_ports, box.connect_ports)
        report.landlock_abi = abi
    except OSError as exc:
        report.notes.append(
            f"Landlock refused the rules ({exc}): the device's own path checks are the only fence"
        )
    return report


def os_threads() -> int:
    """Threads of this process, native ones included (a library may start its own)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def describe(report: Report) -> str:
    """One log line saying how the worker is confined."""
    parts = [f"Landlock ABI {report.landlock_abi}" if report.landlock_abi else "no Landlock"]
    parts.append(f"uid {report.uid}")
    if report.memory_bytes:
        parts.append(f"memory cap {report.memory_bytes // (1024 * 1024)} MiB")
    return "sandbox: " + ", ".join(parts) + "".join(f"; {note}" for note in report.notes)
