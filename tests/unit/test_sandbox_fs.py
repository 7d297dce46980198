"""The device filesystem's path layer: chroot semantics for links, no escape under racing renames,
no leaked descriptors."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.system.fs import LINK_DIR, DeviceFS, PathEscapeError


@pytest.fixture
def fs(tmp_path: Path) -> DeviceFS:
    (tmp_path / "root").mkdir()
    dfs = DeviceFS(tmp_path / "root")
    dfs.create_skeleton()
    return dfs


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_links_resolve_like_chroot(fs: DeviceFS, tmp_path: Path) -> None:
    fs.write_bytes("/etc/hosts", b"device hosts")
    fs.symlink("/etc", "/sdcard/abs")  # absolute: from the device root
    fs.symlink("../../../../../../../../etc", "/sdcard/rel")  # `..` stops at the device root
    fs.symlink(str(tmp_path), "/sdcard/host")  # a host path is just a device path
    assert fs.read_bytes("/sdcard/abs/hosts") == b"device hosts"
    assert fs.read_bytes("/sdcard/rel/hosts") == b"device hosts"
    assert fs.canonical("/sdcard/rel/hosts") == "/system/etc/hosts"  # /etc is a link to it
    assert fs.readlink("/sdcard/rel") == "../../../../../../../../etc"
    with pytest.raises(FileNotFoundError):
        fs.read_bytes("/sdcard/host/root/etc/hosts")
    assert fs.host("/sdcard/abs/hosts") == fs.root / "system/etc/hosts"


def test_host_links_dangle_and_the_reserved_name_is_refused(fs: DeviceFS) -> None:
    fs.symlink("/etc", "/sdcard/e")
    raw = os.readlink(fs.root / "storage/emulated/0/e")
    assert raw == f"{LINK_DIR}//etc"
    assert not (fs.root / "storage/emulated/0/e").exists()  # the kernel finds nothing
    for bad in (f"/sdcard/{LINK_DIR}", f"/{LINK_DIR}/etc"):
        with pytest.raises(PathEscapeError):
            fs.mkdir(bad)
    with pytest.raises(PathEscapeError):
        fs.symlink(f"{LINK_DIR}/x", "/sdcard/l")


def test_link_loops_end_with_eloop(fs: DeviceFS) -> None:
    fs.symlink("/sdcard/b", "/sdcard/a")
    fs.symlink("/sdcard/a", "/sdcard/b")
    with pytest.raises(OSError) as info:
        fs.read_bytes("/sdcard/a")
    assert info.value.errno == errno.ELOOP


def test_operations_leak_no_descriptors(fs: DeviceFS) -> None:
    fs.mkdir("/sdcard/t/u", parents=True)
    fs.symlink("/sdcard/t", "/sdcard/lt")
    before = open_fds()
    for i in range(200):
        fs.write_bytes(f"/sdcard/lt/u/f{i}", b"x")
        fs.read_bytes(f"/sdcard/t/u/f{i}")
        fs.entries("/sdcard/lt/u")
        list(fs.walk("/sdcard/t"))
        fs.copy("/sdcard/t/u", f"/sdcard/c{i % 3}")
        fs.rename(f"/sdcard/t/u/f{i}", f"/sdcard/t/g{i}")
        fs.remove(f"/sdcard/c{i % 3}", recursive=True)
        with pytest.raises(FileNotFoundError):
            fs.read_bytes("/sdcard/none/x")
    assert open_fds() == before


def test_racing_renames_never_reach_outside(fs: DeviceFS, tmp_path: Path) -> None:
    """One thread swaps a folder for a host link to a canary, over and over; the other writes,
    reads, lists and deletes through the path. With check-then-use by path this escapes."""
    canary = tmp_path / "canary"
    canary.mkdir()
    (canary / "f").write_text("secret")
    fs.mkdir("/sdcard/sw/real", parents=True)
    fs.write_bytes("/sdcard/sw/real/f", b"inside")
    os.symlink(canary, fs.root / "storage/emulated/0/sw/evil")
    stop = threading.Event()
    base = fs.root / "storage/emulated/0/sw"

    def swapper() -> None:
        while not stop.is_set():
            try:
                os.rename(base / "real", base / "tmp")
                os.rename(base / "evil", base / "real")
                os.rename(base / "real", base / "evil")
                os.rename(base / "tmp", base / "real")
            except OSError:
                pass

    thread = threading.Thread(target=swapper)
    thread.start()
    seen = set()
    try:
        for _ in range(3000):
            try:
                fs.write_bytes("/sdcard/sw/real/f", b"inside")
                seen.add(fs.read_bytes("/sdcard/sw/real/f"))
                fs.entries("/sdcard/sw/real")
                fs.remove("/sdcard/sw/real/g")
            except OSError:
                pass
    finally:
        stop.set()
        thread.join()
    assert (canary / "f").read_text() == "secret" and sorted(p.name for p in canary.iterdir()) == ["f"]
    assert b"secret" not in seen


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "a", "l", "sdcard", "etc", LINK_DIR[:5], "/", ""]), max_size=10))
def test_any_path_resolves_inside_the_root(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str]
) -> None:
    root = tmp_path_factory.mktemp("p") / "root"
    root.mkdir()
    fs = DeviceFS(root)
    fs.create_skeleton()
    fs.mkdir("/a")
    fs.symlink("../../..", "/a/l")
    fs.symlink("/", "/l")
    fs.symlink("missing/../../../../../..", "/a/dangling")  # `..` after a missing folder
    path = "/".join([*parts, "dangling", "x"] if len(parts) % 2 else parts)
    try:
        host = fs.host(path, "/a")
    except (OSError, PathEscapeError):
        return
    assert host == fs.root or fs.root in host.parents
    assert ".." not in host.parts


def test_a_dangling_link_with_dotdots_maps_inside_the_root(fs: DeviceFS) -> None:
    fs.mkdir("/a")
    fs.symlink("missing/../../../../../../../../..", "/a/dangling")
    host = fs.host("/a/dangling/x")
    assert fs.root in host.parents and ".." not in host.parts
