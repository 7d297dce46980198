"""kill -9 during `avd snapshot save/load` never leaves a device mixed: it comes back whole or refuses.

A real `mgfarm sim serve` worker keeps its device root on disk; the test SIGKILLs it at random
moments of a save or a load, starts it again on the same data folder, and reads the root.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.adb.console import console_command
from mgfarm.adb.errors import ConsoleError
from mgfarm.farm.ports import quiet_range_start

FILES = 400  # enough that a load or a save takes tens of milliseconds, so kills land inside them
ROUNDS = 12


class Worker:
    """One device in a `python -m mgfarm.sim serve` process on a fixed data folder."""

    def __init__(self, tmp_path: Path) -> None:
        self.data = tmp_path / "data"
        self.token_file = tmp_path / "token"
        self.token_file.write_text("t0ken")
        self.console = quiet_range_start(1)
        self.proc: subprocess.Popen[str] | None = None

    @property
    def root(self) -> Path:
        return self.data / f"emulator-{self.console}" / "root"

    @property
    def snapshots(self) -> Path:
        return self.data / "snapshots"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "mgfarm.sim", "serve", "--adb-port", str(self.console + 1)),
                *("--data", str(self.data), "--token-file", str(self.token_file)),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("ready "), f"worker did not start: {line!r}"

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)

    def command(self, text: str) -> str:
        return console_command(self.console, "t0ken", text, timeout=60)

    def timed(self, text: str) -> float:
        """Seconds a command takes end to end; kills land in up to 3 such spans (a fresh worker is slower)."""
        started = time.monotonic()
        self.command(text)
        return time.monotonic() - started

    def send_then_kill(self, text: str, delay: float) -> None:
        """Send one console command and SIGKILL the worker `delay` seconds later, reply or not."""
        with socket.create_connection(("127.0.0.1", self.console), timeout=10) as sock:
            sock.sendall(f"auth t0ken\r\n{text}\r\n".encode())
            time.sleep(delay)
            self.kill()


def write_set(root: Path, tag: str) -> None:
    """Replace the device's `set` folder with FILES files holding `tag`."""
    folder = root / "storage/emulated/0/set"
    if folder.exists():
        for path in folder.iterdir():
            path.unlink()
    else:
        folder.mkdir(parents=True)
    for i in range(FILES):
        (folder / f"{tag}_{i:03d}").write_text(tag)


def read_set(root: Path) -> set[str]:
    """The tags found in the `set` folder (names and contents); one tag means whole."""
    folder = root / "storage/emulated/0/set"
    names = sorted(p.name for p in folder.iterdir())
    tags = {n.split("_")[0] for n in names} | {p.read_text() for p in folder.iterdir()}
    if len(names) != FILES:
        tags.add(f"{len(names)} files")
    return tags


def leftovers(worker: Worker) -> list[str]:
    found = [p.name for p in worker.root.parent.iterdir() if p.name != "root"]
    found += [p.name for p in worker.snapshots.iterdir() if p.name.startswith(".")]
    return found


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[Worker]:
    w = Worker(tmp_path)
    w.start()
    yield w
    w.stop()


def test_kill_during_load_leaves_the_old_root_or_the_snapshot_never_a_mix(worker: Worker) -> None:
    write_set(worker.root, "A")
    worker.command("avd snapshot save golden")
    span = max(worker.timed("avd snapshot load golden") for _ in range(3))
    rng = random.Random(7)
    outcomes = {"A": 0, "B": 0}
    for _ in range(ROUNDS):
        write_set(worker.root, "B")
        worker.send_then_kill("avd snapshot load golden", rng.uniform(0.0, 3 * span))
        worker.start()  # recovers what the kill left
        tags = read_set(worker.root)
        assert tags in ({"A"}, {"B"}), f"device root mixed after kill -9 mid-load: {tags}"
        assert leftovers(worker) == []
        outcomes[tags.pop()] += 1
    print(
        f"load takes {span * 1000:.0f} ms; kill -9 in it, {ROUNDS} rounds: "
        f"{outcomes['B']} came back old, {outcomes['A']} restored"
    )
    worker.command("avd snapshot load golden")  # and the snapshot itself is intact
    assert read_set(worker.root) == {"A"}


def test_kill_during_save_leaves_the_old_snapshot_or_the_new_one(worker: Worker) -> None:
    write_set(worker.root, "A")
    span = max(worker.timed("avd snapshot save mine") for _ in range(3))
    rng = random.Random(11)
    outcomes: dict[str, int] = {}
    for i in range(ROUNDS):
        tag = "B" if i % 2 == 0 else "A"
        write_set(worker.root, tag)
        worker.send_then_kill("avd snapshot save mine", rng.uniform(0.0, 3 * span))
        worker.start()
        assert leftovers(worker) == []
        files = worker.snapshots / "mine" / "files"
        tags = read_set(files)
        assert len(tags) == 1, f"snapshot mixed after kill -9 mid-save: {tags}"
        json.loads((worker.snapshots / "mine" / "state.json").read_text())
        saved = tags.pop()
        outcomes[saved] = outcomes.get(saved, 0) + 1
        worker.command("avd snapshot load mine")
        assert read_set(worker.root) == {saved}
    print(f"save takes {span * 1000:.0f} ms; kill -9 in it, {ROUNDS} rounds: snapshot holds {outcomes}")


def test_corrupt_snapshots_get_a_ko_sentence_and_the_session_stays_open(worker: Worker) -> None:
    write_set(worker.root, "A")
    worker.command("avd snapshot save broken")
    state = worker.snapshots / "broken" / "state.json"
    os.chmod(state, 0o644)
    state.write_text('{"meta": {}, "state": {"services": []}}')
    write_set(worker.root, "B")
    with socket.create_connection(("127.0.0.1", worker.console), timeout=10) as sock:
        sock.sendall(b"auth t0ken\r\navd snapshot load broken\r\nping\r\n")
        reply = b""
        while b"I am alive" not in reply:
            chunk = sock.recv(4096)
            assert chunk, f"console dropped the connection: {reply!r}"
            reply += chunk
    text = reply.decode()
    assert "KO: snapshot 'broken' is corrupt: state.json has 'services' that are not a map of objects" in text
    assert read_set(worker.root) == {"B"}
    with pytest.raises(ConsoleError, match="KO: snapshot 'nosuch' does not exist"):
        worker.command("avd snapshot load nosuch")
