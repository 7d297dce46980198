"""/proc as a shell on the emulator reads it: the files tools read, made from the device's state when
opened (`DeviceFS.virtual`). Formats are the Linux kernel's; the numbers are the pinned emulator's
(2 cores, 2048 MB of RAM, docker/emulator) and the device's own uptime.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

KERNEL_RELEASE = "6.1.23-android14-4-00257-g7e35917775b8-ab9964412"
KERNEL_VERSION = "#1 SMP PREEMPT Mon Apr 17 20:50:58 UTC 2023"
COMPILER = (
    "Android (9796371, based on r487747) clang version 17.0.0 "
    "(https://android.googlesource.com/toolchain/llvm-project d9f89f4d16663d5012e5c09495f3b30ece3d2362), "
    "LLD 17.0.0"
)
CORES = 2  # hw.cpu.ncore as `mgfarm up` starts the emulator
SHELL_PID = 4242  # the shell an `adb shell` runs (`$$`, `ps`); the newest process is its child, 4243
MEM_TOTAL_KB = 2_014_744  # 2048 MB of RAM less what the kernel reserves at boot
MEM_FREE_KB = 412_396
MEM_AVAILABLE_KB = 1_073_184


def uptime_seconds(device: SimDevice) -> float:
    return max(0.0, time.monotonic() - device.started_at)


def _version(device: SimDevice) -> str:
    return f"Linux version {KERNEL_RELEASE} (build-user@build-host) ({COMPILER}) {KERNEL_VERSION}\n"


def _uptime(device: SimDevice) -> str:
    up = uptime_seconds(device)
    return f"{up:.2f} {up * CORES * 0.9:.2f}\n"  # idle: most of each core's time


def _loadavg(device: SimDevice) -> str:
    return f"0.00 0.00 0.00 1/812 {SHELL_PID + 1}\n"


# /proc/meminfo's lines, in kB: the pinned emulator's after boot (`free` reads the same).
MEMINFO = (
    ("MemTotal", MEM_TOTAL_KB),
    ("MemFree", MEM_FREE_KB),
    ("MemAvailable", MEM_AVAILABLE_KB),
    ("Buffers", 5_212),
    ("Cached", 702_464),
    ("SwapCached", 0),
    ("Active", 498_712),
    ("Inactive", 612_940),
    ("SwapTotal", 1_511_056),
    ("SwapFree", 1_511_056),
    ("Dirty", 120),
    ("Writeback", 0),
    ("AnonPages", 402_228),
    ("Mapped", 390_660),
    ("Shmem", 6_180),
    ("Slab", 101_504),
    ("KernelStack", 22_816),
    ("PageTables", 38_468),
    ("CommitLimit", 2_518_428),
    ("Committed_AS", 36_412_880),
    ("VmallocTotal", 34_359_738_367),
)


def _meminfo(device: SimDevice) -> str:
    return "".join(f"{name + ':':<16}{kb:>8} kB\n" for name, kb in MEMINFO)


def _cpuinfo(device: SimDevice) -> str:
    one = (
        "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
        "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nstepping\t: 7\ncpu MHz\t\t: 2200.000\n"
        "cache size\t: 16384 KB\nphysical id\t: 0\nsiblings\t: {cores}\ncore id\t\t: {n}\n"
        "cpu cores\t: {cores}\napicid\t\t: {n}\nfpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 13\n"
        "wp\t\t: yes\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 "
        "clflush mmx fxsr sse sse2 ss ht syscall nx rdtscp lm constant_tsc rep_good nopl xtopology "
        "cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes "
        "xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch avx2 bmi1 bmi2 erms\n"
        "bogomips\t: 4400.00\nclflush size\t: 64\ncache_alignment\t: 64\n"
        "address sizes\t: 46 bits physical, 48 bits virtual\npower management:\n\n"
    )
    return "".join(f"processor\t: {n}\n" + one.format(cores=CORES, n=n) for n in range(CORES))


def _stat(device: SimDevice) -> str:
    ticks = int(uptime_seconds(device) * 100)  # USER_HZ
    busy, idle = ticks // 10, ticks - ticks // 10
    lines = [f"cpu  {busy * CORES} 0 {busy} {idle * CORES} 0 0 0 0 0 0"]
    lines += [f"cpu{n} {busy} 0 {busy // CORES} {idle} 0 0 0 0 0 0" for n in range(CORES)]
    boot = int(device.services.clock.now() - uptime_seconds(device))
    lines += [
        "intr 0",
        "ctxt 0",
        f"btime {boot}",
        f"processes {SHELL_PID + 1}",
        "procs_running 1",
        "procs_blocked 0",
    ]
    return "\n".join(lines) + "\n"


FILES: dict[str, Callable[[SimDevice], str]] = {
    "/proc/version": _version,
    "/proc/uptime": _uptime,
    "/proc/loadavg": _loadavg,
    "/proc/meminfo": _meminfo,
    "/proc/cpuinfo": _cpuinfo,
    "/proc/stat": _stat,
}


def virtual_files(device: SimDevice) -> dict[str, Callable[[], bytes]]:
    """What each /proc file holds now, by device path."""

    def reader(make: Callable[[SimDevice], str]) -> Callable[[], bytes]:
        return lambda: make(device).encode()

    return {path: reader(make) for path, make in FILES.items()}
