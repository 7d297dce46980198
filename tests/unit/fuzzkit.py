"""Inputs for fuzzing a reader of files a device can write: a valid file with bytes changed, cut and
spliced with its own tail, or bytes inserted; now and then random bytes instead."""

from __future__ import annotations

import random


def mutated(rng: random.Random, valid: bytes) -> bytes:
    """`valid` with one to five changes, or (one time in ten) up to 200 random bytes."""
    if rng.random() < 0.1:
        return rng.randbytes(rng.randrange(200))
    data = bytearray(valid)
    for _ in range(rng.randrange(1, 6)):
        at = rng.randrange(len(data) + 1)
        roll = rng.random()
        if roll < 0.5 and at < len(data):
            data[at] = rng.randrange(256)
        elif roll < 0.8:
            del data[at:]
            data += valid[rng.randrange(len(valid)) :]
        else:
            data[at:at] = rng.randbytes(rng.randrange(1, 20))
    return bytes(data)
