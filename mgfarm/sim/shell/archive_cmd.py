"""toybox 0.8.6's `gzip`, `gunzip`, `zcat` (toys/lsb/gzip.c, built with zlib as Android builds it)
and `tar` (toys/posix/tar.c): their options, messages and exit statuses, written anew.

The device is hostile, so every file goes through the device filesystem (`inv.fs`), which resolves
each path beneath the device root as its uid may; an archive's `../x`, `/abs` and links are checked
as toybox checks them (`'x' ... not under 'DIR'`), and fs refuses whatever else would leave the tree.
Decompression is streamed (zlib's max_length) in a worker thread, and bounded: MAX_INFLATE bytes out
of gzip in one command, the device's free space for what is written, MAX_MEMBERS tar headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import errno
import fnmatch
import os
import posixpath
import stat as statmod
import zlib
from dataclasses import dataclass, field

from mgfarm.sim.shell.files import CommandError, command_error, owner
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import run_bounded
from mgfarm.sim.shell.system import local_zone
from mgfarm.sim.system.fs import DeviceFS, PathEscapeError

MAX_INFLATE = 64 * 1024 * 1024  # bytes gzip may inflate in one command (a 64 KiB bomb makes 64 MiB)
MAX_MEMBERS = 10_000  # tar headers one command reads or writes
MAX_NAME_BLOCK = 1 << 20  # toybox skips a long-name or pax record past 1 MiB
READ_CHUNK = 1 << 16  # bytes read from an input at once
STEP = 1 << 20  # bytes one worker-thread step inflates or deflates at most
BLOCK = 512
GZIP_MAGIC = b"\x1f\x8b"
# Who a device file belongs to (files.owner) as tar records it.
IDS = {"root": 0, "shell": 2000, "sdcard_rw": 1015}


class Fatal(Exception):
    """toybox's error_exit: print `cmd: message` and stop the command with status 1."""


class InflateError(Exception):
    """The gzip stream is corrupt or truncated; the message is zlib's (gzread's)."""


class TooBig(Exception):
    """More output than MAX_INFLATE."""


def strerror(exc: OSError | PathEscapeError) -> str:
    if isinstance(exc, PathEscapeError):
        return os.strerror(errno.EACCES)
    return exc.strerror or str(exc)


# -- streams -------------------------------------------------------------------------------------


class Source:
    """Bytes from a device file's descriptor, or from stdin when `fd` is None."""

    def __init__(self, inv: Invocation, fd: int | None) -> None:
        self.inv = inv
        self.fd = fd
        self.reads = 0

    async def read(self, size: int = READ_CHUNK) -> bytes:
        """Up to `size` bytes, b"" at the end; OSError (EISDIR...) as read(2) gives it."""
        if self.fd is None:
            return await self.inv.io.stdin.read(size)
        self.reads += 1
        if self.reads % 64 == 0:
            await asyncio.sleep(0)  # a long file: let the other devices run between chunks
        return os.read(self.fd, size)


class Sink:
    """Where output goes: a device file opened by `inv.fs.open` (space-counted), or stdout."""

    def __init__(self, inv: Invocation, fd: int | None) -> None:
        self.inv = inv
        self.fd = fd

    async def write(self, data: bytes) -> None:
        if self.fd is None:
            self.inv.out(data)  # BrokenPipeError past a pipe's capacity: the pipeline ends it
            await self.inv.io.stdout.maybe_flush()
        else:
            self.inv.fs.write(self.fd, data)  # ENOSPC when the device is full


class Inflater:
    """gzread as zlib does it: gzip members one after another, trailing non-gzip bytes ignored.
    `step` runs in a worker thread and never makes more than STEP bytes at once."""

    def __init__(self, budget: list[int]) -> None:
        self.budget = budget  # [bytes left to inflate in this command], shared by its streams
        self.pending = b""
        self.zobj: zlib._Decompress | None = None
        self.members = 0
        self.finished = False  # the last member ended and nothing (or garbage) followed

    def feed(self, data: bytes) -> None:
        self.pending += data

    def hungry(self) -> bool:
        """Whether `step` needs more input to go on."""
        if self.zobj is None:
            return len(self.pending) < 2
        return not self.pending

    def step(self, at_end: bool) -> bytes:
        """Inflate what is pending; raises InflateError, TooBig."""
        if self.finished:
            return b""
        if self.zobj is None:
            if len(self.pending) < 2 and not at_end:
                return b""
            if self.pending[:2] != GZIP_MAGIC:
                if self.members == 0:
                    raise Fatal("not gzip")
                self.finished, self.pending = True, b""  # trailing garbage, ignored as gzread does
                return b""
            self.zobj = zlib.decompressobj(31)
        try:
            out = self.zobj.decompress(self.pending, min(STEP, self.budget[0] + 1))
        except zlib.error as exc:
            raise InflateError(str(exc).partition("data: ")[2] or str(exc)) from exc
        self.pending = self.zobj.unconsumed_tail
        self.budget[0] -= len(out)
        if self.budget[0] < 0:
            raise TooBig
        if self.zobj.eof:
            self.members += 1
            self.pending = self.zobj.unused_data
            self.zobj = None
            if not self.pending and at_end:
                self.finished = True
        elif not out and not self.pending and at_end:
            raise InflateError("unexpected end of file")
        return out


async def inflate(src: Source, sink: Sink, budget: list[int]) -> None:
    """Stream a gzip input to `sink`, bounded by `budget`."""
    dec = Inflater(budget)
    at_end = False
    while not dec.finished:
        if dec.hungry() and not at_end:
            chunk = await src.read()
            at_end = not chunk
            dec.feed(chunk)
        out = await run_bounded(dec.step, at_end)  # CPU work off the event loop
        if out:
            await sink.write(out)
        elif at_end and dec.zobj is None and not dec.pending:
            dec.finished = True


async def deflate(src: Source, sink: Sink, level: int) -> None:
    """Stream an input to `sink` as one gzip member (zlib's header, as gzwrite writes it)."""
    zobj = zlib.compressobj(level, zlib.DEFLATED, 31)
    while True:
        chunk = await src.read(STEP)
        if not chunk:
            break
        out = await run_bounded(zobj.compress, chunk)
        if out:
            await sink.write(out)
    await sink.write(zobj.flush())


# -- gzip, gunzip, zcat --------------------------------------------------------------------------


@dataclass
class GzipOptions:
    flags: set[str] = field(default_factory=set)
    level: int = 6
    files: list[str] = field(default_factory=list)


def parse_gzip(argv: list[str], known: str) -> GzipOptions:
    """toybox's option parsing: flags anywhere, `--` ends them, the last -N is the level."""
    opts = GzipOptions()
    done = False
    for arg in argv:
        if done or arg == "-" or not arg.startswith("-"):
            opts.files.append(arg)
            continue
        if arg == "--":
            done = True
            continue
        for c in arg[1:]:
            if c not in known:
                raise Fatal(
                    f"Unknown option '{arg[2:] if arg.startswith('--') else c}' (see \"{{}} --help\")"
                )
            if c.isdigit():
                opts.level = int(c)
            else:
                opts.flags.add(c)
    return opts


@command("gzip", "gunzip", "zcat")
async def gzip_cmd(inv: Invocation) -> int:
    name = inv.argv[0]
    try:
        opts = parse_gzip(inv.argv[1:], "ncdfk123456789" if name == "gzip" else "cdfk123456789")
    except Fatal as exc:
        inv.err(f"{name}: {str(exc).replace('{}', name)}\n")
        return 1
    if name == "gunzip":
        opts.flags.add("d")
    elif name == "zcat":
        opts.flags |= {"c", "d"}
    budget = [MAX_INFLATE]
    status = 0
    for path in opts.files or ["-"]:
        try:
            if not await gzip_one(inv, name, path, opts, budget):
                status = 1
        except Fatal as exc:  # error_exit: the rest of the files are not looked at
            inv.err(f"{name}: {exc}\n")
            return 1
    return status


async def gzip_one(inv: Invocation, name: str, path: str, opts: GzipOptions, budget: list[int]) -> bool:
    """One operand as toybox's do_gzip handles it; False when something was reported."""
    fs = inv.fs
    in_fd: int | None = None
    if path != "-":
        try:
            in_fd = fs.open(path, os.O_RDONLY | os.O_NONBLOCK, inv.cwd)
        except (OSError, PathEscapeError) as exc:
            inv.err(f"{name}: {path}: {strerror(exc)}\n")
            return False
    out: str | None = None
    out_fd: int | None = None
    try:
        if in_fd is not None and "c" not in opts.flags:
            st = os.fstat(in_fd)
            if "d" not in opts.flags:
                out = path + ".gz"
            elif path.endswith(".gz") and len(path) > 3:
                out = path[:-3]
            else:
                inv.err(f"{name}: no .gz: {path}\n")
                return False
            out_fd = create_output(inv, out, "f" in opts.flags, statmod.S_IMODE(st.st_mode))
            if out_fd is None:
                inv.err(f"{name}: {out}: File exists\n")
                return False
        ok = await convert(inv, name, Source(inv, in_fd), Sink(inv, out_fd), opts, budget)
    except CommandError as exc:
        inv.err(f"{name}: {exc}\n")
        return False
    finally:
        if in_fd is not None:
            os.close(in_fd)
        if out_fd is not None:
            fs.close(out_fd)
    if out is None:
        return ok
    if ok:
        set_meta(fs, out, inv.cwd, statmod.S_IMODE(st.st_mode), (st.st_atime_ns, st.st_mtime_ns))
    doomed = path if ok else out  # a failed conversion removes its output, as toybox does
    if "k" not in opts.flags:
        try:
            fs.unlink(doomed, inv.cwd)
        except (OSError, PathEscapeError) as exc:
            inv.err(f"{name}: unlink {doomed}: {strerror(exc)}\n")
            return False
    return ok


def create_output(inv: Invocation, out: str, force: bool, mode: int) -> int | None:
    """O_CREAT|O_WRONLY, O_EXCL unless -f (and, as toybox, no O_TRUNC); None when it exists."""
    fs = inv.fs
    if not force and fs.kind(out, inv.cwd, follow=False) is not None:
        return None  # O_EXCL fails on anything there, a dangling link too
    flags = os.O_WRONLY | os.O_CREAT | (0 if force else os.O_EXCL)
    try:
        return fs.open(out, flags, inv.cwd, mode | 0o600)
    except FileExistsError:
        return None
    except (OSError, PathEscapeError) as exc:
        raise command_error(out, exc) from exc


async def convert(
    inv: Invocation, name: str, src: Source, sink: Sink, opts: GzipOptions, budget: list[int]
) -> bool:
    """Compress or decompress one input; the failures toybox reports per file are reported here."""
    try:
        if "d" in opts.flags:
            await inflate(src, sink, budget)
        else:
            await deflate(src, sink, opts.level)
    except InflateError as exc:
        inv.err(f"{name}: gzread: {exc}\n")
        return False
    except TooBig:
        inv.err(f"{name}: write: File too large\n")
        return False
    except BrokenPipeError:
        raise
    except (OSError, PathEscapeError) as exc:
        # A read failure (EISDIR) or a write failure (ENOSPC): toybox says which side.
        side = "write" if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT) else "read"
        inv.err(f"{name}: {side}: {strerror(exc)}\n")
        return False
    return True


def set_meta(fs: DeviceFS, path: str, cwd: str, mode: int | None, times: tuple[int, int] | None) -> None:
    """chmod and utimensat on the entry itself, never through a link; a failure is not reported
    (the device's chmod keeps the owner's rw, so the host can always reach its own files)."""
    with contextlib.suppress(OSError, PathEscapeError), fs.locate(path, cwd, follow=False) as loc:
        fs.check(loc.path, "w", path)
        st = loc.lstat()
        if mode is not None and (statmod.S_ISREG(st.st_mode) or statmod.S_ISDIR(st.st_mode)):
            fd = loc.open(os.O_RDONLY | os.O_NONBLOCK)
            try:
                os.fchmod(fd, (mode & 0o777) | (0o700 if statmod.S_ISDIR(st.st_mode) else 0o600))
            finally:
                os.close(fd)
        if times is not None:
            os.utime(loc.name, ns=times, dir_fd=loc.dir_fd, follow_symlinks=False)


# -- tar headers ---------------------------------------------------------------------------------


def checksum(block: bytes) -> int:
    """The header's sum with its checksum field counted as spaces (toybox's tar_cksum)."""
    return sum(block[:148]) + 8 * 32 + sum(block[156:500])


def is_tar_header(block: bytes) -> bool:
    if block[257] and block[257:262] != b"ustar":
        return False
    if block[148:149] not in (b"0", b" "):
        return False
    text = block[148:].lstrip(b" \t\n")[:8]
    digits = len(text) - len(text.lstrip(b"01234567"))
    value = int(text[:digits], 8) if digits else 0
    return value != 0 and checksum(block) == value


def octal(raw: bytes) -> int:
    """A numeric field: ASCII octal, or base-256 with the high bit set; Fatal("bad header")."""
    if raw[0] & 0x80:
        value = int.from_bytes(raw[1:], "big")
        if value >> 64:
            raise Fatal("bad header")
        return value
    text = raw.lstrip(b" ")
    digits = len(text) - len(text.lstrip(b"01234567"))
    rest = text[digits:]
    if rest and rest[0] not in (0, 32):
        raise Fatal("bad header")
    return int(text[:digits], 8) if digits else 0


def cstring(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def put_octal(length: int, value: int) -> bytes:
    """toybox's itoo: octal digits and a NUL when they fit, base-256 otherwise."""
    if not value >> (3 * (length - 1)):
        return b"%0*o\0" % (length - 1, value)
    return bytes([0x80]) + value.to_bytes(length - 1, "big")


def make_header(
    name: bytes,
    mode: int,
    uid: int,
    gid: int,
    size: int,
    mtime: int,
    kind: bytes,
    link: bytes,
    uname: str,
    gname: str,
    major: int = 0,
    minor: int = 0,
) -> bytes:
    """One 512-byte header, GNU's "ustar  " magic as toybox writes it."""
    block = bytearray(BLOCK)
    block[0:100] = name[:100].ljust(100, b"\0")
    block[100:108] = put_octal(8, mode)
    block[108:116] = put_octal(8, uid)
    block[116:124] = put_octal(8, gid)
    block[124:136] = put_octal(12, size)
    block[136:148] = put_octal(12, max(0, mtime))
    block[156:157] = kind
    block[157:257] = link[:100].ljust(100, b"\0")
    block[257:265] = b"ustar  \0"
    block[265:297] = uname.encode()[:32].ljust(32, b"\0")
    block[297:329] = gname.encode()[:32].ljust(32, b"\0")
    if kind in (b"3", b"4"):
        block[329:337] = put_octal(8, major)
        block[337:345] = put_octal(8, minor)
    block[148:156] = b"%06o\0 " % checksum(bytes(block))
    return bytes(block)


def long_block(data: bytes, kind: bytes) -> bytes:
    """A ././@LongLink record holding a name or link target past 100 bytes (with its NUL)."""
    payload = data + b"\0"
    head = make_header(b"././@LongLink", 0o644, 0, 0, len(payload), 0, kind, b"", "root", "root")
    return head + payload + b"\0" * (-len(payload) % BLOCK)


# -- tar: reading --------------------------------------------------------------------------------


class TarInput:
    """The archive's bytes, inflated when it is gzip; `read` gives exactly `size` unless it ends.

    An inflate failure is reported as toybox's zcat child reports it, and the stream just ends."""

    def __init__(self, inv: Invocation, src: Source) -> None:
        self.inv = inv
        self.src = src
        self.buf = bytearray()
        self.raw_end = False
        self.inflater: Inflater | None = None
        self.budget = [MAX_INFLATE]

    def gunzip(self) -> None:
        """From here on the raw bytes (the buffered ones first) are gzip."""
        self.inflater = Inflater(self.budget)
        self.inflater.feed(bytes(self.buf))
        self.buf.clear()
        self.raw_end = False  # the source's end is seen again by the next read (b"")

    async def _fill(self, want: int) -> None:
        while len(self.buf) < want and not self.raw_end:
            if self.inflater is None:
                chunk = await self.src.read(max(READ_CHUNK, min(want - len(self.buf), STEP)))
                self.raw_end = not chunk
                self.buf += chunk
                continue
            dec = self.inflater
            at_end = False
            if dec.hungry():
                chunk = await self.src.read()
                at_end = not chunk
                dec.feed(chunk)
            try:
                out = await run_bounded(dec.step, at_end)
            except Fatal as exc:
                self._broken(str(exc))
                return
            except InflateError as exc:
                self._broken(f"gzread: {exc}")
                return
            except TooBig:
                self._broken("write: File too large")
                return
            self.buf += out
            if dec.finished or (at_end and not out and dec.zobj is None and not dec.pending):
                self.raw_end = True

    def _broken(self, message: str) -> None:
        self.inv.err(f"zcat: {message}\n")
        self.raw_end = True

    async def read(self, size: int) -> bytes:
        await self._fill(size)
        data = bytes(self.buf[:size])
        del self.buf[:size]
        return data

    async def skip(self, size: int) -> bool:
        """Skip `size` bytes; False when the archive ends first."""
        while size > 0:
            got = len(await self.read(min(size, STEP)))
            if not got:
                return False
            size -= got
        return True


@dataclass
class Member:
    name: str
    mode: int
    kind: bytes
    size: int  # bytes of data that follow the header
    shown_size: int  # what -tv shows (the header's)
    mtime: int
    uid: int
    gid: int
    uname: str
    gname: str
    link: str | None
    major: int
    minor: int


@dataclass
class TarOptions:
    flags: set[str] = field(default_factory=set)
    file: str | None = None
    directory: str | None = None
    operands: list[str] = field(default_factory=list)
    overwrite: bool = False
    full_time: bool = False


TYPE_BITS = {
    b"0": statmod.S_IFREG,
    b"1": statmod.S_IFREG,
    b"2": statmod.S_IFLNK,
    b"3": statmod.S_IFCHR,
    b"4": statmod.S_IFBLK,
    b"5": statmod.S_IFDIR,
    b"6": statmod.S_IFIFO,
    b"7": statmod.S_IFREG,
}


class TarReader:
    """toybox's unpack_tar over a TarInput, listing or extracting as the options say."""

    def __init__(self, inv: Invocation, opts: TarOptions, stream: TarInput, cwd: str) -> None:
        self.inv = inv
        self.opts = opts
        self.stream = stream
        self.cwd = cwd  # where members go (after -C), canonical
        self.errors = False
        self.seen: set[int] = set()  # the operands some member matched
        self.dirs: list[tuple[str, int]] = []  # folders whose mtime is set at the end

    def error(self, message: str) -> None:
        self.inv.err(f"tar: {message}\n")
        self.errors = True

    async def run(self) -> None:
        long_name: str | None = None
        long_link: str | None = None
        zeros = 0
        size = 0
        for _ in range(MAX_MEMBERS):
            if size % BLOCK and not await self.stream.skip(BLOCK - size % BLOCK):
                raise Fatal("EOF")
            block = await self.stream.read(BLOCK)
            if block and len(block) != BLOCK:
                raise Fatal("short header")
            if not block or not block[0]:
                if not block or zeros:
                    return
                zeros, size = 1, 0
                continue
            zeros = 0
            if not is_tar_header(block):
                raise Fatal("bad header")
            size = octal(block[124:136])
            kind = block[156:157]
            if not (b"0" <= kind <= b"7" or kind == b"S") and block[257] and kind != b"\0":
                if kind not in (b"K", b"L", b"x") or size > MAX_NAME_BLOCK:
                    await self.must_skip(size)
                elif kind == b"x":
                    long_name = pax_path(await self.must_read(size)) or long_name
                else:
                    text = cstring(await self.must_read(size))
                    long_name, long_link = (text, long_link) if kind == b"L" else (long_name, text)
                continue
            member = self.member(block, long_name, long_link)
            long_name = long_link = None
            size = member.size
            await self.handle(member)
        raise Fatal(f"more than {MAX_MEMBERS} members, too many for this command")

    async def must_read(self, size: int) -> bytes:
        data = await self.stream.read(size)
        if len(data) != size:
            raise Fatal("short read")
        return data

    async def must_skip(self, size: int) -> None:
        if not await self.stream.skip(size):
            raise Fatal("EOF")

    def member(self, block: bytes, long_name: str | None, long_link: str | None) -> Member:
        kind = block[156:157]
        size = octal(block[124:136])
        mode = octal(block[100:108]) & 0o7777
        mode |= TYPE_BITS.get(kind, statmod.S_IFREG)
        link = long_link if long_link is not None else (cstring(block[157:257]) or None)
        name = long_name
        if name is None:
            prefix = "" if kind == b"S" else cstring(block[345:500])
            name = prefix + ("/" if prefix and not prefix.endswith("/") else "") + cstring(block[0:100])
        if statmod.S_ISREG(mode) and name.endswith("/"):
            name, mode = name[:-1], (mode & ~statmod.S_IFMT(mode)) | statmod.S_IFDIR  # old tars' folders
        data = size
        if link or (kind != b"\0" and not statmod.S_ISREG(mode)):
            data = 0  # no contents follow
        return Member(
            name,
            mode,
            kind,
            data,
            size,
            octal(block[136:148]),
            octal(block[108:116]),
            octal(block[116:124]),
            cstring(block[265:297]),
            cstring(block[297:329]),
            link,
            octal(block[329:337]),
            octal(block[337:345]),
        )

    def wanted(self, name: str) -> bool:
        """Whether operands select `name` (fnmatch with FNM_LEADING_DIR, `*` matching `/`)."""
        if not self.opts.operands:
            return True
        for i, pattern in enumerate(self.opts.operands):
            if fnmatch.fnmatchcase(name, pattern) or any(
                name[j] == "/" and fnmatch.fnmatchcase(name[:j], pattern) for j in range(len(name))
            ):
                self.seen.add(i)
                return True
        return False

    async def handle(self, m: Member) -> None:
        if not self.wanted(m.name):
            await self.must_skip(m.size)
        elif "t" in self.opts.flags:
            self.inv.out(self.listing(m))
            await self.inv.io.stdout.maybe_flush()
            await self.must_skip(m.size)
        else:
            if "v" in self.opts.flags:
                self.inv.out(f"{m.name}\n")
            if "O" in self.opts.flags:
                await self.copy_data(m, Sink(self.inv, None))
            else:
                await self.extract(m)

    def listing(self, m: Member) -> str:
        line = ""
        if "v" in self.opts.flags:
            when = dt.datetime.fromtimestamp(min(m.mtime, 253402300799), local_zone(self.inv, False))
            owner_ = f"{m.uname or m.uid}/{m.gname or m.gid}"
            size = f"{m.major},{m.minor}" if m.kind in (b"3", b"4") else f"{m.shown_size:9d}"
            stamp = when.strftime("%Y-%m-%d %H:%M") + (when.strftime(":%S") if self.opts.full_time else "")
            line = f"{statmod.filemode(m.mode)} {owner_} {size}  {stamp} "
        line += m.name + (f" -> {m.link}" if m.link is not None else "")
        return line + "\n"

    async def copy_data(self, m: Member, sink: Sink) -> bool:
        """The member's data to `sink`; a failed write is reported and the rest skipped."""
        left = m.size
        while left > 0:
            chunk = await self.stream.read(min(left, STEP))
            if not chunk:
                raise Fatal("EOF")
            left -= len(chunk)
            try:
                await sink.write(chunk)
            except BrokenPipeError:
                raise
            except OSError as exc:
                self.error(strerror(exc))
                await self.must_skip(left)
                return False
        return True

    def resolve(self, name: str, is_dir: bool) -> str | None:
        """Where `name` lands, every existing link in it resolved (its last one for a non-folder
        left alone); None (reported) when that is not under the extraction folder."""
        fs = self.inv.fs
        try:
            with fs.locate(name, self.cwd, follow=is_dir, lenient=True) as loc:
                where = loc.path
        except (OSError, PathEscapeError) as exc:
            self.error(
                f"'{name}' bad symlink"
                if isinstance(exc, OSError) and exc.errno == errno.ELOOP
                else f"{name}: {strerror(exc)}"
            )
            return None
        if self.cwd != "/" and where != self.cwd and not where.startswith(self.cwd + "/"):
            self.error(f"'{name}' {where} not under '{self.cwd}'")
            return None
        return where

    async def extract(self, m: Member) -> None:
        """toybox's extract_to_disk, each step through the device filesystem."""
        fs = self.inv.fs
        where = self.resolve(m.name, statmod.S_ISDIR(m.mode))
        if where is None:
            await self.must_skip(m.size)
            return
        parent = posixpath.dirname(where)
        if "/" in m.name.strip("/") and not fs.is_dir(parent):
            try:
                fs.mkdir(parent, parents=True)
            except (OSError, PathEscapeError) as exc:
                self.error(f":{m.name}: can't mkdir: {strerror(exc)}")
                await self.must_skip(m.size)
                return
        if "k" not in self.opts.flags and not statmod.S_ISDIR(m.mode) and not self.remove_old(m.name, where):
            await self.must_skip(m.size)
            return
        if statmod.S_ISREG(m.mode):
            if m.link is not None:
                self.hard_link(m, where)
                return
            fd = self.create(m, where)
            if fd is None:
                await self.must_skip(m.size)
                return
            try:
                await self.copy_data(m, Sink(self.inv, fd))
            finally:
                fs.close(fd)
        elif statmod.S_ISDIR(m.mode):
            try:
                fs.mkdir(where)
            except FileExistsError:
                pass
            except (OSError, PathEscapeError) as exc:
                self.error(f"{m.name}: can't create: {strerror(exc)}")
                return
        elif statmod.S_ISLNK(m.mode):
            try:
                fs.symlink(m.link or "", where)
            except (OSError, PathEscapeError) as exc:  # shared storage refuses links (ENOSYS)
                self.error(f"can't link '{m.name}' -> '{m.link or ''}': {strerror(exc)}")
                return
        else:
            # Device nodes and fifos are not made on the sim's device (mknod is refused).
            self.error(f"can't create '{m.name}': {os.strerror(errno.EPERM)}")
            return
        mode = None if statmod.S_ISLNK(m.mode) else m.mode
        if "m" in self.opts.flags or statmod.S_ISDIR(m.mode):
            set_meta(fs, where, "/", mode, None)
            if statmod.S_ISDIR(m.mode) and "m" not in self.opts.flags:
                self.dirs.append((where, m.mtime))  # after its contents, which change its mtime
        else:
            ns = m.mtime * 1_000_000_000
            set_meta(fs, where, "/", mode, (ns, ns))

    def remove_old(self, name: str, where: str) -> bool:
        """rmdir, else unlink, what is there (nothing there is fine)."""
        fs = self.inv.fs
        if fs.kind(where, follow=False) is None:
            return True
        try:
            fs.rmdir(where)
            return True
        except (OSError, PathEscapeError):
            pass
        try:
            fs.unlink(where)
        except (OSError, PathEscapeError) as exc:
            self.error(f"can't remove: {name}: {strerror(exc)}")
            return False
        return True

    def create(self, m: Member, where: str) -> int | None:
        fs = self.inv.fs
        flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if self.opts.overwrite else os.O_EXCL)
        try:
            if not self.opts.overwrite and fs.kind(where, follow=False) is not None:
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), where)
            return fs.open(where, flags, "/", (m.mode & 0o777) | 0o600)
        except (OSError, PathEscapeError) as exc:
            self.error(f"{m.name}: {strerror(exc)}")
            return None

    def hard_link(self, m: Member, where: str) -> None:
        """A hard link is made as a copy of the file it names: the sim's device makes no hard links
        (a device folder's files may be the golden snapshot's); link(2) follows no symlink."""
        fs = self.inv.fs
        target = m.link or ""
        try:
            if not statmod.S_ISREG(fs.stat(target, self.cwd, follow=False).st_mode):
                raise OSError(errno.EPERM, os.strerror(errno.EPERM), target)
            fs.copy(target, where, self.cwd)
        except (OSError, PathEscapeError) as exc:
            self.error(f"can't link '{m.name}' -> '{target}': {strerror(exc)}")

    def finish(self) -> None:
        """Folders' times, then the operands no member matched."""
        for where, mtime in reversed(self.dirs):
            ns = mtime * 1_000_000_000
            set_meta(self.inv.fs, where, "/", None, (ns, ns))
        for i, pattern in enumerate(self.opts.operands):
            if i not in self.seen:
                self.error(f"'{pattern}' not in archive")


def pax_path(data: bytes) -> str | None:
    """The `path=` of a pax record list ("LEN KEY=VALUE\\n"...), if any."""
    pos = 0
    while pos < len(data):
        space = data.find(b" ", pos)
        digits = data[pos:space] if space > pos else b""
        if not digits.isdigit():
            return None
        length = int(digits)
        if length < space - pos + 4 or pos + length > len(data):
            return None
        record = data[space + 1 : pos + length - 1]
        record = record.removeprefix(b"RHT.")
        if record.startswith(b"path="):
            return record[5:].decode("utf-8", "surrogateescape")
        pos += length
    return None


# -- tar: writing --------------------------------------------------------------------------------


class TarWriter:
    """toybox's add_to_tar over device walks; blocks go to `sink`, through gzip with -z."""

    def __init__(
        self, inv: Invocation, opts: TarOptions, sink: Sink, cwd: str, archive: tuple[int, int]
    ) -> None:
        self.inv = inv
        self.opts = opts
        self.sink = sink
        self.cwd = cwd
        self.archive = archive  # (st_dev, st_ino) of the archive file: never added to itself
        self.zobj = zlib.compressobj(6, zlib.DEFLATED, 31) if "z" in opts.flags else None
        self.buf = bytearray()
        self.errors = False
        self.links: dict[tuple[int, int], bytes] = {}
        self.count = 0

    def error(self, message: str) -> None:
        self.inv.err(f"tar: {message}\n")
        self.errors = True

    async def emit(self, data: bytes) -> None:
        self.buf += data
        if len(self.buf) >= STEP:
            await self.flush()

    async def flush(self, last: bool = False) -> None:
        data, self.buf = bytes(self.buf), bytearray()
        if self.zobj is not None:
            data = await run_bounded(self.zobj.compress, data)
            if last:
                data += self.zobj.flush()
        if data:
            await self.sink.write(data)

    async def add(self, operand: str) -> None:
        fs = self.inv.fs
        warned = False
        try:
            for entry in fs.walk(operand, self.cwd, follow="h" in self.opts.flags):
                self.count += 1
                if self.count > MAX_MEMBERS:
                    raise Fatal(f"more than {MAX_MEMBERS} members, too many for this command")
                hname = stored_name(entry.path, statmod.S_ISDIR(entry.st.st_mode))
                if hname is None:
                    continue
                shown = entry.path + (
                    "/" if statmod.S_ISDIR(entry.st.st_mode) and entry.path[-1:] != "/" else ""
                )
                if not warned and hname != shown:
                    self.inv.err(f"removing leading '{shown[: len(shown) - len(hname)]}' from member names\n")
                    warned = True
                await self.add_entry(entry.path, entry.real, entry.st, hname)
                if entry.denied:
                    self.error(f"{entry.path}: {os.strerror(errno.EACCES)}")
        except (OSError, PathEscapeError) as exc:
            self.error(f"{operand}: {strerror(exc)}")

    async def add_entry(self, path: str, real: str, st: os.stat_result, hname: str) -> None:
        fs = self.inv.fs
        if (st.st_dev, st.st_ino) == self.archive:
            self.error(f"'{posixpath.basename(path)}' file is the archive; not dumped")
            return
        user, group = owner(real)
        name = hname.encode("utf-8", "surrogateescape")
        mode = statmod.S_IMODE(st.st_mode)
        fmt = statmod.S_IFMT(st.st_mode)
        link = b""
        kind = b"0"
        size = 0
        key = (st.st_dev, st.st_ino)
        if st.st_nlink > 1 and fmt != statmod.S_IFDIR and key in self.links:
            kind, link = b"1", self.links[key]
        elif fmt == statmod.S_IFLNK:
            try:
                link = fs.readlink(path, self.cwd).encode("utf-8", "surrogateescape")
            except (OSError, PathEscapeError) as exc:
                self.error(f"readlink: {strerror(exc)}")
                return
            kind = b"2"
        elif fmt == statmod.S_IFREG:
            size = st.st_size
            if st.st_nlink > 1:
                self.links[key] = name
        elif fmt in (statmod.S_IFDIR, statmod.S_IFIFO, statmod.S_IFCHR, statmod.S_IFBLK):
            kind = {
                statmod.S_IFDIR: b"5",
                statmod.S_IFIFO: b"6",
                statmod.S_IFCHR: b"3",
                statmod.S_IFBLK: b"4",
            }[fmt]
        else:
            self.error(f"unknown file type '{fmt:o}'")
            return
        fd = -1
        if kind == b"0" and size:
            try:
                fd = fs.open(path, os.O_RDONLY | os.O_NONBLOCK, self.cwd)
            except (OSError, PathEscapeError) as exc:
                self.error(f"can't open '{path}': {strerror(exc)}")
                return
        try:
            if len(link) > 100:
                await self.emit(long_block(link, b"K"))
            if len(name) > 100:
                await self.emit(long_block(name, b"L"))
            major, minor = os.major(st.st_rdev), os.minor(st.st_rdev)
            head = make_header(
                name,
                mode,
                IDS.get(user, 0),
                IDS.get(group, 0),
                size,
                int(st.st_mtime),
                kind,
                link,
                user,
                group,
                major,
                minor,
            )
            if "v" in self.opts.flags:
                (self.inv.err if self.sink.fd is None else self.inv.out)(f"{hname}\n")
            await self.emit(head)
            if fd >= 0:
                await self.send_file(fd, size)
        finally:
            if fd >= 0:
                os.close(fd)

    async def send_file(self, fd: int, size: int) -> None:
        """Exactly `size` bytes (zeros for what a shrunken file lacks), padded to a block."""
        src = Source(self.inv, fd)
        left = size
        while left > 0:
            chunk = await src.read(min(left, STEP))
            if not chunk:
                chunk = b"\0" * min(left, STEP)
            left -= len(chunk)
            await self.emit(chunk)
        await self.emit(b"\0" * (-size % BLOCK))


def stored_name(path: str, is_dir: bool) -> str | None:
    """The member name toybox stores: leading `/` and everything up to a `..` component dropped,
    a folder's with a trailing `/`; None when nothing is left (or the path ends in `..`)."""
    name = path + ("/" if is_dir and not path.endswith("/") else "")
    name = name.lstrip("/")
    parts = name.split("/")
    for i, part in enumerate(parts):
        if part == "..":
            if i == len(parts) - 1:
                return None
            name = "/".join(parts[i + 1 :])
    return name or None


# -- tar: the command ----------------------------------------------------------------------------


TAR_FLAGS = "ophxtvcjzJSOPmkI"
TAR_LONG = {"--overwrite": "overwrite", "--full-time": "full_time"}
TAR_LONG_OK = {
    "--no-same-owner",
    "--no-same-permissions",
    "--numeric-owner",
    "--same-permissions",
    "--touch",
    "--keep-old",
    "--to-stdout",
    "--verbose",
    "--list",
    "--extract",
    "--create",
    "--gzip",
    "--dereference",
    "--file",
    "--directory",
    "--restrict",
    "--selinux",
    "--no-recursion",
}
TAR_LETTERS = {
    "--no-same-owner": "o",
    "--same-permissions": "p",
    "--touch": "m",
    "--keep-old": "k",
    "--to-stdout": "O",
    "--verbose": "v",
    "--list": "t",
    "--extract": "x",
    "--create": "c",
    "--gzip": "z",
    "--dereference": "h",
}


def parse_tar(argv: list[str]) -> TarOptions:
    """tar's options; the first argument may be bundled letters without `-` (`tar czf x.tgz d`)."""
    opts = TarOptions()
    args = list(argv)
    if args and not args[0].startswith("-"):
        args[0] = "-" + args[0]
    mode = ""
    i = 0
    done = False
    while i < len(args):
        arg = args[i]
        i += 1
        if done or arg == "-" or not arg.startswith("-"):
            opts.operands.append(arg)
            continue
        if arg == "--":
            done = True
            continue
        if arg.startswith("--"):
            key, eq, value = arg.partition("=")
            if key in TAR_LONG:
                setattr(opts, TAR_LONG[key], True)
            elif key in ("--file", "--directory"):
                if not eq:
                    if i >= len(args):
                        raise Fatal(f'Missing argument to {key} (see "tar --help")')
                    value, i = args[i], i + 1
                if key == "--file":
                    opts.file = value
                else:
                    opts.directory = value
            elif key in TAR_LETTERS:
                arg = "-" + TAR_LETTERS[key]
            elif key not in TAR_LONG_OK:
                raise Fatal(f"Unknown option '{arg[2:]}' (see \"tar --help\")")
            if not arg.startswith("-") or arg.startswith("--"):
                continue
        j = 1
        while j < len(arg):
            c = arg[j]
            j += 1
            if c in "fCXT":
                value = arg[j:]
                if not value:
                    if i >= len(args):
                        raise Fatal(f'Missing argument to -{c} (see "tar --help")')
                    value, i = args[i], i + 1
                if c == "f":
                    opts.file = value
                elif c == "C":
                    opts.directory = value
                else:
                    raise Fatal(f"-{c} not supported")
                break
            if c not in TAR_FLAGS:
                raise Fatal(f"Unknown option '{c}' (see \"tar --help\")")
            if c in "txc":
                if mode and mode != c:
                    raise Fatal(f"No '{c}' with '{mode}' (see \"tar --help\")")
                mode = c
            opts.flags.add(c)
    opts.operands = [trimmed(op) for op in opts.operands]
    return opts


def trimmed(name: str) -> str:
    """An operand as tar matches it: trailing `/`s removed."""
    return name.rstrip("/") if name.rstrip("/") else name


@command("tar")
async def tar(inv: Invocation) -> int:
    try:
        opts = parse_tar(inv.argv[1:])
        for c in "jJI":
            if c in opts.flags:
                raise Fatal(f"-{c}: only gzip (-z) archives are supported")
        if not opts.flags & {"c", "t", "x"}:
            raise Fatal("need one of -c, -t, -x")  # toybox 0.8.6 crashes here; tell the agent instead
        if "c" in opts.flags:
            errors = await tar_create(inv, opts)
        else:
            errors = await tar_read(inv, opts)
    except Fatal as exc:
        inv.err(f"tar: {exc}\n")
        return 1
    if errors:
        inv.err("tar: had errors\n")
        return 1
    return 0


def change_dir(inv: Invocation, opts: TarOptions) -> str:
    """The canonical folder members are relative to: -C's, else the shell's."""
    where = inv.cwd if opts.directory is None else opts.directory
    fs = inv.fs
    try:
        with fs.locate(where, inv.cwd) as loc:
            st = loc.lstat()
            if not statmod.S_ISDIR(st.st_mode):
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), where)
            fs.check(loc.path, "x", where)
            return loc.path
    except (OSError, PathEscapeError) as exc:
        raise Fatal(f"chdir '{where}': {strerror(exc)}") from exc


async def tar_read(inv: Invocation, opts: TarOptions) -> bool:
    fs = inv.fs
    fd: int | None = None
    if opts.file is not None and opts.file != "-":
        try:
            fd = fs.open(opts.file, os.O_RDONLY | os.O_NONBLOCK, inv.cwd)
        except (OSError, PathEscapeError) as exc:
            raise Fatal(f"{opts.file}: {strerror(exc)}") from exc
    try:
        cwd = change_dir(inv, opts)
        stream = TarInput(inv, Source(inv, fd))
        try:
            if "z" in opts.flags:
                stream.gunzip()
            else:
                first = await stream.read(BLOCK)
                stream.buf[:0] = first  # put back: the reader starts at the first header
                if len(first) != BLOCK or not is_tar_header(first):
                    if first[:2] == GZIP_MAGIC:
                        stream.gunzip()
                    elif first[:3] == b"BZh" or first[:6] == b"\xfd7zXZ\0":
                        raise Fatal("only gzip (-z) archives are supported")
                    else:
                        raise Fatal("Not tar")
        except OSError as exc:
            raise Fatal(f"{opts.file or '-'}: {strerror(exc)}") from exc
        reader = TarReader(inv, opts, stream, cwd)
        try:
            await reader.run()
        except BrokenPipeError:
            raise
        except OSError as exc:  # the archive could not be read on (EISDIR, EIO)
            raise Fatal(strerror(exc)) from exc
        reader.finish()
        return reader.errors
    finally:
        if fd is not None:
            os.close(fd)


async def tar_create(inv: Invocation, opts: TarOptions) -> bool:
    if not opts.operands:
        raise Fatal("empty archive")
    fs = inv.fs
    name = opts.file
    if name is not None and "z" not in opts.flags and name.endswith((".tgz", ".tar.gz")):
        opts.flags.add("z")  # toybox picks the compressor from the archive's name
    fd: int | None = None
    archive = (-1, -1)
    if name is not None and name != "-":
        try:
            fd = fs.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, inv.cwd)
        except (OSError, PathEscapeError) as exc:
            raise Fatal(f"{name}: {strerror(exc)}") from exc
        st = os.fstat(fd)
        archive = (st.st_dev, st.st_ino)
    try:
        cwd = change_dir(inv, opts)
        writer = TarWriter(inv, opts, Sink(inv, fd), cwd, archive)
        try:
            for operand in opts.operands:
                await writer.add(operand)
            await writer.emit(b"\0" * (2 * BLOCK))
            await writer.flush(last=True)
        except BrokenPipeError:
            raise
        except OSError as exc:  # the archive could not be written (ENOSPC)
            raise Fatal(f"write: {strerror(exc)}") from exc
        return writer.errors
    finally:
        if fd is not None:
            fs.close(fd)
