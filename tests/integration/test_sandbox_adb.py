"""The device sandbox over the real adb server (issue 23): escapes through `adb shell`, push and pull
stay inside the device root, and a device stuck on a query leaves its neighbour answering."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import AdbServer, SimHandle, SimProcess

TOKEN = "CANARY-adb-51c0ffee"


@pytest.fixture(scope="module")
def pair(adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[SimHandle]]:
    """Two devices served by one process (one event loop)."""
    proc = SimProcess(adb_server, tmp_path_factory.mktemp("sandbox_adb"), 2)
    try:
        yield proc.wait_ready()
    finally:
        proc.stop()


@pytest.fixture
def canary(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "canary"
    folder.mkdir()
    (folder / "secret.txt").write_text(TOKEN)
    con = sqlite3.connect(folder / "canary.db")
    con.execute("CREATE TABLE t(v)")
    con.execute("INSERT INTO t VALUES (?)", (TOKEN,))
    con.commit()
    con.close()
    before = digest(folder)
    yield folder
    assert digest(folder) == before, "the canary outside the device root was written or removed"


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        h.update(str(path.relative_to(folder)).encode())
        h.update(path.read_bytes() if path.is_file() else b"<dir>")
        h.update(str(path.stat().st_mtime_ns).encode())
    return h.hexdigest()


def shell(
    server: AdbServer, device: SimHandle, line: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return server.adb("-s", device.serial, "shell", line, timeout=timeout)


def plant(device: SimHandle, device_path: str, target: Path) -> None:
    """A host symlink in the device root, as an old escape left one."""
    link = device.data_dir / "root" / device_path.lstrip("/")
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


def test_issue_probes_over_adb_shell(adb_server: AdbServer, pair: list[SimHandle], canary: Path) -> None:
    dev = pair[0]
    shell(adb_server, dev, "mkdir -p /sdcard/w/T /data/local/tmp/e2")
    plant(dev, "/data/local/tmp/e2/T", canary)
    swap = shell(
        adb_server,
        dev,
        "{ mv /sdcard/w /sdcard/w_old; mv /data/local/tmp/e2 /sdcard/w; echo X; } > /sdcard/w/T/secret.txt",
    )
    assert swap.returncode == 0
    assert shell(adb_server, dev, "cat /sdcard/w_old/T/secret.txt").stdout == "X\n"
    db = "/data/local/tmp/probe.db"
    attach = shell(adb_server, dev, f"sqlite3 {db} \"ATTACH '{canary}/canary.db' AS c; SELECT * FROM c.t\"")
    assert attach.returncode == 1 and "not allowed" in attach.stderr
    vacuum = shell(adb_server, dev, f"sqlite3 {db} \"VACUUM INTO '{canary}/stolen.db'\"")
    assert vacuum.returncode == 1
    listing = shell(adb_server, dev, f"sqlite3 {db} 'PRAGMA database_list'")
    assert listing.stdout == f"0|main|{db}\n"
    forged = shell(adb_server, dev, f"sqlite3 {db} \"SELECT fts3_tokenizer('simple', x'4141414141414141')\"")
    assert forged.returncode == 1
    assert shell(adb_server, dev, "echo alive").stdout == "alive\n"  # the worker did not crash
    for out in (swap, attach, vacuum, listing, forged):
        assert TOKEN not in out.stdout + out.stderr


def test_push_and_pull_through_planted_links_stay_inside(
    adb_server: AdbServer, pair: list[SimHandle], canary: Path, tmp_path: Path
) -> None:
    dev = pair[0]
    plant(dev, "/data/local/tmp/hostlink", canary)
    pulled = tmp_path / "pulled.txt"
    pull = adb_server.adb("-s", dev.serial, "pull", "/data/local/tmp/hostlink/secret.txt", str(pulled))
    assert pull.returncode != 0 and not pulled.exists()
    local = tmp_path / "payload.txt"
    local.write_text("pushed")
    adb_server.adb("-s", dev.serial, "push", str(local), "/data/local/tmp/hostlink/secret.txt")
    adb_server.adb("-s", dev.serial, "push", str(local), "/data/local/tmp/hostlink/new.txt")
    ls = shell(adb_server, dev, "ls /data/local/tmp/hostlink/")
    assert TOKEN not in ls.stdout + ls.stderr


def test_a_stuck_query_leaves_the_other_device_answering(
    adb_server: AdbServer, pair: list[SimHandle]
) -> None:
    stuck, other = pair
    query = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"
    busy = subprocess.Popen(
        [
            str(adb_server.binary),
            "-P",
            str(adb_server.port),
            "-s",
            stuck.serial,
            "shell",
            f"sqlite3 /data/local/tmp/q.db '{query}'",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=adb_server.env(),
    )
    try:
        time.sleep(0.3)  # the query is running
        for i in range(3):
            assert shell(adb_server, other, f"echo {i}").stdout == f"{i}\n"
        assert busy.poll() is None, "the other device answered only after the stuck query had ended"
        _, err = busy.communicate(timeout=60)
        assert b"interrupted" in err and busy.returncode == 1
    finally:
        if busy.poll() is None:
            busy.kill()
            busy.wait()
    assert shell(adb_server, stuck, "echo back").stdout == "back\n"
