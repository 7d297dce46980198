"""What a music app reads from an MP3 file: its ID3v2 title, artist and album, and its duration.

The duration comes from the first frame's Xing/Info header (frame count, less the LAME tag's encoder
delay and padding, as Android's gapless MP3 extractor counts it), else from the bitrate of a
constant-bitrate stream.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Bitrates in kbit/s by index: MPEG-1 layer III, and MPEG-2/2.5 layer III.
BITRATES_V1 = (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)
BITRATES_V2 = (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160)
RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}  # by version bits
TEXT_FRAMES = {"TIT2": "title", "TPE1": "artist", "TALB": "album", "TPE2": "album_artist"}
HEAD = 1 << 16  # bytes searched for the first audio frame
MAX_FRAMES = 1024  # ID3 frames walked
MAX_TEXT = 1 << 16  # bytes of a text frame read


@dataclass
class Mp3Info:
    title: str = ""
    artist: str = ""
    album: str = ""
    album_artist: str = ""
    duration_ms: int = 0


def syncsafe(b: bytes) -> int:
    return (b[0] << 21) | (b[1] << 14) | (b[2] << 7) | b[3]


def decode_text(data: bytes) -> str:
    """An ID3 text frame's value: encoding byte (Latin-1, UTF-16 with BOM, UTF-16BE, UTF-8), then text."""
    if not data:
        return ""
    codec = {0: "latin-1", 1: "utf-16", 2: "utf-16-be", 3: "utf-8"}.get(data[0], "latin-1")
    return data[1:].decode(codec, errors="replace").split("\x00")[0].strip()


def read_tags(at: Callable[[int, int], bytes], info: Mp3Info) -> int:
    """Fill the text frames of an ID3v2 tag at the start (`at(pos, n)`: n bytes of the file from
    pos); return where the audio begins. Other frames (cover art) are skipped, not read."""
    header = at(0, 10)
    if len(header) < 10 or header[:3] != b"ID3":
        return 0
    version, flags = header[3], header[5]
    end = 10 + syncsafe(header[6:10]) + (10 if flags & 0x10 else 0)  # footer
    pos = 10
    for _ in range(MAX_FRAMES):
        frame = at(pos, 10) if pos + 10 <= end else b""
        if len(frame) < 10:
            break
        fid = frame[:4].decode("latin-1")
        size = syncsafe(frame[4:8]) if version >= 4 else int.from_bytes(frame[4:8], "big")
        if not fid.strip("\x00") or size <= 0:
            break
        if fid in TEXT_FRAMES:
            setattr(info, TEXT_FRAMES[fid], decode_text(at(pos + 10, min(size, MAX_TEXT))))
        pos += 10 + size
    return end


def frame_duration_ms(data: bytes, audio_size: int) -> int:
    """The stream's length from its first frame in `data`, the first bytes of the file's audio
    (`audio_size` bytes from where the tag ends)."""
    pos = 0
    while pos + 4 <= len(data) and not (data[pos] == 0xFF and data[pos + 1] & 0xE0 == 0xE0):
        pos += 1
    if pos + 4 > len(data):
        return 0
    b1, b2, b3 = data[pos + 1], data[pos + 2], data[pos + 3]
    version, layer = (b1 >> 3) & 3, (b1 >> 1) & 3
    if version == 1 or layer != 1 or (b2 >> 2) & 3 == 3:  # reserved version, not layer III, bad rate
        return 0
    rate = RATES[version][(b2 >> 2) & 3]
    mono = (b3 >> 6) == 3
    samples = 1152 if version == 3 else 576
    side = (17 if mono else 32) if version == 3 else (9 if mono else 17)
    xing = pos + 4 + side
    if data[xing : xing + 4] in (b"Xing", b"Info"):
        flags = int.from_bytes(data[xing + 4 : xing + 8], "big")
        if flags & 1:
            frames = int.from_bytes(data[xing + 8 : xing + 12], "big")
            total = frames * samples
            lame = xing + 8 + 4 * bool(flags & 1) + 4 * bool(flags & 2) + 100 * bool(flags & 4)
            lame += 4 * bool(flags & 8)
            # The LAME tag: encoder (9 bytes), then 12 bytes of settings, then delay and padding.
            gap = data[lame + 21 : lame + 24]
            if len(gap) == 3 and data[lame : lame + 4].isalpha():
                delay, padding = (gap[0] << 4) | (gap[1] >> 4), ((gap[1] & 0xF) << 8) | gap[2]
                total = max(0, total - delay - padding)
            return round(total * 1000 / rate)
    kbps = (BITRATES_V1 if version == 3 else BITRATES_V2)[(b2 >> 4) & 0xF] if (b2 >> 4) < 15 else 0
    return (audio_size - pos) * 8 // kbps if kbps else 0


def read_mp3(path: Path) -> Mp3Info:
    """Tags and duration of an MP3 file; empty fields for what it does not hold or cannot be read.
    The file is read where its tag's text frames and its first audio frame are (a shell can make
    a tag claim 256 MB, or a file of one, and link it under thousands of names)."""
    info = Mp3Info()
    try:
        size = path.stat().st_size
        with path.open("rb") as f:

            def at(pos: int, n: int) -> bytes:
                f.seek(pos)
                return f.read(n)

            start = read_tags(at, info)
            audio = at(start, HEAD)
    except OSError:
        return info
    info.duration_ms = frame_duration_ms(audio, size - start)
    return info
