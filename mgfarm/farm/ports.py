"""Ports of emulator-style devices: console even, adb = console + 1, and (optionally) a gRPC port.

A device's gRPC port follows its console port (`grpc_port_for`): consecutive consoles get
consecutive gRPC ports, so a `sim serve --grpc BASE` worker that hosts a run of consecutive pairs
serves exactly the ports the farm planned (BASE for its first device, BASE + 1 for the next, ...).
"""

from __future__ import annotations

import random
import socket
from collections.abc import Iterable
from pathlib import Path

from mgfarm.adb.server import SCANNED_ADB_PORTS
from mgfarm.errors import MgfarmError

# Farm devices live above the range every adb server scans, announced to their own farm's server only.
FIRST_CONSOLE_PORT = SCANNED_ADB_PORTS.stop  # 5586: the console port (even), adb on 5587
LAST_PORT = 65535
# Emulators started by hand and android_env take gRPC 8554 up (8554 is the emulator's documented
# default): farm devices start above that range as their consoles do above 5554-5585.
FIRST_GRPC_PORT = 8586


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """True when something already listens on (or holds) `port`, so binding it would fail."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As the devices' own listeners do: connections of a stopped device in TIME_WAIT do not count.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def free_port(host: str = "127.0.0.1") -> int:
    """A port the kernel considers free right now (for tests and helper servers)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def ephemeral_low() -> int:
    """Where the kernel starts picking client ports (Linux default 32768)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def quiet_range_start(count: int, low: int = 20000, high: int = 0) -> int:
    """An even console port P with P .. P+2*count-1 free, well above the farm range, for short-lived
    helper farms (snapshot builds, benchmarks) that must not race the user's farms for ports.

    The range ends below the kernel's client ports by default: there, ports free now are taken
    at random moments by outgoing connections (each adb command opens one).
    """
    high = high or max(ephemeral_low(), low + 2 * count + 2)
    rng = random.Random()
    for _ in range(200):
        first = rng.randrange(low, high - 2 * count, 2)
        if not any(port_in_use(port) for port in range(first, first + 2 * count)):
            return first
    raise MgfarmError(f"No run of {2 * count} free ports between {low} and {high}; free some and retry.")


def max_pairs(start: int = FIRST_CONSOLE_PORT) -> int:
    """How many pairs fit between `start` and the last TCP port, ignoring ports in use."""
    return (LAST_PORT - start + 1) // 2


def grpc_port_for(console: int) -> int:
    """The gRPC port of the device whose console is `console` (5586 -> 8586, 5588 -> 8587, ...)."""
    return FIRST_GRPC_PORT + (console - FIRST_CONSOLE_PORT) // 2


def allocate_pairs(
    count: int, start: int = FIRST_CONSOLE_PORT, reserved: Iterable[int] = (), grpc: bool = False
) -> list[tuple[int, int]]:
    """`count` (console, adb) pairs from `start` upwards, skipping pairs where either port is taken.

    `reserved` holds ports promised to other farms that may not be bound at this moment. `grpc`:
    each pair's gRPC port (`grpc_port_for`) must be free too, and no pair may take one of them.
    """
    if count <= 0:
        raise MgfarmError(f"--replicas must be at least 1 (got {count}).")
    if start % 2:
        raise MgfarmError(
            f"The first console port must be even (got {start}); emulator consoles use even ports."
        )
    if count > max_pairs(start):
        raise MgfarmError(
            f"{count} replicas need {2 * count} ports but only {2 * max_pairs(start)} exist from {start}; "
            "ask for fewer replicas."
        )
    taken = set(reserved)
    pairs: list[tuple[int, int]] = []
    console = start
    while len(pairs) < count and console + 1 <= LAST_PORT:
        wanted = [console, console + 1]
        if grpc:
            wanted.append(grpc_port_for(console))
        if all(1 <= port <= LAST_PORT and port not in taken and not port_in_use(port) for port in wanted):
            pairs.append((console, console + 1))
            taken.update(wanted)  # a later pair's console may not land on this one's gRPC port
        console += 2
    if len(pairs) < count:
        raise MgfarmError(
            f"Only {len(pairs)} free console/adb port pairs exist from {start}, but {count} replicas "
            "were asked for; stop what holds those ports or ask for fewer replicas."
        )
    return pairs


def consecutive_runs(pairs: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Split pairs into runs where each console port is the previous one + 2."""
    runs: list[list[tuple[int, int]]] = []
    for pair in pairs:
        if runs and runs[-1][-1][0] + 2 == pair[0]:
            runs[-1].append(pair)
        else:
            runs.append([pair])
    return runs
