"""Size and block commands as Android 13's toybox (0.8.6) prints them: dd, du, truncate and free.

Files go through the shell's view of the device's files (`inv.fs`: its device nodes included, so
`dd if=/dev/zero` and `of=/dev/null` work as on a device), every byte counted against the data
partition, a piece at a time so that other devices keep running.
"""

from __future__ import annotations

import asyncio
import os
import stat as statmod
import time

from mgfarm.sim.shell import toyargs
from mgfarm.sim.shell.files import CommandError, command_error, fs_call, report, split_flags, take_value
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.system.procfs import MEMINFO

PIECE = 1 << 20  # bytes read, written or made between two turns of the event loop
HR_SPACE, HR_B = 1, 2  # toybox's human_readable styles: a space before the unit, "B" for bytes


DD_FLAGS = {
    "conv": {"fsync", "noerror", "notrunc", "sync"},
    "iflag": {"count_bytes", "skip_bytes"},
    "oflag": {"seek_bytes"},
}


def atolx(text: str) -> int:
    """A number as toybox reads one (`bs=1M`, `count=0x10`, `-s 2kd`); CommandError otherwise."""
    try:
        return toyargs.atolx(text)
    except toyargs.Fatal as exc:
        raise CommandError(str(exc)) from exc


def human_readable(num: int, style: int = 0) -> str:
    """toybox's human_readable: at most 3 digits, divided by 1024 rounding half up, one decimal
    for a single digit with a unit (`1.5K`, `10M`, `512`)."""
    unit, snap = 0, 0
    while len(str(num)) > 3:
        snap, num = num, (num + 512) // 1024
        unit += 1
    text = str(num)
    if unit and len(text) == 1:
        whole, rest = divmod(snap, 1024)
        text = f"{whole}.{((rest * 100 + 50) // 1024) // 10}"
    if style & HR_SPACE:
        text += " "
    if unit:
        text += " KMGTPEZY"[unit]
    elif style & HR_B:
        text += "B"
    return text


# ---- dd -----------------------------------------------------------------------------------------


class Records:
    """dd's counts: whole and partial blocks in and out, bytes out."""

    def __init__(self) -> None:
        self.in_full = self.in_part = self.out_full = self.out_part = self.bytes = 0
        self.start = time.monotonic()

    def summary(self, records: bool, xfer: bool) -> str:
        out = ""
        if records:
            out += f"{self.in_full}+{self.in_part} records in\n{self.out_full}+{self.out_part} records out\n"
        if xfer:
            seconds = max(time.monotonic() - self.start, 1e-6)
            rate = human_readable(int(self.bytes / seconds), HR_SPACE | HR_B)
            out += f"{self.bytes} bytes ({human_readable(self.bytes, HR_SPACE | HR_B)}) copied, "
            out += f"{seconds:f} s, {rate}/s\n"
        return out


class Source:
    """dd's input: stdin, or a file (or device node) of the device opened for reading."""

    def __init__(self, inv: Invocation, name: str | None) -> None:
        self.name = name or "stdin"
        self.fd = -1
        self.stdin: bytes | None = None
        if name is not None:
            self.fd = fs_call(name, inv.fs.open, name, os.O_RDONLY | os.O_NONBLOCK, inv.cwd)

    async def read(self, inv: Invocation, size: int) -> bytes:
        if self.fd < 0:
            if self.stdin is None:
                self.stdin = await inv.io.stdin.read()
            data, self.stdin = self.stdin[:size], self.stdin[size:]
            return data
        try:
            return os.read(self.fd, size)
        except OSError as exc:
            raise CommandError(f"{self.name}: read error: {exc.strerror}") from exc

    async def skip(self, inv: Invocation, count: int) -> bool:
        """Skip `count` bytes; False when the input ends first (dd's "Can't skip")."""
        if self.fd >= 0:
            st = os.fstat(self.fd)
            os.lseek(self.fd, count, os.SEEK_CUR)  # a device node seeks anywhere
            return count <= st.st_size or not statmod.S_ISREG(st.st_mode)
        if self.stdin is None:
            self.stdin = await inv.io.stdin.read()
        ended = count > len(self.stdin)
        self.stdin = self.stdin[count:]
        return not ended

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)


@command("dd")
async def dd(inv: Invocation) -> int:
    sizes = {"bs": 0, "ibs": 512, "obs": 512, "count": -1, "seek": 0, "skip": 0}
    names: dict[str, str] = {}
    flags: dict[str, set[str]] = {"conv": set(), "iflag": set(), "oflag": set()}
    shown = {"records": True, "xfer": True}
    try:
        for arg in inv.argv[1:]:
            key, eq, value = arg.partition("=")
            if eq and key in sizes:
                sizes[key] = atolx(value)
                low = 1 if key.endswith("bs") else 0
                if sizes[key] < low:
                    raise CommandError(f"{sizes[key]} < {low}")
            elif eq and key in ("if", "of"):
                names[key] = value
            elif eq and key in flags:
                words = {w for w in value.split(",") if w}
                if not words <= DD_FLAGS[key]:
                    raise CommandError(f"bad {key}={','.join(sorted(words - DD_FLAGS[key]))}")
                flags[key] |= words
            elif eq and key == "status":
                if value not in ("noxfer", "none"):
                    raise CommandError(f"unknown status '{value}'")
                shown["xfer"] = False
                shown["records"] = value == "noxfer"
            else:
                raise CommandError(f"bad arg {arg}")
    except CommandError as exc:
        return report(inv, exc)
    ibs, obs = (sizes["bs"], sizes["bs"]) if sizes["bs"] else (sizes["ibs"], sizes["obs"])
    counts = Records()
    try:
        status = await _copy(inv, names, sizes, flags, ibs, obs, counts)
    except CommandError as exc:
        status = report(inv, exc)
    inv.err(counts.summary(shown["records"], shown["xfer"]))
    return status


async def _copy(
    inv: Invocation,
    names: dict[str, str],
    sizes: dict[str, int],
    flags: dict[str, set[str]],
    ibs: int,
    obs: int,
    counts: Records,
) -> int:
    source = Source(inv, names.get("if"))
    out_name = names.get("of")
    fd = -1
    try:
        if out_name is not None:
            trunc = "notrunc" not in flags["conv"] and not sizes["seek"]
            mode = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if trunc else 0)
            fd = fs_call(out_name, inv.fs.open, out_name, mode, inv.cwd)
        skip = sizes["skip"] * (1 if "skip_bytes" in flags["iflag"] else ibs)
        if skip and not await source.skip(inv, skip):
            inv.out(f"{source.name}: Can't skip\n")
            return 0
        seek = sizes["seek"] * (1 if "seek_bytes" in flags["oflag"] else obs)
        if seek and fd >= 0:
            os.lseek(fd, seek, os.SEEK_CUR)
            if "notrunc" not in flags["conv"] and statmod.S_ISREG(os.fstat(fd).st_mode):
                os.ftruncate(fd, seek)
        left = sizes["count"] * (1 if "count_bytes" in flags["iflag"] else ibs) if sizes["count"] >= 0 else -1
        pending = 0  # bytes written since the last whole output block (without bs=)
        while left:
            want = ibs if left < 0 else min(ibs, left)
            got = 0
            while got < want:  # one input block, read and passed on a piece at a time
                piece = await source.read(inv, min(PIECE, want - got))
                if not piece:
                    break
                got += len(piece)
                try:
                    await _write(inv, fd, out_name, piece)
                except CommandError:
                    counts.in_full += got == ibs  # read, not written: the records say so
                    counts.in_part += got != ibs
                    raise
                await asyncio.sleep(0)
            if not got:
                break
            if got == ibs:
                counts.in_full += 1
            else:
                counts.in_part += 1
            if "sync" in flags["conv"] and got < ibs:
                await _write(inv, fd, out_name, bytes(ibs - got))
                got = ibs
            counts.bytes += got
            if sizes["bs"]:
                counts.out_full += got == obs
                counts.out_part += got != obs
            else:
                pending += got
                counts.out_full += pending // obs
                pending %= obs
            left = left - min(got, left) if left > 0 else left
        counts.out_part += pending > 0 and not sizes["bs"]
        return 0
    finally:
        source.close()
        if fd >= 0:
            inv.fs.close(fd)


async def _write(inv: Invocation, fd: int, name: str | None, data: bytes) -> None:
    if name is None:
        inv.out(data)
        await inv.io.stdout.maybe_flush()
    else:
        try:
            inv.fs.write(fd, data)
        except OSError as exc:
            raise CommandError(f"{name}: write error: {exc.strerror}") from exc


# ---- du -----------------------------------------------------------------------------------------


@command("du")
async def du(inv: Invocation) -> int:
    """`du [-d N] [-abchkKmsx] [FILE...]`: space used (st_blocks; bytes with -b) of each folder
    under each FILE, children before their folder, in KiB by default."""
    args = list(inv.argv[1:])
    depth = -1
    value = take_value(args, "-d")
    if value is not None:
        try:
            depth = atolx(value)
        except CommandError:
            depth = -1
        if depth < 0:
            inv.err(f"du: -d needs a number of 0 or more, not '{value}'\n")
            return 1
    flags, paths = split_flags(args, "abchkKmsxHLl")
    total = 0
    status = 0
    follow = bool(flags & {"H", "L"})
    for path in paths or ["."]:
        sums: dict[int, int] = {}  # depth -> size of what was walked below the folder being summed
        try:
            # Walked lazily, the event loop turning every 256 entries (as find's): a huge tree never
            # holds the other devices.
            for n, entry in enumerate(inv.fs.walk(path, inv.cwd, follow, True)):
                if entry.denied:
                    inv.err(f"du: {entry.path}: Permission denied\n")
                    status = 1
                size = entry.st.st_size if "b" in flags else entry.st.st_blocks * 512
                is_dir = statmod.S_ISDIR(entry.st.st_mode)
                if is_dir:
                    size += sums.pop(entry.depth + 1, 0)
                sums[entry.depth] = sums.get(entry.depth, 0) + size
                shown = entry.depth == 0 or ("s" not in flags and (is_dir or "a" in flags))
                if shown and (depth < 0 or entry.depth <= depth):
                    inv.out(f"{_du_size(size, flags)}\t{entry.path}\n")
                if n % 256 == 0:
                    await inv.io.stdout.maybe_flush()
                    await asyncio.sleep(0)
        except (OSError, PathEscapeError) as exc:
            status = report(inv, command_error(path, exc))
            continue
        total += sums.get(0, 0)
    if "c" in flags:
        inv.out(f"{_du_size(total, flags)}\ttotal\n")
    return status


def _du_size(size: int, flags: set[str]) -> str:
    if "h" in flags:
        return human_readable(size)
    bits = 9 if "K" in flags else 20 if "m" in flags else 10
    if "b" in flags and bits == 10 and "k" not in flags:
        return str(size)
    return str((size >> bits) + bool(size & ((1 << bits) - 1)))


# ---- truncate -----------------------------------------------------------------------------------


@command("truncate")
async def truncate(inv: Invocation) -> int:
    """`truncate [-c] -s [+-<>/%]SIZE FILE...`: set each file's length (sparse when it grows)."""
    args = list(inv.argv[1:])
    spec = None
    if "-s" in args and args.index("-s") + 1 < len(args):
        i = args.index("-s")
        spec = args[i + 1]
        del args[i : i + 2]
    flags, files = split_flags(args, "c")
    if spec is None or not files:
        inv.err("truncate: Need -s\n" if spec is None else "truncate: Needs 1 argument\n")
        return 1
    mode = "+-<>/%".find(spec[:1])
    try:
        amount = atolx(spec[1:] if mode >= 0 else spec)
    except CommandError as exc:
        return report(inv, exc)
    status = 0
    for path in files:
        if "c" in flags and inv.fs.kind(path, inv.cwd) is None:
            continue  # -c: a missing file is left missing, quietly
        try:
            fd = fs_call(path, inv.fs.open, path, os.O_WRONLY | os.O_CREAT, inv.cwd)
        except CommandError as exc:
            status = report(inv, exc)
            continue
        size = None
        try:
            before = os.fstat(fd).st_size
            size = _new_size(before, mode, amount)
            if size is not None:
                if size < before:
                    inv.fs.space.freed()
                os.ftruncate(fd, size)  # growing is sparse: no block is written
        except OSError as exc:
            inv.err(f"truncate: '{path}' to '{size}': {exc.strerror}\n")
            status = 1
        finally:
            inv.fs.close(fd)
    return status


def _new_size(size: int, mode: int, amount: int) -> int | None:
    """The length truncate sets: `amount`, or by `+-<>/%` (mode 0-5) from the current `size`; None
    when `<` or `>` leave it as it is."""
    if mode < 0:
        return amount
    if mode < 2:
        return max(size + amount * (1 - 2 * mode), 0)
    if mode < 4:
        keep = size <= amount if mode == 2 else size >= amount
        return None if keep else amount
    if amount <= 0:
        raise OSError(22, "Invalid argument")
    return (size + (mode - 4) * (amount - 1)) // amount * amount


@command("free")
async def free(inv: Invocation) -> int:
    """toybox's `free [-bkmgh]`: the memory /proc/meminfo reports, as sysinfo(2) gives it, in bytes."""
    units = {"b": 0, "k": 10, "m": 20, "g": 30}
    letters = "".join(a[1:] for a in inv.argv[1:] if a.startswith("-"))
    bad = next((c for c in letters if c not in "bkmgh"), None)
    if bad is not None or any(not a.startswith("-") for a in inv.argv[1:]):
        inv.err(f"free: Unknown option '{bad}' (see \"free --help\")\n" if bad else "free: Max 0 arguments\n")
        return 1
    shift = next((units[c] for c in "bkmg" if c in letters), 0)
    kb = dict(MEMINFO)

    def show(kib: int) -> str:
        return human_readable(kib * 1024) if "h" in letters else str((kib * 1024) >> shift)

    total, idle, shared, buffers = kb["MemTotal"], kb["MemFree"], kb["Shmem"], kb["Buffers"]
    swap, swap_free = kb["SwapTotal"], kb["SwapFree"]
    inv.out(
        "\t\ttotal        used        free      shared     buffers\n"
        f"Mem:{show(total):>17}{show(total - idle):>12}{show(idle):>12}"
        f"{show(shared):>12}{show(buffers):>12}\n"
        f"-/+ buffers/cache:{show(total - idle - buffers):>15}{show(idle + buffers):>12}\n"
        f"Swap:{show(swap):>16}{show(swap - swap_free):>12}{show(swap_free):>12}\n"
    )
    return 0
