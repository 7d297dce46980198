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
