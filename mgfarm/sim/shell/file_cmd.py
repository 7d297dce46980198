"""`file` as toybox 0.8.6 prints it: a file's type from its first 4088 bytes (ELF headers followed
through the whole file), else "ASCII text", "UTF-8 text" or "data".

toybox knows no SQLite: an app's database is "data" on Android 13, as here. The sim's /system/bin
programs are empty files (ls and stat say so too), so `file` calls them "empty".
"""

from __future__ import annotations

import contextlib
import os
import stat as statmod
from collections.abc import Callable

from mgfarm.sim.shell.files import MAX_INPUT, CommandError, fs_call, read_input
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import run_bounded
from mgfarm.sim.shell.toyargs import ToySpec, arg_bytes, parse_or_report
from mgfarm.sim.shell.utf8 import char_length, wcwidth
from mgfarm.sim.system.fs import PathEscapeError

HEAD = 4096 - 8  # what toybox reads into its 4 KiB buffer
PAD = bytes(8192)  # reads past what was read see zeros (toybox sees its buffer's leftovers)
C_SPACE = b" \t\n\v\f\r"
ELF_ARCHES = {
    0x9026: "alpha", 93: "arc", 195: "arcv2", 40: "arm", 183: "arm64", 0x18AD: "avr32", 247: "bpf",
    106: "blackfin", 140: "c6x", 23: "cell", 76: "cris", 252: "csky", 0x5441: "frv", 46: "h8300",
    164: "hexagon", 50: "ia64", 88: "m32r", 0x9041: "m32r", 4: "m68k", 174: "metag",
    189: "microblaze", 0xBAAB: "microblaze-old", 8: "mips", 10: "mips-old", 89: "mn10300",
    0xBEEF: "mn10300-old", 113: "nios2", 92: "openrisc", 0x8472: "openrisc-old", 15: "parisc",
    20: "ppc", 21: "ppc64", 243: "riscv", 22: "s390", 0xA390: "s390-old", 135: "score", 42: "sh",
    2: "sparc", 18: "sparc8+", 43: "sparc9", 188: "tile", 191: "tilegx", 3: "386", 6: "486",
    62: "x86-64", 94: "xtensa", 0xABC7: "xtensa-old",
}  # fmt: skip
OGG_KINDS = [
    (b"CELT    ", "celt audio"), (b"CMML    ", "cmml text"), (b"BBCD\0", "dirac video"),
    (b"\x7fFLAC", "flac audio"), (b"\x8bJNG\r\n\x1a\n", "jng video"), (b"\x80kate\0\0\0", "kate text"),
    (b"OggMIDI\0", "midi text"), (b"\x8aMNG\r\n\x1a\n", "mng video"), (b"OpusHead", "opus audio"),
    (b"PCM     ", "pcm audio"), (b"\x89PNG\r\n\x1a\n", "png video"), (b"Speex   ", "speex audio"),
    (b"\x80theora", "theora video"), (b"\x01vorbis", "vorbis audio"), (b"YUV4MPEG", "yuv4mpeg video"),
]  # fmt: skip
WAV_FORMATS = {
    0x01: "PCM", 0x03: "IEEE float", 0x06: "A-law", 0x07: "µ-law", 0x11: "ADPCM",
    0x22: "Truespeech", 0x31: "GSM", 0x55: "MP3", 0x70: "CELP", 0xFFFE: "extensible",
}  # fmt: skip
PE_SUBSYSTEMS = [
    "", "native", "GUI", "console", "OS/2", "driver", "CE", "EFI", "EFI boot", "EFI runtime",
    "EFI ROM", "XBOX", "", "boot",
]  # fmt: skip
PNG_COLORS = ["grayscale", "", "color RGB", "indexed color", "grayscale with alpha", "", "color RGBA"]


class Bad(Exception):
    """An ELF table that does not fit the file: toybox stops describing it there."""


def le(buf: bytes, at: int, size: int) -> int:
    return int.from_bytes(buf[at : at + size].ljust(size, b"\0"), "little")


def be(buf: bytes, at: int, size: int) -> int:
    return int.from_bytes(buf[at : at + size].ljust(size, b"\0"), "big")


def s32(value: int) -> int:
    """A value as C's (int) sees it."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def c_text(buf: bytes, at: int, limit: int | None = None) -> bytes:
    """printf("%.*s"): the bytes from `at` up to a NUL (and at most `limit`)."""
    end = len(buf) if limit is None else at + limit
    return buf[at:end].split(b"\0", 1)[0]


# ELF -----------------------------------------------------------------------------------------


def elf_description(head: bytes, whole: bytes | None) -> str:
    """toybox's do_elf_file: type, class, byte order, machine, then (reading the whole file)
    interpreter, static, build id, Android version and stripped."""
    endian, bits = head[5], (head[4] - 1) & 0xFFFFFFFF
    num = be if endian == 2 else le
    parts = ["ELF "]
    kind = num(head, 16, 2)
    names = {1: "relocatable", 2: "executable", 3: "shared object", 4: "core dump"}
    bail = kind not in names
    parts.append(names.get(kind, f"(bad type {kind})"))
    if num(head, 48 if bits else 36, 4) & 0x8000:
        parts.append(" (fdpic)")
    parts.append(", ")
    if bits & ~1:
        parts.append(f"(bad class {s32(bits)}) ")
        bail = True
    else:
        parts.append(f"{32 << bits}-bit ")
    if endian in (1, 2):
        parts.append("LSB " if endian == 1 else "MSB ")
    else:
        parts.append(f"(bad endian {endian}) ")
        bail = True
    machine = num(head, 18, 2)
    parts.append(ELF_ARCHES.get(machine, f"unknown arch {machine}"))
    if bail or whole is None:
        return "".join(parts)
    with contextlib.suppress(Bad):  # what was appended before the bad table stays
        elf_tables(head, whole + PAD, len(whole), num, bits, parts)
    return "".join(parts)


def elf_tables(
    head: bytes, data: bytes, size: int, num: Callable[[bytes, int, int], int], bits: int, parts: list[str]
) -> None:
    """The program and section headers' part of the description, appended to `parts`."""
    phentsize, phnum = num(head, 42 + 12 * bits, 2), num(head, 44 + 12 * bits, 2)
    phoff = num(head, 28 + 4 * bits, 4 + 4 * bits)
    shsize, shnum = num(head, 46 + 12 * bits, 2), num(head, 48 + 12 * bits, 2)
    shoff = num(head, 32 + 8 * bits, 4 + 4 * bits)
    if phnum and phentsize != 32 + 24 * bits:
        parts.append(f", bad phentsize {phentsize}?")
        raise Bad
    if size == 0 or phoff > size or phnum * phentsize > size - phoff:
        raise Bad  # (an empty map is mmap's failure: stdin)
    dynamic = False
    for i in range(phnum):
        at = phoff + i * phentsize
        p_type = num(data, at, 4)
        if p_type not in (2, 3, 4):
            continue
        dynamic |= p_type == 2
        offset, filesz = num(data, at + (4 << bits), 4 << bits), num(data, at + (16 << bits), 4 << bits)
        if p_type == 3:
            if filesz > size or offset > size - filesz:
                raise Bad
            parts.append(f", dynamic ({c_text(data, offset, filesz).decode('utf-8', 'surrogateescape')})")
    if not dynamic:
        parts.append(", static")
    if shoff > size or shnum * shsize > size - shoff:
        raise Bad
    stripped = True
    for i in range(shnum):
        at = shoff + i * shsize
        if at > size - (8 + (4 << bits)):
            raise Bad
        sh_type, sh_offset = num(data, at + 4, 4), num(data, at + 8 + (8 << bits), 4 << bits)
        sh_size = s32(num(data, at + 8 + (12 << bits), 4))
        if sh_offset > size or sh_size < 0 or sh_size > size - sh_offset:
            raise Bad
        if sh_type == 2:  # SHT_SYMTAB
            stripped = False
            break
        if sh_type == 7:  # SHT_NOTE
            elf_notes(data, size, sh_offset, sh_size, num, parts)
    parts.append(f", {'' if stripped else 'not '}stripped")


def elf_notes(
    data: bytes, size: int, at: int, left: int, num: Callable[[bytes, int, int], int], parts: list[str]
) -> None:
    """A note section's GNU build id and Android version (and NDK), appended to `parts`."""
    while left >= 12:
        if at > size - 12:
            raise Bad
        namesz, descsz, kind = num(data, at, 4), num(data, at + 4, 4), num(data, at + 8, 4)
        notesz = (12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)) & 0xFFFFFFFF
        if notesz < namesz or notesz < descsz or notesz > left:
            raise Bad
        name = data[at + 12 : at + 12 + namesz]
        if namesz == 4 and name == b"GNU\0" and kind == 3:
            parts.append(", BuildID=" + data[at + 16 : at + 16 + descsz].hex())
        elif namesz == 8 and name == b"Android\0" and kind == 1 and descsz >= 4:
            parts.append(f", for Android {s32(num(data, at + 20, 4))}")
            if descsz >= 4 + 64 + 64:
                ndk = c_text(data, at + 24, 64).decode("utf-8", "surrogateescape")
                build = c_text(data, at + 88, 64).decode("utf-8", "surrogateescape")
                parts.append(f", built by NDK {ndk} ({build})")
        at += notesz
        left -= notesz


# Other magic ---------------------------------------------------------------------------------


def is_tar_header(buf: bytes) -> bool:
    """A tar header whose checksum field matches the sum of its other bytes."""
    if buf[257] and buf[257:262] != b"ustar":
        return False
    if buf[148] not in b"0 ":
        return False
    at = 148
    while buf[at] in C_SPACE:
        at += 1
    digits = buf[at : at + 8]
    sign = digits[:1] if digits[:1] in (b"+", b"-") else b""
    octal = digits[len(sign) :]
    count = next((i for i, byte in enumerate(octal) if byte not in b"01234567"), len(octal))
    value = int(octal[:count], 8) * (-1 if sign == b"-" else 1) if count else 0
    total = 8 * 32 + sum(buf[:148]) + sum(buf[156:500])
    return bool(value) and total == value & 0xFFFFFFFF


def image_description(buf: bytes, size: int) -> str | None:
    """PNG, GIF, JPEG and BMP pictures."""
    if size > 28 and buf.startswith(b"\x89PNG\r\n\x1a\n"):
        text = "PNG image data"
        if be(buf, 8, 4) == 13 and buf[12:16] == b"IHDR":
            color = PNG_COLORS[buf[25]] if buf[25] < len(PNG_COLORS) else ""
            text += f", {s32(be(buf, 16, 4))} x {s32(be(buf, 20, 4))}, {buf[24]}-bit/{color or 'unknown'}, "
            text += "interlaced" if buf[28] else "non-interlaced"
        return text
    if size > 16 and buf[:6] in (b"GIF87a", b"GIF89a"):
        version = c_text(buf, 3, 3).decode("latin-1")
        return f"GIF image data, version {version}, {le(buf, 6, 2)} x {le(buf, 8, 2)}"
    if size > 32 and buf.startswith(b"\xff\xd8"):
        return "JPEG image data"
    return None


def cafebabe(buf: bytes, size: int) -> str:
    """0xcafebabe: a Mach-O universal binary (few architectures) or a Java class."""
    count = be(buf, 4, 4)
    if count < 0x2D and size >= count * 20:
        arches = {7: "i386", 0x01000007: "x86_64", 12: "arm", 0x0100000C: "arm64"}
        names = "".join(f" [{arches.get(be(buf, 8 + 20 * i, 4), 'unknown')}]" for i in range(count))
        return f"Mach-O universal binary with {count} architecture{'' if count == 1 else 's'}:{names}"
    major, minor = be(buf, 6, 2), be(buf, 4, 2)
    return f"Java class file, version {major}.{minor} (Java 1.{major - 44})"


def archive_description(buf: bytes, size: int) -> str | None:
    """Class files, dex, cpio, tar, zip, 7z, bzip2, xz and gzip."""
    if size > 8 and buf.startswith(b"\xca\xfe\xba\xbe"):
        return cafebabe(buf, size)
    if size > 8 and buf.startswith(b"dex\n") and not buf[7]:
        return f"Android dex file, version {c_text(buf, 4).decode('utf-8', 'surrogateescape')}"
    if size > 6 and buf.startswith(b"07070"):
        kinds = {ord("7"): "pre-SVR4 or odc", ord("1"): "SVR4 with no CRC", ord("2"): "SVR4 with CRC"}
        return f"ASCII cpio archive ({kinds.get(buf[5], 'unknown type')})"
    # (toybox's binary cpio test peeks at its own pointer, not the file: it never matches)
    if size > 500 and is_tar_header(buf):
        gnu = buf[262:264] == b"  "
        return f"{'POSIX' if buf[257] else 'old'} tar archive{' (GNU)' if gnu else ''}"
    if size > 5 and buf.startswith(b"PK\x03\x04"):
        need = f", requires at least v{buf[4] // 10}.{buf[4] % 10} to extract" if buf[4] else ""
        return "Zip archive data" + need
    if size > 9 and buf.startswith(b"7z\xbc\xaf\x27\x1c"):
        return "7-zip archive data" + (f", version {buf[6]}.{buf[7]}" if buf[6] or buf[7] else "")
    if size > 4 and buf.startswith(b"BZh") and chr(buf[3]).isdigit() and buf[3] < 128:
        return f"bzip2 compressed data, block size = {chr(buf[3])}00k"
    if size > 31 and buf.startswith(b"\xfd7zXZ\0\0"):
        return "xz compressed data"
    if size > 10 and buf.startswith(b"\x1f\x8b"):
        return "gzip compressed data"
    return None


def macho(buf: bytes) -> str:
    bit = 32 if buf[0] == 0xCE else 64
    what = {7: "x86" if bit == 32 else "x86-", 12: "arm", 18: "ppc"}.get(buf[4])
    text = f"Mach-O {bit}-bit " + (f"{what}{'' if bit == 32 else '64'} " if what else f"(bad arch {buf[4]}) ")
    kind = {1: "object", 2: "executable", 6: "shared library"}.get(buf[12])
    return text + (kind or f"(bad type {buf[9]})")


def wav(buf: bytes) -> str:
    little = buf[3] == ord("F")
    num = le if little else be
    fmt, channels = num(buf, 20, 2), num(buf, 22, 2)
    hz, bits = s32(num(buf, 24, 4)), num(buf, 34, 2)
    text = f"WAV audio, {'LE' if little else 'BE'}, " + (f"{bits}-bit, " if bits else "")
    text += {1: "mono, ", 2: "stereo, "}.get(channels, f"{channels}-channel, ")
    return text + f"{hz} Hz, " + WAV_FORMATS.get(fmt, f"unknown format {fmt}")


def pe(buf: bytes, at: int) -> str:
    text = "MS PE32" + ("+" if le(buf, at + 24, 2) == 0x20B else "") + " executable "
    text += "(DLL) " if le(buf, at + 22, 2) & 0x2000 else ""
    if le(buf, at + 20, 2) > 70:
        kind = le(buf, at + 92, 2)
        name = PE_SUBSYSTEMS[kind] if kind < len(PE_SUBSYSTEMS) else ""
        text += f"({name or 'unknown'}) "
    return text + ("x86" if le(buf, at + 4, 2) == 0x14C else "x86-64")


def media_description(buf: bytes, size: int) -> str | None:
    """Mach-O, Ogg, WAV, fonts, bitcode, certificates, PE, BMP, perf and Android images."""
    if size > 32 and buf[1:4] == b"\xfa\xed\xfe":
        return macho(buf)
    if size > 36 and buf.startswith(b"OggS\0\x02"):
        return "Ogg data" + next((f", {name}" for magic, name in OGG_KINDS if buf[28:].startswith(magic)), "")
    if size > 32 and buf.startswith(b"RIF") and buf[8:16] == b"WAVEfmt ":
        return wav(buf)
    if size > 12 and be(buf, 0, 4) == 0x10000:
        return "TrueType font"
    if size > 12 and buf.startswith(b"ttcf\0"):
        return f"TrueType font collection, version {be(buf, 4, 2)}, {s32(be(buf, 8, 4))} fonts"
    if size > 12 and buf.startswith(b"OTTO"):
        return "OpenType font"
    if buf.startswith(b"BC\xc0\xde"):
        return "LLVM IR bitcode"
    if buf.startswith(b"-----BEGIN CERTIFICATE-----"):
        return "PEM certificate"
    if size > 0x70 and buf.startswith(b"MZ"):
        at = le(buf, 0x3C, 4)
        if at < size - 4 and buf[at : at + 4] == b"PE\0\0":
            return pe(buf, at)
    if size > 0x32 and buf.startswith(b"BM") and not be(buf, 6, 4):
        return f"BMP image, {s32(le(buf, 18, 4))} x {s32(le(buf, 22, 4))}, {le(buf, 28, 2)} bpp"
    return android_description(buf, size)


def android_description(buf: bytes, size: int) -> str | None:
    if size >= 104 and buf.startswith(b"PERFILE2"):
        return "Linux perf data"
    if size > 28 and le(buf, 0, 4) == 0xED26FF3A:
        version = f"v{le(buf, 4, 2)}.{le(buf, 6, 2)}"
        blocks = f"{s32(le(buf, 16, 4))} {s32(le(buf, 12, 4))}-byte blocks ({s32(le(buf, 20, 4))} chunks)"
        return f"Android sparse image {version}, {blocks}"
    if size > 1632 and buf.startswith(b"ANDROID!"):
        return f"Android boot image v{s32(le(buf, 40, 4))}"
    if size > 32 and be(buf, 0, 4) == 0xD7B7AB1E:
        return f"Android DTB/DTBO v{s32(be(buf, 28, 4))}, {s32(be(buf, 16, 4))} entries"
    if size > 4 and buf.startswith(b"ABX"):
        return f"Android Binary XML v{buf[3]}"
    return None


def script_description(buf: bytes) -> bytes:
    """`#!` scripts: "INTERPRETER script", past `/usr/bin/env`."""
    at = 2
    while buf[at] in C_SPACE and buf[at]:
        at += 1
    if buf.startswith(b"/usr/bin/env", at):
        at += len(b"/usr/bin/env")
        while buf[at] in C_SPACE and buf[at]:
            at += 1
    end = at
    while buf[end] and buf[end] not in C_SPACE:
        end += 1
    return buf[at:end] + b" script"


def text_description(head: bytes) -> str:
    """ASCII text, UTF-8 text (every character printable), or data."""
    what = "ASCII text"
    i = 0
    while i < len(head):
        byte = head[i]
        if 0x20 <= byte < 0x7F or (byte in C_SPACE and byte):
            i += 1
            continue
        size = char_length(head, i) if byte >= 0x80 else (1 if byte else 0)
        if size <= 0 or wcwidth(head[i : i + size].decode("utf-8")) < 0:
            return "data"
        what = "UTF-8 text"
        i += size
    return what


def describe(head: bytes, whole: bytes | None) -> bytes:
    """What `file` says of a regular file from its first bytes (and, for ELF, all of them)."""
    size = len(head)
    buf = head + PAD
    if not size:
        return b"empty"
    if size >= 45 and head.startswith(b"\x7fELF"):
        return elf_description(buf, whole).encode("utf-8", "surrogateescape")
    if buf.startswith(b"!<arch>\n"):
        return b"ar archive"
    for describe_kind in (image_description, archive_description, media_description):
        found = describe_kind(buf, size)
        if found is not None:
            return found.encode()
    if size > 3 and head.startswith(b"#!"):
        return script_description(buf)
    return text_description(head).encode()


# The command ---------------------------------------------------------------------------------

FILE = ToySpec("file", flags="bhLs", min_args=1, exclusive=("hL",))


async def regular_head(inv: Invocation, path: str, size: int) -> tuple[bytes, bytes | None]:
    """The first bytes of a file (stdin for `-`), and all of it when an ELF header needs it (None
    when it is larger than 64 MiB: toybox's mmap; stdin maps as nothing)."""
    if path == "-":
        return (await inv.io.stdin.read())[:HEAD], b""
    fd = fs_call(path, inv.fs.open, path, os.O_RDONLY, inv.cwd)
    try:
        head = fs_call(path, os.read, fd, HEAD)
        while len(head) < HEAD and (more := fs_call(path, os.read, fd, HEAD - len(head))):
            head += more
    finally:
        os.close(fd)
    if len(head) < 45 or not head.startswith(b"\x7fELF") or size > MAX_INPUT:
        return head, None
    return head, await read_input(inv, path)


def special_description(st: os.stat_result, inv: Invocation, path: str, flags: set[str]) -> str:
    """What `file` says of what is not a regular file (a device, a folder, a link...)."""
    mode = st.st_mode
    if "s" not in flags and (statmod.S_ISBLK(mode) or statmod.S_ISCHR(mode)):
        kind = "block" if statmod.S_ISBLK(mode) else "character"
        return f"{kind} special ({os.major(st.st_rdev)}/{os.minor(st.st_rdev)})"
    if statmod.S_ISFIFO(mode):
        return "fifo"
    if statmod.S_ISDIR(mode):
        return "directory"
    if statmod.S_ISSOCK(mode):
        return "socket"
    if statmod.S_ISLNK(mode):
        target = inv.fs.readlink(path, inv.cwd)
        broken = inv.fs.kind(path, inv.cwd) is None
        return f"{'broken ' if broken else ''}symbolic link to {target}"
    return "unknown"


async def describe_operand(inv: Invocation, path: str, flags: set[str]) -> tuple[bytes, int]:
    """One operand's description and the status it leaves (1 when a read failed)."""
    if path != "-":
        try:
            st = inv.fs.stat(path, inv.cwd, follow="L" in flags)
        except PathEscapeError:
            return b"cannot open: Permission denied", 0
        except OSError as exc:
            return f"cannot open: {exc.strerror}".encode(), 0
        if not statmod.S_ISREG(st.st_mode) or not st.st_size:
            text = "empty" if statmod.S_ISREG(st.st_mode) else special_description(st, inv, path, flags)
            return text.encode("utf-8", "surrogateescape"), 0
    try:
        head, whole = await regular_head(inv, path, 0 if path == "-" else st.st_size)
    except CommandError as exc:  # toybox reports a failed open and says "unknown"
        inv.err(f"file: {exc}\n")
        return b"unknown", 1
    return await run_bounded(describe, head, whole), 0


@command("file")
async def file(inv: Invocation) -> int:
    args = parse_or_report(inv, FILE)
    if args is None:
        return 1
    width = max(len(arg_bytes(path)) for path in args.operands)
    status = 0
    for path in args.operands:
        name = arg_bytes(path)
        if "b" not in args.flags:
            inv.out(name + b": " + b" " * (width - len(name)))
        text, failed = await describe_operand(inv, path, args.flags)
        inv.out(text + b"\n")
        status |= failed
    return status
