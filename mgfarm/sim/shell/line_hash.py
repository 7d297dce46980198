"""toybox diff's line hash (h = h * 33 + byte from 5831, 31 bits kept) for every line at once.

numpy does the work: diff_cmd imports this module only when a comparison runs, in its worker
thread, so a device that never runs diff never loads numpy (or starts its thread pool).
"""

from __future__ import annotations

import functools

import numpy as np

HASH_BITS = (1 << 31) - 1
PERIOD_BITS = 26  # 33 = 1 + 2**5, so 33**(2**26) == 1 modulo 2**31: exponents matter modulo 2**26


@functools.lru_cache(maxsize=2)
def _power_tables(base: int) -> tuple[np.ndarray, np.ndarray]:
    """base**e for e below 2**13 and base**(e * 2**13), modulo 2**31: two small tables that give any
    power in one multiplication."""
    low = [pow(base, e, HASH_BITS + 1) for e in range(1 << 13)]
    high = [pow(base, e << 13, HASH_BITS + 1) for e in range(1 << 13)]
    return np.array(low, dtype=np.uint64), np.array(high, dtype=np.uint64)


INVERSE = pow(33, -1, HASH_BITS + 1)  # 33 is odd, so it has an inverse modulo 2**31


def _power(tables: tuple[np.ndarray, np.ndarray], exponent: np.ndarray) -> np.ndarray:
    low, high = tables
    exponent = exponent.astype(np.intp) & ((1 << PERIOD_BITS) - 1)
    return (high[exponent >> 13] * low[exponent & 8191]) & np.uint64(HASH_BITS)


def line_hashes(keys: list[bytes], chunk: int = 1 << 20) -> np.ndarray:
    """toybox's hash of each key, all at once: the sum of byte * 33**(end - 1 - position) over a
    line is 33**(end - 1) times a difference of prefix sums of byte * 33**-position (33 has an
    inverse modulo 2**31), and those prefix sums are numpy's, a chunk of the bytes at a time."""
    mask = np.uint64(HASH_BITS)
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    ends = np.cumsum(lengths)
    bounds = np.concatenate(([0], ends))
    stream = np.frombuffer(b"".join(keys), dtype=np.uint8)
    weights = _power(_power_tables(INVERSE), np.arange(min(chunk, len(stream))))
    prefix = np.zeros(len(bounds), dtype=np.uint64)  # the prefix sum at each line boundary
    carry = np.uint64(0)
    for base in range(0, len(stream), chunk):
        piece = stream[base : base + chunk].astype(np.uint64)
        scale = np.uint64(pow(INVERSE, base, HASH_BITS + 1))
        sums = np.cumsum(piece * ((weights[: len(piece)] * scale) & mask)) + carry  # below 2**60
        lo, hi = np.searchsorted(bounds, [base, base + len(piece)], "right")
        prefix[lo:hi] = sums[bounds[lo:hi] - base - 1] & mask
        carry = sums[-1] & mask
    body = (prefix[1:] - prefix[:-1]) & mask
    body = (_power(_power_tables(33), np.maximum(ends - 1, 0)) * body) & mask
    start = (np.uint64(5831) * _power(_power_tables(33), lengths)) & mask
    return (start + body) & mask


def equivalence(keys0: list[bytes], keys1: list[bytes]) -> tuple[list[int], list[int], list[int]]:
    """The second file's line numbers (1-based) sorted by hash, then number (toybox's order), and for
    each line of the first file the range of that list holding lines of its hash."""
    hashes1 = line_hashes(keys1)
    order = np.argsort(hashes1, kind="stable")
    ordered = hashes1[order]
    hashes0 = line_hashes(keys0)
    lows = np.searchsorted(ordered, hashes0, "left").tolist()
    highs = np.searchsorted(ordered, hashes0, "right").tolist()
    return (order + 1).tolist(), lows, highs
