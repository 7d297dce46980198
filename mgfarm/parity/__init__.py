"""Parity checks: the same commands run on any adb-reachable device (a real emulator, the simulated
device, a phone), their output recorded into versioned JSON files and reduced to shapes that the
simulated device's tests compare (`make parity SERIAL=...`, tests/parity/)."""
