"""AndroidWorld's Camera tasks and OpenAppTaskEval, unchanged, on a simulated device: each initialises,
scores 0.0 untouched and 1.0 after a solution that only taps and swipes.

CameraTakePhoto and CameraTakeVideo count new files in /sdcard/Pictures and /sdcard/Movies; the
solutions pick the mode in the app's mode list (a swipe right over the viewfinder) and press the
shutter (twice for a video: start, stop). OpenAppTaskEval draws one of camera, clock, contacts,
settings and dialer and checks the foreground package; seed 2 draws camera, seed 5 dialer.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "camera"


def single_task(module: str, name: str) -> type:
    import importlib

    cls: type = getattr(importlib.import_module(f"android_world.task_evals.single.{module}"), name)
    return cls


def choose_mode(dev: AwDevice, mode: str) -> None:
    """Open the mode list with a swipe right over the viewfinder and pick Camera or Video."""
    dev.phone.sh("input swipe 200 1200 900 1200 300")
    dev.phone.tap(desc=f"Switch to {mode}")


def take_photo(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    choose_mode(dev, "Camera")
    dev.phone.tap(desc="Shutter")


def take_video(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    choose_mode(dev, "Video")
    dev.phone.tap(desc="Shutter")  # start recording
    assert dev.texts("com.android.camera2:id/recording_time"), "no recording time shown"
    dev.phone.tap(desc="Shutter")  # stop: the video is saved


def open_app(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(raw["app_name"])


TASKS = [("CameraTakePhoto", take_photo), ("CameraTakeVideo", take_video)]
CASES = [(name, solve, seed) for name, solve in TASKS for seed in (1, 2)]


@pytest.mark.parametrize(("name", "solve", "seed"), CASES, ids=[f"{n}-{s}" for n, _, s in CASES])
def test_camera_task(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, single_task("camera", name), seed, solve)


@pytest.mark.parametrize("seed", [2, 5])
def test_open_app(aw_device: AwDevice, seed: int) -> None:
    run_task(aw_device, single_task("system", "OpenAppTaskEval"), seed, open_app)


def test_photo_and_video_are_real_files_with_media_rows(aw_device: AwDevice) -> None:
    """A photo is a decodable JPEG and a video an MP4 container, each listed by the media store."""
    phone = aw_device.phone
    phone.sh("rm -rf /sdcard/Pictures/* /sdcard/Movies/*")
    take_photo(aw_device, None, {})
    take_video(aw_device, None, {})
    photos = phone.sh("ls /sdcard/Pictures").split()
    videos = phone.sh("ls /sdcard/Movies").split()
    assert len(photos) == 1 and photos[0].startswith("IMG_") and photos[0].endswith(".jpg"), photos
    assert len(videos) == 1 and videos[0].startswith("VID_") and videos[0].endswith(".mp4"), videos
    jpeg = bytes(phone.d.shell(f"cat /sdcard/Pictures/{photos[0]}", encoding=None))
    image = Image.open(io.BytesIO(jpeg))
    assert (image.format, image.size) == ("JPEG", (480, 640))
    mp4 = bytes(phone.d.shell(f"cat /sdcard/Movies/{videos[0]}", encoding=None))
    assert mp4[4:8] == b"ftyp" and b"moov" in mp4 and b"mvhd" in mp4
    rows = phone.content("content://media/external/images/media", "_display_name:owner_package_name:width")
    assert f"_display_name={photos[0]}, owner_package_name=com.android.camera2, width=480" in rows
    rows = phone.content("content://media/external/video/media", "_display_name:owner_package_name")
    assert f"_display_name={videos[0]}, owner_package_name=com.android.camera2" in rows
    phone.save_screen("camera_after_photo_and_video")
    phone.sh("rm -rf /sdcard/Pictures/* /sdcard/Movies/*")
