"""The shared frame file: what the device writes, what the client believes, and what it refuses.

The device is untrusted, so every header and reply it could produce is checked before a byte of
pixels is read: a torn, stale, oversized or short frame is one FrameError, never a crash.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.device import framebuffer
from mgfarm.device.device import decode_png_rgb
from mgfarm.device.framebuffer import FrameError, FrameFile, Header, parse_header, parse_reply
from mgfarm.sim.framebuffer import MAX_SINCE, FrameBuffer, Raw, parse_since
from mgfarm.sim.ui.kept import Kept
from tests.unit.shellkit import ShellDevice

W, H = 8, 5
SIG = bytes(range(16))


def pixels(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (H, W, 3), dtype=np.uint8)


@pytest.fixture
def frame_path(tmp_path: Path) -> Path:
    path = tmp_path / "frames" / "emulator-5554.frame"
    framebuffer.create(path)
    return path


def test_the_farm_makes_a_private_new_file_each_time(frame_path: Path) -> None:
    assert frame_path.stat().st_mode & 0o777 == 0o600
    inode = frame_path.stat().st_ino
    held = os.open(frame_path, os.O_RDONLY)  # an old worker's handle keeps the old file alive
    try:
        framebuffer.create(frame_path)
        assert frame_path.stat().st_ino != inode
    finally:
        os.close(held)


def test_what_the_device_writes_the_client_reads(frame_path: Path) -> None:
    device = FrameBuffer.open(frame_path, W, H)
    client = FrameFile(frame_path)
    first, second = pixels(1), pixels(2)
    seq = device.write(first.tobytes(), W, H, SIG)
    got = client.read(Header(seq, W, H, SIG), (W, H))
    assert np.array_equal(got, first) and not got.flags.writeable
    seq2 = device.write(second.tobytes(), W, H, bytes(16))
    assert seq2 > seq and seq2 % 2 == 0
    assert np.array_equal(client.read(Header(seq2, W, H, bytes(16)), (W, H)), second)
    assert np.array_equal(got, first)  # a frame handed out never changes underneath its holder
    # The frame the reply named is no longer the one in the file: refused, not mixed up.
    with pytest.raises(FrameError, match="holds frame"):
        client.read(Header(seq, W, H, SIG), (W, H))


def test_after_a_restart_the_client_reopens_the_new_file(frame_path: Path) -> None:
    old_device = FrameBuffer.open(frame_path, W, H)
    client = FrameFile(frame_path)
    old_device.write(pixels(1).tobytes(), W, H, SIG)
    framebuffer.create(frame_path)  # `mgfarm restart`: the farm makes a new file for the new worker
    seq = FrameBuffer.open(frame_path, W, H).write(pixels(2).tobytes(), W, H, SIG)
    old_device.write(pixels(3).tobytes(), W, H, SIG)  # the old worker's writes reach nobody
    with pytest.raises(FrameError):
        client.read(Header(seq, W, H, SIG), (W, H))  # still the old file
    client.reopen()
    assert np.array_equal(client.read(Header(seq, W, H, SIG), (W, H)), pixels(2))


def test_a_frame_of_another_size_than_the_screen_is_refused(frame_path: Path) -> None:
    device = FrameBuffer.open(frame_path, W, H)
    seq = device.write(pixels(1).tobytes(), W, H, SIG)
    with pytest.raises(FrameError, match="the screen 8x6"):
        FrameFile(frame_path).read(Header(seq, W, H, SIG), (W, H + 1))


def test_a_frame_being_written_is_refused(frame_path: Path) -> None:
    device = FrameBuffer.open(frame_path, W, H)
    seq = device.write(pixels(1).tobytes(), W, H, SIG)
    data = bytearray(frame_path.read_bytes())
    data[8:16] = (seq + 1).to_bytes(8, "little")  # what a reader sees between the two seq stores
    frame_path.write_bytes(data)
    with pytest.raises(FrameError, match="being written"):
        FrameFile(frame_path).read(Header(seq, W, H, SIG), (W, H))


def test_a_frame_rewritten_while_it_is_read_is_refused(
    frame_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seqlock: the header after the pixels must be the header before them."""
    device = FrameBuffer.open(frame_path, W, H)
    seq = device.write(pixels(1).tobytes(), W, H, SIG)
    real_preadv = os.preadv

    def preadv_then_another_writer(fd: int, buffers: list[memoryview], offset: int) -> int:
        got = real_preadv(fd, buffers, offset)
        device.write(pixels(2).tobytes(), W, H, SIG)  # the device wrote again meanwhile
        return got

    monkeypatch.setattr(framebuffer.os, "preadv", preadv_then_another_writer)
    with pytest.raises(FrameError, match="changed while it was read"):
        FrameFile(frame_path).read(Header(seq, W, H, SIG), (W, H))


def test_a_short_file_is_a_short_read_not_a_crash(frame_path: Path) -> None:
    device = FrameBuffer.open(frame_path, W, H)
    seq = device.write(pixels(1).tobytes(), W, H, SIG)
    os.truncate(frame_path, framebuffer.HEADER_SIZE + 10)
    with pytest.raises(FrameError, match="holds 10 bytes of pixels"):
        FrameFile(frame_path).read(Header(seq, W, H, SIG), (W, H))


def test_an_oversized_header_is_refused_before_any_allocation() -> None:
    header = framebuffer.HEADER.pack(framebuffer.MAGIC, 2, 2**31, 2**31, 3, SIG)
    with pytest.raises(FrameError, match="the frame is 2147483648x2147483648"):
        parse_header(header, 2**31, 2**31)


def test_the_client_opens_no_link_and_no_folder(tmp_path: Path, frame_path: Path) -> None:
    link = tmp_path / "link.frame"
    link.symlink_to(frame_path)
    with pytest.raises(FrameError, match="cannot open"):
        FrameFile(link)
    with pytest.raises(FrameError, match="not a regular file"):
        FrameFile(tmp_path)


def test_replies_name_a_frame_or_the_same_screen() -> None:
    reply = parse_reply(b"frame 4 1080 2400 " + SIG.hex().encode() + b"\n<?xml ...")
    assert reply.header == Header(4, 1080, 2400, SIG) and reply.rest == b"<?xml ..."
    same = parse_reply(b"same " + SIG.hex().encode() + b"\n")
    assert same.header is None and same.signature == SIG
    for bad in (b"", b"frame 4 1080 2400\n", b"same xyz\n", b"/system/bin/sh: mgfarm-frame: not found\n"):
        with pytest.raises(FrameError):
            parse_reply(bad)


@settings(max_examples=300, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=80),
        st.builds(
            framebuffer.HEADER.pack,
            st.sampled_from([framebuffer.MAGIC, b"MGFRAME0"]),
            st.integers(0, 2**64 - 1),
            st.integers(0, 2**32 - 1),
            st.integers(0, 2**32 - 1),
            st.integers(0, 2**32 - 1),
            st.binary(min_size=16, max_size=16),
        ),
    ),
    screen=st.tuples(st.integers(1, 4096), st.integers(1, 4096)),
)
def test_any_header_is_a_whole_frame_of_the_screen_or_one_error(data: bytes, screen: tuple[int, int]) -> None:
    try:
        header = parse_header(data, *screen)
    except FrameError:
        return
    assert (header.width, header.height) == screen and header.seq % 2 == 0
    assert header.nbytes == screen[0] * screen[1] * 3


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=120) | st.from_regex(rb"\A(frame|same) [0-9a-f ]{0,60}\n", fullmatch=False))
def test_any_reply_parses_or_is_one_error(data: bytes) -> None:
    try:
        reply = parse_reply(data)
    except FrameError:
        return
    assert len(reply.signature) == 16
    if reply.header is not None:
        assert reply.header.width < 10**5 and reply.header.height < 10**5


def test_mgfarm_frame_writes_the_screen_once_and_answers_same_after(tmp_path: Path, frame_path: Path) -> None:
    shell = ShellDevice(tmp_path)
    shell.device.services.clock.freeze(True)  # the status bar's minute must not turn meanwhile
    no_file = shell.run("mgfarm-frame --ui")
    assert no_file.status == 1 and "no frame file" in no_file.error
    shell.device.framebuffer = FrameBuffer.open(frame_path, 1080, 2400)
    first = shell.run("mgfarm-frame --ui")
    reply = parse_reply(first.out)
    assert first.status == 0 and reply.header is not None
    screen = decode_png_rgb(shell.run("screencap -p").out, "sim")
    assert np.array_equal(FrameFile(frame_path).read(reply.header, (1080, 2400)), screen)
    assert reply.rest.decode() == shell.run("uiautomator dump /dev/tty").text.split("UI hier")[0]
    digest = reply.signature.hex()
    assert shell.run(f"mgfarm-frame --ui --since {digest}").out == f"same {digest}\n".encode()
    again = parse_reply(shell.run("mgfarm-frame").out)  # nothing changed: the file is not rewritten
    assert again.header == reply.header and again.rest == b""
    shell.run("am start -a android.settings.SETTINGS")
    moved = parse_reply(shell.run(f"mgfarm-frame --since {digest}").out)
    assert moved.header is not None and moved.header.seq > reply.header.seq
    assert moved.signature != reply.signature
    half = parse_reply(shell.run("mgfarm-frame --scale 2").out)  # same screen, another size: written
    assert half.header is not None and (half.header.width, half.header.height) == (540, 1200)
    assert half.signature == moved.signature and half.header.seq > moved.header.seq
    assert shell.run("mgfarm-frame --scale 3").status == 2


def test_since_names_the_clients_recent_frames_and_same_says_which(tmp_path: Path, frame_path: Path) -> None:
    """Back to a recent screen the client named: `same` for that one, nothing written; the file
    keeps the frame it held."""
    shell = ShellDevice(tmp_path)
    shell.device.services.clock.freeze(True)
    shell.device.framebuffer = FrameBuffer.open(frame_path, 1080, 2400)
    home = parse_reply(shell.run("mgfarm-frame --ui").out)
    shell.run("am start -a android.settings.SETTINGS")
    settings = parse_reply(shell.run(f"mgfarm-frame --ui --since {home.signature.hex()}").out)
    assert settings.header is not None and settings.signature != home.signature
    shell.run("input keyevent 4")  # back home
    other = "ab" * 16  # no screen's digest
    named = f"{settings.signature.hex()},{other},{home.signature.hex()}"
    back = shell.run(f"mgfarm-frame --ui --since {named}")
    assert (back.status, back.out) == (0, f"same {home.signature.hex()}\n".encode())
    held = parse_reply(shell.run(f"mgfarm-frame --since {other}").out)  # not named: the file again
    assert held.header is not None and held.signature == home.signature
    assert held.header.seq > settings.header.seq  # written: the file held Settings until now
    usage = "--since takes 1 to 4 digests"
    for bad in ("", ",", other.upper(), other[:-1], f"{other},", ",".join([other] * (MAX_SINCE + 1))):
        refused = shell.run(f"mgfarm-frame --ui --since '{bad}'")
        assert (refused.status, refused.out) == (2, b"") and usage in refused.error, bad
    refused = shell.run("mgfarm-frame --ui --since")
    assert refused.status == 2 and usage in refused.error
    assert shell.run(f"mgfarm-frame --since {','.join([other] * MAX_SINCE)}").status == 0


DIGEST = st.text("0123456789abcdef", min_size=32, max_size=32)


@settings(max_examples=300, deadline=None)
@given(
    value=st.text(max_size=150)
    | st.lists(DIGEST | st.text("0123456789abcdefABX, ", max_size=34), max_size=6).map(",".join)
)
def test_any_since_value_is_up_to_four_digests_or_a_usage_error(value: str) -> None:
    digests = parse_since(value)
    parts = value.split(",")
    valid = 1 <= len(parts) <= MAX_SINCE and all(
        len(p) == 32 and set(p) <= set("0123456789abcdef") for p in parts
    )
    assert (digests is not None) == valid
    if digests is not None:
        assert ",".join(digests) == value and all(bytes.fromhex(d) for d in digests)


@pytest.fixture(scope="module")
def frame_shell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    """A device with a frame file, shared by the examples of one test."""
    tmp = tmp_path_factory.mktemp("since")
    shell = ShellDevice(tmp)
    shell.device.services.clock.freeze(True)
    path = tmp / "frames" / "emulator-5554.frame"
    framebuffer.create(path)
    shell.device.framebuffer = FrameBuffer.open(path, 1080, 2400)
    yield shell
    shell.close()


@settings(max_examples=150, deadline=None)
@given(named=st.lists(DIGEST, max_size=MAX_SINCE + 2), current=st.integers(-1, MAX_SINCE + 1))
def test_mgfarm_frame_answers_same_only_for_a_named_digest(
    frame_shell: ShellDevice, named: list[str], current: int
) -> None:
    """Whatever the client names, the reply is `same` for the screen's digest when named among
    at most MAX_SINCE, else the frame; more than MAX_SINCE is a usage error."""
    digest = frame_shell.device.services.window.frame_digest().hex()
    if 0 <= current < len(named):
        named[current] = digest  # the screen is one of those named
    result = frame_shell.run("mgfarm-frame --ui" + (f" --since {','.join(named)}" if named else ""))
    if len(named) > MAX_SINCE:
        assert result.status == 2 and result.out == b""
        return
    assert result.status == 0, result.error
    reply = parse_reply(result.out)
    assert reply.signature.hex() == digest
    assert (reply.header is None) == (digest in named)


def test_a_worker_renders_a_recent_screen_once() -> None:
    made: list[int] = []

    def make(n: int) -> tuple[int, int, bytes]:
        made.append(n)
        return (1, 1, bytes([n] * 3))

    def frame(raw: Kept[tuple[bytes, int], Raw], n: int) -> Raw:
        """As `write_frame`: the kept frame, else a new one, kept."""
        return raw.get((bytes([n]), 1)) or raw.put((bytes([n]), 1), make(n))

    raw: Kept[tuple[bytes, int], Raw] = Kept(2, lambda _frame: 1)
    for n in (1, 2, 1, 3, 2, 1):  # 3 pushes 2 out (1 was used since); then 2 pushes 1 out
        assert frame(raw, n) == (1, 1, bytes([n] * 3))
    assert made == [1, 2, 3, 2, 1]
    raw.clear()  # an idle worker gives them back
    frame(raw, 3)
    assert made[-1] == 3
    raw.limit(0)  # shared frames off: nothing is kept, not even the newest
    frame(raw, 3)
    frame(raw, 3)
    assert made[-2:] == [3, 3]
