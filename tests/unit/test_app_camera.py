"""Camera names its files as the app does (IMG_/VID_ and the device time, `_1` within one second), and
a video is an MP4 container whose boxes parse, its movie header holding the recorded duration."""

from __future__ import annotations

import struct
from datetime import datetime, timezone
from pathlib import Path

from mgfarm.sim.apps.camera import mp4_bytes
from tests.unit.sim_screen import Screen, boot_device

PKG = "com.android.camera2"
NOW = datetime(2023, 10, 15, 15, 34, 5, tzinfo=timezone.utc)


def boxes(data: bytes) -> list[tuple[bytes, bytes]]:
    """The top-level ISO BMFF boxes: (type, payload), each size checked against the data."""
    found, at = [], 0
    while at < len(data):
        size = struct.unpack(">I", data[at : at + 4])[0]
        assert size >= 8 and at + size <= len(data), (at, size)
        found.append((data[at + 4 : at + 8], data[at + 8 : at + size]))
        at += size
    return found


def test_mp4_is_a_valid_container_with_the_duration() -> None:
    top = boxes(mp4_bytes(3500))
    assert [kind for kind, _ in top] == [b"ftyp", b"moov", b"mdat"]
    assert top[0][1][:4] == b"isom"
    [(kind, mvhd)] = boxes(top[1][1])
    assert kind == b"mvhd" and len(mvhd) == 100
    timescale, duration = struct.unpack(">II", mvhd[12:20])
    assert (timescale, duration) == (1000, 3500)


def test_photos_and_videos_are_named_by_device_time(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    device.services.clock.freeze(True)
    device.services.clock.set_ms(int(NOW.timestamp() * 1000))
    screen = Screen(device)
    screen.am.launch(PKG)
    screen.tap(desc="Shutter")
    screen.tap(desc="Shutter")
    assert sorted(device.fs.listdir("/sdcard/Pictures")) == [
        "IMG_20231015_153405.jpg",
        "IMG_20231015_153405_1.jpg",
    ]
    assert screen.has(desc="Photo taken")
    screen.wm.swipe(200, 1200, 900, 1200)
    screen.tap(desc="Switch to Video")
    screen.tap(desc="Shutter")
    assert screen.has(text="00:00")
    screen.tap(desc="Shutter")
    assert device.fs.listdir("/sdcard/Movies") == ["VID_20231015_153405.mp4"]
    assert not screen.has(text="00:00")
