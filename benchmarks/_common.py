"""Helpers the benchmark scripts share: nearest-rank percentiles and a process's resident memory."""

from __future__ import annotations

from pathlib import Path


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank `q` quantile (0..1) of `values`, a measured sample; 0.0 when there are none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MB, read from /proc (0.0 when the kernel does not say)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0
