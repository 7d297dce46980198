"""AndroidWorld's Audio Recorder tasks, unchanged, on a simulated device: each scores 0.0 untouched and
1.0 after a solution that records through the UI (Record, then Stop recording) and, for the named
task, renames the record by tapping its name. AndroidWorld's file name already ends in ".m4a" and it
looks for `<file_name>.m4a`, so the name typed keeps that ending: the app adds its own, as the real
app does.
"""

from __future__ import annotations

import struct
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "audio recorder"
ID = "com.dimowner.audiorecorder:id/"
RECORDS = "/storage/emulated/0/Android/data/com.dimowner.audiorecorder/files/Music/records"


def record(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    dev.phone.tap(desc="Record")
    dev.phone.tap(desc="Stop recording")


def record_with_name(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    record(dev, task, raw)
    field = ID + "input_name"
    dev.phone.tap(rid=ID + "txt_name")
    name = dev.phone.node(rid=field)["text"]
    dev.phone.sh("input keyevent " + " ".join(["KEYCODE_DEL"] * len(name)))
    dev.type_into(raw["file_name"], rid=field)
    dev.phone.tap(text="Save")


TASKS = [
    ("AudioRecorderRecordAudio", record),
    ("AudioRecorderRecordAudioWithFileName", record_with_name),
]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("name", "solve"), TASKS, ids=[n for n, _ in TASKS])
def test_audiorecorder(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    from android_world.task_evals.single import audio_recorder

    run_task(aw_device, getattr(audio_recorder, name), seed, solve)


def boxes(data: bytes) -> dict[bytes, bytes]:
    """The top-level boxes of an MP4 file by type (each must fit the file exactly)."""
    found, i = {}, 0
    while i < len(data):
        size, kind = struct.unpack(">I4s", data[i : i + 8])
        assert 8 <= size <= len(data) - i, (kind, size)
        found[kind] = data[i + 8 : i + size]
        i += size
    return found


def test_recording_is_an_m4a(aw_device: AwDevice) -> None:
    """Stop writes an MP4 audio file of the app's naming: brand M4A, an AAC track, its samples."""
    aw_device.phone.sh(f"rm -r {RECORDS}/*")
    record(aw_device, None, {})
    names = aw_device.phone.sh(f"ls {RECORDS}").split()
    assert names == ["Record-1.m4a"]
    data = aw_device.phone.d.sync.read_bytes(f"{RECORDS}/Record-1.m4a")
    top = boxes(data)
    assert list(top) == [b"ftyp", b"mdat", b"moov"]
    assert top[b"ftyp"].startswith(b"M4A ")
    assert b"mp4a" in top[b"moov"] and b"esds" in top[b"moov"] and b"soun" in top[b"moov"]
    assert len(top[b"mdat"]) > 0
    aw_device.phone.sh(f"rm -r {RECORDS}/*")
