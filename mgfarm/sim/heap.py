"""Keep freed memory in the worker process instead of handing it back to the kernel at once.

Composing a new screen allocates a few buffers of 8-10 MB (the canvas, its bytes, the filtered
rows). With glibc's defaults each is mapped fresh and returned when freed, so every new screen
page-faults ~2,700 times: ~5 ms of kernel time, as much as the render itself. Serving from the heap
and trimming it only past 256 MB removes that for a few tens of MB kept per process.
"""

from __future__ import annotations

import ctypes

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest allowed value on 64-bit
TRIM_THRESHOLD = 256 * 1024 * 1024


def keep_freed_memory() -> bool:
    """Tune glibc malloc for large, short-lived buffers; False where the C library is not glibc."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
