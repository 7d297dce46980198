"""Summaries of repeated measurements: median and p99, never a single sample passed off as a result."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def summarize(values: Sequence[float]) -> dict[str, float | int]:
    """n, median, p99, mean, min and max of the samples (all 0 when there are none)."""
    if not values:
        return {"n": 0, "median": 0.0, "p99": 0.0, "mean": 0.0, "min": 0.0, "max": 0.0}
    arr = np.asarray(values, dtype=float)
    return {
        "n": int(arr.size),
        "median": round(float(np.median(arr)), 3),
        "p99": round(float(np.percentile(arr, 99)), 3),
        "mean": round(float(arr.mean()), 3),
        "min": round(float(arr.min()), 3),
        "max": round(float(arr.max()), 3),
    }
