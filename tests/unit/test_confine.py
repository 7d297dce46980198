"""The kernel sandbox of a sim worker, proven from inside a real worker process and its sandbox function."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mgfarm.farm.ports import free_port, quiet_range_start
from mgfarm.sim.confine import landlock_abi

ABI, WHY = landlock_abi()
needs_landlock = pytest.mark.skipif(not ABI, reason=f"no Landlock on this kernel: {WHY}")

# Runs in a fresh interpreter: builds the sandbox exactly as `sim serve` does, applies it, then
# tries what an escaped device would try. Prints one line per attempt.
PROBE = r"""
import os, sys
from pathlib import Path
from mgfarm.sim.server import ServeOptions, device_configs, sandbox_for
from mgfarm.sim.confine import confine, describe
data, golden, canary = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
options = ServeOptions(adb_port=int(sys.argv[4]), data_dir=data, golden_dir=golden, announce=None)
configs = device_configs(options, data)
print(describe(confine(sandbox_for(options, configs, data))), flush=True)

def attempt(label, fn):
    try:
        fn()
        print(label, "ALLOWED", flush=True)
    except OSError as exc:
        print(label, "denied", exc.errno, flush=True)

attempt("write-own", lambda: (data / "emulator-x").write_text("mine"))
attempt("write-canary", lambda: canary.write_text("pwned"))
attempt("read-canary", lambda: canary.read_text())
attempt("create-beside-canary", lambda: (canary.parent / "planted").write_text("x"))
attempt("unlink-canary", lambda: canary.unlink())
attempt("write-golden", lambda: (golden / "golden/files/db").write_bytes(b"planted"))
attempt("create-in-golden", lambda: (golden / "golden/files/new").write_text("x"))
attempt("remove-golden", lambda: (golden / "golden/files/db").unlink())
attempt("rename-golden", lambda: os.rename(golden / "golden", data / "stolen"))
attempt("symlink-out", lambda: os.symlink(canary, data / "link") or (data / "link").write_text("x"))
attempt("exec-shell", lambda: os.execv("/bin/sh", ["sh", "-c", "true"]))
attempt("read-golden", lambda: (golden / "golden/files/db").read_bytes())
"""


def tree_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@needs_landlock
def test_a_sandboxed_worker_process_cannot_leave_its_folder_or_touch_the_golden(tmp_path: Path) -> None:
    data, golden, outside = tmp_path / "data", tmp_path / "golden", tmp_path / "outside"
    (golden / "golden/files").mkdir(parents=True)
    (golden / "golden/files/db").write_bytes(b"golden content")
    (golden / "golden/state.json").write_text("{}")
    outside.mkdir()
    canary = outside / "canary"
    canary.write_text("secret")
    data.mkdir()
    before = tree_hash(golden)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(data), str(golden), str(canary), str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    results = dict(line.split(" ", 1) for line in proc.stdout.splitlines()[1:])
    assert proc.stdout.startswith(f"sandbox: Landlock ABI {ABI}"), proc.stdout + proc.stderr
    assert results.pop("write-own") == "ALLOWED"
    assert results.pop("read-golden") == "ALLOWED"
    assert all(v.startswith("denied") for v in results.values()), results
    assert canary.read_text() == "secret"
    assert sorted(p.name for p in outside.iterdir()) == ["canary"]
    assert tree_hash(golden) == before


@needs_landlock
def test_a_running_worker_is_confined_without_privileges_and_with_a_memory_cap(tmp_path: Path) -> None:
    adb_port = quiet_range_start(1) + 1
    token = tmp_path / "token"
    token.write_text("t0ken")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mgfarm.sim",
            "serve",
            "--adb-port",
            str(adb_port),
            "--data",
            str(tmp_path / "data"),
            "--golden",
            str(tmp_path / "golden"),
            "--token-file",
            str(token),
            "--memory-limit",
            "1g",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("ready "), proc.stderr.read() if proc.stderr else ""
        status = dict(
            row.split(":", 1)
            for row in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
            if ":" in row
        )
        assert status["NoNewPrivs"].strip() == "1"
        assert int(status["CapEff"].strip(), 16) == 0 or int(status["Uid"].split()[0]) != 0
        limits = Path(f"/proc/{proc.pid}/limits").read_text()
        data_row = next(row for row in limits.splitlines() if row.startswith("Max data size"))
        assert data_row.split()[3] == str(1024**3)
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert f"sandbox: Landlock ABI {ABI}" in err


def test_snapshot_files_are_sealed_read_only_on_disk(tmp_path: Path) -> None:
    import asyncio

    from mgfarm.sim import snapshot
    from mgfarm.sim.device import DeviceConfig, SimDevice

    device = SimDevice(
        DeviceConfig(name="a", adb_port=5555, data_dir=tmp_path / "a", snapshot_dir=tmp_path / "s")
    )
    asyncio.run(device.boot())
    snapshot.save(device, "golden")
    modes = {
        path: os.lstat(path).st_mode & 0o777
        for path in [tmp_path / "s/golden", *(tmp_path / "s/golden").rglob("*")]
        if not path.is_symlink()
    }
    assert modes and all(not mode & 0o222 for mode in modes.values())
    # The device's own copy is writable again after a load.
    snapshot.load(device, "golden")
    settings = next(device.fs.root.rglob("settings.db"))
    assert os.stat(settings).st_mode & 0o200
    time.sleep(0.1)  # the old root is removed in the background


def test_a_memory_cap_too_small_to_start_is_refused_in_one_sentence(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mgfarm.sim", "serve", "--memory-limit", "20m", "--data", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        "error: --memory-limit 20m is below the 256m a worker needs to start; "
        "pass 256m or more, or 0 for no cap."
    )


# Runs in a fresh interpreter: a seccomp filter makes the kernel answer ENOSYS to the three Landlock
# calls, as a kernel without Landlock does; the worker's sandbox must say so and carry on.
WITHOUT_LANDLOCK = r"""
import ctypes, sys
from pathlib import Path
class Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)
    ]
class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]
code = (Filter * 5)(
    Filter(0x20, 0, 0, 0),  # load the syscall number
    Filter(0x35, 0, 2, 444),  # >= landlock_create_ruleset, else allow
    Filter(0x25, 1, 0, 446),  # > landlock_restrict_self: allow
    Filter(0x06, 0, 0, 0x00050000 | 38),  # ENOSYS
    Filter(0x06, 0, 0, 0x7FFF0000),  # allow
)
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0
assert libc.prctl(22, 2, ctypes.byref(Program(5, code)), 0, 0) == 0, ctypes.get_errno()
from mgfarm.sim.confine import Sandbox, confine, describe
report = confine(Sandbox(writable=[Path(sys.argv[1])], memory_bytes=1 << 30))
print(report.landlock_abi, report.memory_bytes)
print(describe(report))
(Path(sys.argv[1]) / "still-works").write_text("yes")
"""


@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="Landlock syscall numbers")
def test_a_kernel_without_landlock_gives_a_logged_reason_not_a_crash(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT_LANDLOCK, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    first, line = proc.stdout.splitlines()
    assert first == f"0 {1 << 30}"  # no Landlock, the memory cap still applies
    assert line.startswith("sandbox: no Landlock")
    assert "the kernel was built without Landlock (needs Linux 5.13+)" in line
    assert (tmp_path / "still-works").read_text() == "yes"


def test_the_worker_gives_up_root_only_for_folders_its_user_can_reach() -> None:
    import pwd
    import shutil
    import tempfile

    from mgfarm.sim.confine import reachable

    nobody = pwd.getpwnam("nobody")
    top = Path(tempfile.mkdtemp())  # pytest's own tmp folders are private (0700) on some hosts
    try:
        top.chmod(0o755)
        base = top / "base"
        (base / "data").mkdir(parents=True)
        if not all(os.stat(folder).st_mode & 0o001 for folder in (*top.parents, top, base)):
            pytest.skip(f"{top} is not searchable by others on this host")
        check_reachable(base, nobody.pw_uid, nobody.pw_gid, reachable)
    finally:
        shutil.rmtree(top)


def check_reachable(base: Path, uid: int, gid: int, reachable: Callable[..., bool]) -> None:
    assert reachable(base / "data", uid, gid)
    base.chmod(0o700)  # e.g. a home folder: the data folder behind it cannot be reached
    assert not reachable(base / "data", uid, gid)
    assert not reachable(base / "data", uid, gid, itself=False)
    base.chmod(0o755)
    (base / "data").chmod(0o700)  # a data folder itself is given to the user, so only its parents count
    assert not reachable(base / "data", uid, gid)
    assert reachable(base / "data", uid, gid, itself=False)
