"""toybox 0.8.6's `xargs`: words from stdin (or -0 strings) appended to a command, as many as
-n and -s allow per run. Children run through the shell's command table with /dev/null as stdin.
Exit: 123 if a run failed, 126/127 as the child's, 124 (and no more runs) on a 255."""

from __future__ import annotations

from mgfarm.sim.io import ByteSource, ShellIO
from mgfarm.sim.shell.find_cmd import run_command
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.text import MAX_LINES, TooManyLines, split_lines
from mgfarm.sim.shell.toyargs import ToyArgs, ToySpec, parse_or_report

ARG_MAX = 2_097_152  # the kernel's limit for a stack of 8 MiB (sysconf(_SC_ARG_MAX))
MAX_INPUT = 16 * 1024 * 1024  # bytes of stdin xargs takes (the rest is left): its words live in memory
BLANKS = b" \t\n\v\f\r"  # C's isspace
SPEC = ToySpec(
    "xargs",
    flags="optr0",
    strings="E",
    numbers={"P": (0, None), "n": (1, None), "s": (0, None)},
    defaults={"P": 1},
    longs={"max-args": "n"},
    exclusive=("0E",),
    stop_at_operand=True,
)


def words_of(data: bytes, nul: bool) -> list[bytes]:
    """-0: NUL-ended strings (the last may lack its NUL); else lines cut at a NUL, split at blanks.
    At most MAX_LINES words (TooManyLines): each is an object in memory, where toybox streams."""
    if nul:
        return split_lines(data, b"\0")
    words: list[bytes] = []
    for line in split_lines(data, b"\n"):
        words.extend(line.split(b"\0", 1)[0].split())
        if len(words) > MAX_LINES:
            raise TooManyLines(f"more than {MAX_LINES:,} words of input")
    return words


def base_bytes(inv: Invocation, argv: list[bytes], sized: bool) -> int:
    """What the command's own words cost against -s (a pointer each, unless -s was given)."""
    return sum(len(a) + 1 + (0 if sized else 8) for a in argv) - 1


class TooLong(Exception):
    """One word does not fit in -s."""


def next_batch(
    words: list[bytes], at: int, opts: ToyArgs, start: int, limit: int
) -> tuple[list[bytes], int, bool]:
    """The words of the next run from `at`: (batch, index past it, whether -E's word was met)."""
    sized = "s" in opts.flags
    per_run = int(opts.values.get("n", 0))
    stop = str(opts.values["E"]).encode("utf-8", "surrogateescape") if "E" in opts.values else None
    nul = "0" in opts.flags
    batch: list[bytes] = []
    used = start
    while at < len(words):
        word = words[at]
        if per_run and len(batch) >= per_run:
            break
        cost = len(word) + 1 + (8 if nul or not sized else 0)
        if used + cost >= limit:
            if not batch:
                raise TooLong
            break
        if stop is not None and word == stop:
            return batch, len(words), True
        used += cost
        batch.append(word)
        at += 1
    return batch, at, False


async def run_one(inv: Invocation, argv: list[bytes], opts: ToyArgs) -> int:
    text = [a.decode("utf-8", "surrogateescape") for a in argv]
    if "t" in opts.flags:
        inv.err("".join(f"{a} " for a in text) + "\n")
    if "o" in opts.flags:
        inv.err("xargs: /dev/tty: No such device or address\n")  # the device's shell has no tty
        return 1
    quiet = ShellIO(ByteSource.from_bytes(b""), inv.io.stdout, inv.io.stderr)
    return await run_command(inv, text, inv.cwd, quiet)


def fold_status(inv: Invocation, name: str, child: int, status: int) -> tuple[int, bool]:
    """toybox's rules for a child's status: returns (xargs' status, whether to stop)."""
    if child == 255:
        inv.err(f"xargs: {name}: exited with status 255; aborting\n")
        return 124, True
    if child in (126, 127):
        return child, False
    if 0 < child <= 127:
        return 123, False
    return status, False  # killed by a signal: toybox leaves its status alone


async def read_capped(inv: Invocation) -> bytes:
    data = bytearray()
    while len(data) < MAX_INPUT:
        chunk = await inv.io.stdin.read(MAX_INPUT - len(data))
        if not chunk:
            break
        data += chunk
    return bytes(data)


@command("xargs")
async def xargs(inv: Invocation) -> int:
    """`xargs [-0prt] [-snE STR] COMMAND...`"""
    opts = parse_or_report(inv, SPEC)
    if opts is None:
        return 1
    argv = [a.encode("utf-8", "surrogateescape") for a in opts.operands or ["echo"]]
    env_bytes = sum(len(k) + len(v) + 2 + 8 for k, v in inv.env.items())
    limit = int(opts.values["s"]) if "s" in opts.flags else ARG_MAX - env_bytes - 4096
    start = base_bytes(inv, argv, "s" in opts.flags)
    if start >= limit:
        inv.err("xargs: command too long\n")
        return 1
    try:
        words = words_of(await read_capped(inv), "0" in opts.flags)
    except TooManyLines as exc:
        inv.err(f"xargs: {exc}\n")
        return 1
    status, at, ran, done = 0, 0, False, False
    while not done and (at < len(words) or not ran):
        try:
            batch, at, done = next_batch(words, at, opts, start, limit)
        except TooLong:
            inv.err("xargs: argument too long\n")
            return 1
        if not batch and (ran or "r" in opts.flags):
            break
        if "p" in opts.flags:
            inv.err(" ".join(a.decode("utf-8", "surrogateescape") for a in [*argv, *batch]) + " ?")
            inv.err("xargs: No file /dev/tty: No such device or address\n")  # no tty to ask on
            return 1
        ran = True
        child = await run_one(inv, [*argv, *batch], opts)
        status, stop = fold_status(inv, argv[0].decode("utf-8", "surrogateescape"), child, status)
        await inv.io.stdout.maybe_flush()
        if stop:
            break
    return status
