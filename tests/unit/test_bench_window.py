"""`mgfarm bench` workloads and accounting: which steps count, the dial-pad plan, CPU per step."""

from __future__ import annotations

import itertools
import mmap
import os
import time
from pathlib import Path
from typing import Any

import pytest

from mgfarm.bench import usage
from mgfarm.bench.workloads import (
    CYCLE,
    DIAL_DIGITS,
    MIXED,
    NEW_FRAME,
    UNIQUE_PREFIX,
    counted,
    dial_number,
    dial_step,
    new_frame_action,
    new_frame_counted,
    steps_for,
)


def test_warm_up_steps_are_not_counted() -> None:
    assert [counted(step, 3) for step in range(5)] == [False, False, False, True, True]
    assert steps_for(MIXED, warmup=10, window=50) == 60
    assert steps_for(MIXED, warmup=0, window=1) == 1


def test_new_frame_counts_only_taps_past_the_shared_prefix_and_warm_up() -> None:
    # Step 0 opens the app; each cycle opens the pad, types DIAL_DIGITS digits and goes back.
    assert dial_step(1) == (0, 0) and dial_step(CYCLE) == (0, CYCLE - 1) and dial_step(CYCLE + 1) == (1, 0)
    first = [step for step in range(1, CYCLE + 1) if new_frame_counted(step, warmup=0)]
    assert first == list(range(1 + UNIQUE_PREFIX, 1 + DIAL_DIGITS + 1))  # digits 4..13 of the number
    assert not new_frame_counted(0, warmup=0)
    assert not any(new_frame_counted(step, warmup=CYCLE + 1) for step in range(CYCLE + 1))
    total = steps_for(NEW_FRAME, warmup=10, window=50)
    assert sum(new_frame_counted(step, 10) for step in range(total)) == 50
    assert new_frame_counted(total - 1, 10)


def test_dial_numbers_never_share_their_prefix_within_a_farm() -> None:
    envs = 16
    numbers = [dial_number(env, cycle, envs) for env in range(envs) for cycle in range(20)]
    assert all(len(n) == DIAL_DIGITS and n.isdigit() for n in numbers)
    assert len({n[:UNIQUE_PREFIX] for n in numbers}) == len(numbers)
    assert dial_number(3, 2, envs) == dial_number(3, 2, envs)  # a repeatable run


def _key(digit: str, index: int) -> dict[str, Any]:
    return {
        "index": index,
        "resource_id": f"com.google.android.dialer:id/dialpad_key_{digit}",
        "content_desc": digit,
    }


def test_new_frame_taps_keys_by_id_wherever_they_are() -> None:
    number = dial_number(0, 0, 1)
    pad = {"ui_elements": [_key(d, 10 + i) for i, d in enumerate("0123456789")]}
    shifted = {
        "ui_elements": [{"index": 0, "resource_id": "x:id/digits", "content_desc": ""}, *pad["ui_elements"]]
    }
    assert new_frame_action(0, None) == ({"action_type": "open_app", "app_name": "Phone"}, True)
    action, on_plan = new_frame_action(2, shifted)
    assert on_plan and action == {"action_type": "click", "index": 10 + int(number[0])}
    assert new_frame_action(CYCLE, pad) == ({"action_type": "navigate_back"}, True)


def test_new_frame_off_plan_steps_go_back_towards_the_pad() -> None:
    main = {
        "ui_elements": [
            {"index": 4, "resource_id": "com.google.android.dialer:id/dialpad_fab", "content_desc": ""}
        ]
    }
    assert new_frame_action(1, main) == ({"action_type": "click", "index": 4}, True)
    assert new_frame_action(5, main) == ({"action_type": "click", "index": 4}, False)
    action, on_plan = new_frame_action(5, {"ui_elements": []})
    assert action["action_type"] == "open_app" and not on_plan


def test_cpu_per_step_sums_every_group_over_the_window() -> None:
    before = {"sim": 10.0, "adb": 2.0, "watchdog": 1.0, "client": 5.0}
    after = {"sim": 10.5, "adb": 2.1, "watchdog": 1.0, "client": 5.4}
    window = usage.cpu_delta(before, after)
    assert window == pytest.approx({"sim": 0.5, "adb": 0.1, "watchdog": 0.0, "client": 0.4})
    # Two segments of one window add up; a process that restarted (its counter went back) adds 0.
    second = usage.cpu_delta({"sim": 20.0, "client": 6.0}, {"sim": 3.0, "client": 6.5})
    total = usage.add_cpu(window, second)
    assert total == pytest.approx({"sim": 0.5, "adb": 0.1, "watchdog": 0.0, "client": 0.9})
    assert usage.cpu_ms_per_step(total, 100) == pytest.approx(15.0)
    assert usage.cpu_ms_per_step(total, 0) == 0.0


def test_process_cpu_reads_this_process_and_zero_for_a_gone_one() -> None:
    import os

    assert usage.process_cpu_s(os.getpid()) >= 0.0
    assert usage.process_cpu_s(2**22 + 7) == 0.0


def test_frame_files_count_once_whether_mapped_or_not(tmp_path: Path) -> None:
    # A written frame file is memory on a tmpfs even when no process maps it; a worker that maps
    # it must not count its pages a second time.
    frame = tmp_path / "emulator-5554.frame"
    frame.write_bytes(b"\1" * (1 << 20))
    assert usage.frame_files_kib(str(tmp_path)) >= 1024
    assert usage.frame_files_kib("") == 0
    with frame.open("r+b") as f, mmap.mmap(f.fileno(), 0) as mapping:
        assert sum(mapping[i] for i in range(0, len(mapping), mmap.PAGESIZE)) > 0  # touch every page
        assert usage.mapped_kib(os.getpid(), str(tmp_path)) >= 1000
    assert usage.mapped_kib(os.getpid(), str(tmp_path)) == 0
    assert usage.mapped_kib(os.getpid(), "") == 0


class _PacedEnv:
    def __init__(self, steps: list[tuple[int, float]], index: int) -> None:
        self.unwrapped = self
        self.last_timings: dict[str, float] = {}
        self._steps = steps
        self._index = index

    def step(self, action: dict[str, Any]) -> tuple[Any, ...]:
        self._steps.append((self._index, time.perf_counter()))
        self.last_timings = {"total_ms": 2.0}
        return {"ui_elements": []}, 0.0, False, False, {}


class _PacedPool:
    def __init__(self, size: int) -> None:
        self.steps: list[tuple[int, float]] = []
        self.envs = [_PacedEnv(self.steps, i) for i in range(size)]

    def __len__(self) -> int:
        return len(self.envs)

    def reset_all(self) -> tuple[list[Any], list[dict[str, Any]]]:
        return [{"ui_elements": []}] * len(self.envs), [{}] * len(self.envs)


def test_paced_steps_each_env_once_a_period_in_turns() -> None:
    """The agent's pace the bench measures memory at: envs take turns, none faster than its period."""
    from mgfarm.bench.measure import run_paced

    pool = _PacedPool(4)
    readings = iter([{"sim": 1.0}, {"sim": 1.5}])
    sample = run_paced(pool, lambda: next(readings), period=0.2, rounds=3)
    assert [index for index, _ in pool.steps] == [0, 1, 2, 3] * 3
    for env in range(4):
        times = [t for index, t in pool.steps if index == env]
        assert all(b - a >= 0.2 - 1e-3 for a, b in itertools.pairwise(times))
    assert sample.steps == 12 and sample.step_ms == [2.0] * 12
    assert sample.cpu_s == {"sim": 0.5}
