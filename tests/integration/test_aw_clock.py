"""AndroidWorld's Clock tasks, unchanged, on a simulated device with the default (Google apps) profile.

Each task clears com.google.android.deskclock in `initialize_task`, scores 0.0 untouched (the launcher
is in front) and 1.0 after a solution that opens the app and taps what the UI tree shows: the timer's
keypad for ClockTimerEntry, the stopwatch's Start/Pause buttons (named by their content descriptions,
which AndroidWorld's validators read) for the stopwatch tasks.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]


def clock_task(name: str) -> type:
    from android_world.task_evals.single import clock

    cls: type = getattr(clock, name)
    return cls


def open_tab(dev: AwDevice, tab: str) -> None:
    dev.launch("clock")
    dev.phone.tap(desc=tab)


def enter_timer(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Type HHMMSS on the keypad (digits shift in from the right); the timer is not started."""
    open_tab(dev, "Timer")
    for digit in f"{raw['hours']:02d}{raw['minutes']:02d}{raw['seconds']:02d}":
        dev.phone.tap(text=digit)


def run_stopwatch(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    open_tab(dev, "Stopwatch")
    dev.phone.tap(desc="Start")


def pause_stopwatch(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Start it, then pause it: the paused screen shows Start again (and Reset)."""
    run_stopwatch(dev, task, raw)
    dev.phone.tap(desc="Pause")


TASKS = [
    ("ClockTimerEntry", enter_timer),
    ("ClockStopWatchRunning", run_stopwatch),
    ("ClockStopWatchPausedVerify", pause_stopwatch),
]
CASES = [(name, solve, seed) for name, solve in TASKS for seed in (1, 2)]


@pytest.mark.parametrize(("name", "solve", "seed"), CASES, ids=[f"{n}-{s}" for n, _, s in CASES])
def test_clock_task(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, clock_task(name), seed, solve)


def test_clear_resets_the_stopwatch(aw_device: AwDevice) -> None:
    """AndroidWorld's precondition for the stopwatch tasks: `pm clear` leaves it at zero, not running."""
    from android_world.env import adb_utils

    run_stopwatch(aw_device, None, {})
    adb_utils.clear_app_data("com.google.android.deskclock", aw_device.env.controller)
    open_tab(aw_device, "Stopwatch")
    assert aw_device.phone.has("00:00:00")
    aw_device.phone.node(desc="Start")
