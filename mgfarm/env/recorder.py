"""Trajectory recorder: one folder per episode with `episode.jsonl` and the screenshots.

Layout (`mgfarm eval` records through it too, and its report shows these screenshots):
    <run_dir>/<episode_id>/episode.jsonl   one JSON object per line:
        {"event": "reset", "task_id", "seed", "goal", "params", "replica", "timings"}
        {"event": "step", "step", "action", "reward", "terminated", "truncated", "error", "timings",
         "screenshot": "step_0001.png"}
        {"event": "end", "success", "progress", "clean", "side_effects", "checks", "reward",
         "steps", "failed", "answer", "seconds"}
    <run_dir>/<episode_id>/step_0000.png     the observation after reset (0) and after each step
    <run_dir>/.last_episode                  the number of the last episode begun (see `Recorder`)
"""

from __future__ import annotations

import fcntl
import json
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_NUMBERED = re.compile(r"(\d+)-")
LAST_EPISODE = ".last_episode"


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "model_dump"):
        return _jsonable(value.model_dump())
    return str(value)


class EpisodeWriter:
    """Appends events of one episode; screenshots are written next to the log."""

    def __init__(self, folder: Path, save_screenshots: bool = True) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.save_screenshots = save_screenshots
        self._log = (folder / "episode.jsonl").open("a", encoding="utf-8")

    def screenshot(self, step: int, pixels: np.ndarray | None) -> str | None:
        if not self.save_screenshots or pixels is None or pixels.size == 0:
            return None
        name = f"step_{step:04d}.png"
        Image.fromarray(pixels).save(self.folder / name, compress_level=1)
        return name

    def event(self, kind: str, **fields: Any) -> None:
        record = {"event": kind, "time": round(time.time(), 3), **_jsonable(fields)}
        self._log.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._log.flush()

    def close(self) -> None:
        self._log.close()


class Recorder:
    """Hands out one `EpisodeWriter` per episode under a run folder.

    Episodes are numbered 1, 2, ... in the order they begin, across every `Recorder` of the folder
    in any process (the worker processes of `make_vec(..., processes=K)` record their envs' episodes
    into one folder): the last number handed out is kept in `<run_dir>/.last_episode`, read and
    written under a file lock. A folder recorded before that file existed continues after its
    highest numbered episode.
    """

    def __init__(self, run_dir: str | Path, save_screenshots: bool = True) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.save_screenshots = save_screenshots

    def episode(self, task_id: str, seed: int, replica: int | None = None) -> EpisodeWriter:
        number = self._next_number()
        label = _UNSAFE.sub("_", f"{task_id}-s{seed}")
        suffix = f"-r{replica}" if replica is not None else ""
        folder = self.run_dir / f"{number:05d}-{label}{suffix}"
        return EpisodeWriter(folder, self.save_screenshots)

    def _next_number(self) -> int:
        # flock excludes every other open of the file: other processes' and this one's threads.
        with (self.run_dir / LAST_EPISODE).open("a+", encoding="utf-8") as counter:
            fcntl.flock(counter, fcntl.LOCK_EX)
            counter.seek(0)
            text = counter.read().strip()
            # No number (a new folder, or an edited file) counts on from the folders themselves.
            number = (int(text) if text.isdigit() else _highest_number(self.run_dir)) + 1
            counter.truncate(0)
            counter.write(f"{number}\n")
            counter.flush()
        return number


def _highest_number(run_dir: Path) -> int:
    """The highest episode number among the folders of `run_dir` (0 when there are none)."""
    numbers = (_NUMBERED.match(p.name) for p in run_dir.iterdir())
    return max((int(m.group(1)) for m in numbers if m), default=0)


def read_episode(folder: str | Path) -> list[dict[str, Any]]:
    """The events of one recorded episode, in order."""
    path = Path(folder) / "episode.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def trajectory(folder: str | Path, prefix: str = "") -> list[dict[str, Any]]:
    """One entry per action of a recorded episode: `step` (from 0), `action`, `error` when the
    action failed, and `screen`, the screenshot the action was chosen on (`prefix` + its file name).

    An action that failed leaves the screen as it was, so the recorder writes no new image; the
    next action was chosen on the last one written.
    """
    entries: list[dict[str, Any]] = []
    screen: str | None = None
    for event in read_episode(folder):
        if event["event"] == "step":
            entry: dict[str, Any] = {"step": len(entries), "action": event.get("action")}
            if event.get("error"):
                entry["error"] = event["error"]
            if screen is not None:
                entry["screen"] = prefix + screen
            entries.append(entry)
        if event.get("screenshot"):
            screen = event["screenshot"]
    return entries
