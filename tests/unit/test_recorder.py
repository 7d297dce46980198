"""The trajectory recorder numbers episodes in one sequence per run folder, whoever records into it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from mgfarm.env.recorder import LAST_EPISODE, Recorder

ROOT = Path(__file__).resolve().parents[2]

RECORD_IN_ANOTHER_PROCESS = """
import sys
from mgfarm.env.recorder import Recorder
recorder = Recorder(sys.argv[1])
for _ in range(30):
    recorder.episode("other.task", 2).close()
"""


def numbers(run: Path) -> list[int]:
    return sorted(int(p.name.split("-")[0]) for p in run.iterdir() if p.is_dir())


def test_recorders_in_several_processes_and_threads_share_one_sequence(tmp_path: Path) -> None:
    run = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    other = subprocess.Popen([sys.executable, "-c", RECORD_IN_ANOTHER_PROCESS, str(run)], env=env)
    recorders = [Recorder(run), Recorder(run)]

    def record(recorder: Recorder) -> None:
        for _ in range(15):
            recorder.episode("some.task", 1, replica=3).close()

    threads = [threading.Thread(target=record, args=(r,)) for r in recorders for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert other.wait(timeout=60) == 0
    assert numbers(run) == list(range(1, 91))  # no number twice, none left out
    assert len([p for p in run.iterdir() if p.name.endswith("-some.task-s1-r3")]) == 60


def test_a_folder_recorded_before_continues_after_its_last_episode(tmp_path: Path) -> None:
    (tmp_path / "00007-old.task-s1-r0").mkdir()
    (tmp_path / "notes.txt").write_text("not an episode")
    writer = Recorder(tmp_path).episode("new.task", 4)
    writer.close()
    assert writer.folder.name == "00008-new.task-s4"
    writer = Recorder(tmp_path).episode("new.task", 5)
    writer.close()
    assert writer.folder.name == "00009-new.task-s5"


def test_a_counter_file_that_holds_no_number_counts_on_from_the_folders(tmp_path: Path) -> None:
    Recorder(tmp_path).episode("a.b", 0)
    Recorder(tmp_path).episode("a.b", 1)
    (tmp_path / LAST_EPISODE).write_text("garbage\n")
    assert Recorder(tmp_path).episode("a.b", 2).folder.name.startswith("00003-")
