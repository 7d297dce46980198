"""The worker keeps freed buffers: composing new screens must not page-fault for every frame."""

from __future__ import annotations

import subprocess
import sys

import pytest

FRAMES = """
import resource
import numpy as np
from mgfarm.sim.heap import keep_freed_memory
if not keep_freed_memory():
    print("untunable")
    raise SystemExit
def frame():  # a canvas, its bytes and the filtered rows, as composing a new screen allocates them
    for buf in [np.empty(10 << 20, np.uint8) for _ in range(3)]:
        buf.fill(1)
frame()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    frame()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def test_new_frames_reuse_freed_memory() -> None:
    # A fresh process: the tuning is process-wide and the test runner's own allocator stays as it is.
    run = subprocess.run([sys.executable, "-c", FRAMES], capture_output=True, text=True, check=True)
    tuned = run.stdout.strip()
    if tuned == "untunable":
        pytest.skip("the C library is not glibc: there is no mallopt to tune")
    # 10 frames of 30 MB fault ~7,500 times (15,000 here) when every buffer is mapped anew.
    assert int(tuned) < 500


IDLE = """
import asyncio, os, time
import numpy as np
from mgfarm.sim.heap import keep_freed_memory, trim_when_idle
if not keep_freed_memory():
    print("untunable")
    raise SystemExit
def rss_mib():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20
async def main():
    trimmer = asyncio.get_running_loop().create_task(trim_when_idle(window=0.2))
    await asyncio.sleep(0)  # the trimmer runs from the start, as in a worker
    bufs = [np.empty(10 << 20, np.uint8) for _ in range(6)]  # a busy spell that frees 60 MB
    start = time.process_time()
    while time.process_time() - start < 0.1:  # busy by the trimmer's measure on any CPU (> 5 % of 0.2 s)
        for buf in bufs:
            buf.fill(1)
    del bufs
    kept = rss_mib()
    for _ in range(50):  # the trimmer needs one busy window, then one idle window
        await asyncio.sleep(0.1)
        if rss_mib() < kept - 40:
            break
    trimmer.cancel()
    print(kept, rss_mib())
asyncio.run(main())
"""


def test_an_idle_worker_gives_the_kept_heap_back() -> None:
    run = subprocess.run([sys.executable, "-c", IDLE], capture_output=True, text=True, check=True)
    if run.stdout.strip() == "untunable":
        pytest.skip("the C library is not glibc: there is no malloc_trim")
    kept, idle = (int(x) for x in run.stdout.split())
    assert idle < kept - 40, f"RSS {kept} MiB with 60 MB freed, still {idle} MiB once idle"


LIGHT = """
import asyncio, time
from mgfarm.sim.heap import trim_when_idle
calls = {"light": 0, "busy": 0, "idle": 0}
def worked(light):
    calls["light" if light else "busy"] += 1
def idle():
    calls["idle"] += 1
async def main():
    trimmer = asyncio.get_running_loop().create_task(trim_when_idle(window=0.2, also=idle, worked=worked))
    for _ in range(10):  # 0.03 s of CPU every 0.2 s: ~15 % of a core, an agent's pace
        start = time.process_time()
        while time.process_time() - start < 0.03:
            pass
        await asyncio.sleep(0.17)
    light_windows = calls["light"]
    start = time.process_time()
    while time.process_time() - start < 0.5:  # then busy: a whole core
        await asyncio.sleep(0)
    busy_windows = calls["busy"]
    await asyncio.sleep(0.5)  # then nothing: idle
    trimmer.cancel()
    print(light_windows, busy_windows, calls["idle"])
asyncio.run(main())
"""


def test_a_lightly_used_worker_is_told_so_after_each_window() -> None:
    """Devices stepped at an agent's pace never leave their worker idle for a whole window; it
    still learns that it used little CPU, to give memory back as it goes, and all of it once idle."""
    run = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True, check=True)
    light, busy, idle = (int(x) for x in run.stdout.split())
    assert light >= 3, f"{light} windows of light use told in ~10"
    assert busy >= 1, "half a second of a whole core was never told as busy"
    assert idle >= 1  # (more when the machine stretched a window of light use under 5 %)
