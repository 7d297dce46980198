"""Frames through the farm's shared file on a real process-backend farm, against `screencap -p`.

`mgfarm up` creates each replica's frame file; the env's device reads screens from it in one round
trip with the hierarchy. What the device writes there is untrusted: whatever its header says, the
client raises one DeviceError and reads nothing out of bounds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from mgfarm.adb.errors import AdbError
from mgfarm.device import Device, DeviceError, framebuffer
from mgfarm.device.device import decode_png_rgb
from mgfarm.device.ui import parse_hierarchy
from mgfarm.env.env import MobileEnv
from mgfarm.env.spaces import element_observation
from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm.state import FarmState, farm_dir, load_farm
from tests.support import run_mgfarm

from .conftest import AdbServer

mgfarm = partial(run_mgfarm, timeout=120)
NAME = "shm"


@pytest.fixture(scope="module")
def farm(adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FarmState]:
    home = tmp_path_factory.mktemp("mgfarm-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MGFARM_HOME", str(home))
        proc = mgfarm("up", "--replicas", "1", "--name", NAME, "--adb-port", str(adb_server.port))
        assert proc.returncode == 0, proc.stderr
        try:
            yield load_farm(NAME)
        finally:
            if (farm_dir(NAME) / "state.json").exists():
                api.down(NAME)


def device(farm: FarmState, frame_file: str | None = None) -> Device:
    rep = farm.replicas[0]
    return Device(
        rep.serial,
        adb_port=farm.adb_server_port,
        console_token=rep.console_token,
        frame_file=rep.frame_file if frame_file is None else frame_file,
    )


STATUS_BAR_ROWS = 100  # the status bar (63 px at 420 dpi) and a margin


def screencap(dev: Device) -> np.ndarray:
    return decode_png_rgb(dev.screenshot_png(), dev.serial)


def alike(a: np.ndarray, b: np.ndarray, scale: int = 1) -> bool:
    """Equal frames; only the status bar may differ, as the device clock may turn a minute between
    two captures (the other rows still prove the frame whole and right)."""
    bar = STATUS_BAR_ROWS // scale
    return np.array_equal(a, b) or np.array_equal(a[bar:], b[bar:])


def shows(pixels: np.ndarray, dev: Device, scale: int = 1) -> bool:
    """Whether `pixels` are what `screencap -p` shows now, made `scale` times smaller as Pillow's
    `reduce` does."""
    shot = screencap(dev)
    if scale > 1:
        shot = np.asarray(Image.fromarray(shot).reduce(scale))
    return alike(pixels, shot, scale)


def test_the_env_sees_over_shared_memory_what_screencap_shows(farm: FarmState) -> None:
    frame_file = Path(farm.replicas[0].frame_file)
    assert frame_file.parent == Path(farm.frames_dir)  # a private tmpfs folder (mgfarm.farm.frames)
    assert frame_file.stat().st_mode & 0o777 == 0o600
    env = MobileEnv("calendar.add_event", seed=0, farm=NAME, wait_seconds=0.0)
    try:
        assert env.device.shares_frames
        obs, _ = env.reset(seed=0)
        for action in ({"action_type": "open_app", "app_name": "Settings"}, {"action_type": "wait"}):
            pixels = obs["screenshot"]
            assert not pixels.flags.writeable
            assert shows(pixels, env.device)
            dumped = tuple(element_observation(e) for e in parse_hierarchy(env.device.dump_xml()))
            assert repr(obs["ui_elements"]) == repr(dumped)
            obs, *_ = env.step(action)
        assert shows(obs["screenshot"], env.device)
    finally:
        env.close()


def test_without_the_file_screens_come_as_png(farm: FarmState, tmp_path: Path) -> None:
    for missing in ("", str(tmp_path / "absent.frame")):
        dev = device(farm, missing)
        assert not dev.shares_frames
        pixels, xml = dev.observe()
        assert shows(pixels, dev) and xml == dev.ui_xml()


def test_the_device_cannot_reach_its_frame_file(farm: FarmState) -> None:
    dev = device(farm)
    res = dev.shell2(f"cat {farm.replicas[0].frame_file}")
    assert res.exit_code != 0 and "No such file" in res.output


@pytest.mark.parametrize(
    "width, height, seq",
    [(65535, 65535, None), (2**31, 1, None), (1080, 2400, 7), (1, 1, None)],
    ids=["huge", "overflowing", "torn", "tiny"],
)
def test_a_header_the_device_forged_is_one_device_error(
    farm: FarmState, width: int, height: int, seq: int | None
) -> None:
    """What a hostile device could write through its mapping: the client refuses it, reads nothing."""
    path = farm.replicas[0].frame_file
    dev = device(farm)
    pixels, _ = dev.observe()  # the file now holds this screen; the device will not write it again
    header = framebuffer.parse_header(Path(path).read_bytes()[: framebuffer.HEADER_SIZE], 1080, 2400)
    forged = framebuffer.HEADER.pack(
        framebuffer.MAGIC, header.seq if seq is None else seq, width, height, 3, header.signature
    )
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, forged, 0)
        fresh = device(farm)  # no --since: it asks for the frame, and the device points at the file
        with pytest.raises(DeviceError, match="sent no whole frame"):
            fresh.observe()
        with pytest.raises(DeviceError, match="sent no whole frame"):
            fresh.screenshot_frame()
    finally:
        whole = (header.seq, header.width, header.height, 3, header.signature)
        os.pwrite(fd, framebuffer.HEADER.pack(framebuffer.MAGIC, *whole), 0)
        os.close(fd)
    assert alike(device(farm).observe()[0], pixels)


def test_a_landscape_screen_comes_whole_too(farm: FarmState) -> None:
    dev = device(farm)
    dev.settings_put("system", "accelerometer_rotation", 0)
    dev.settings_put("system", "user_rotation", 1)
    try:
        pixels, _ = dev.observe()
        assert pixels.shape == (1080, 2400, 3)
        assert shows(pixels, dev)
    finally:
        dev.settings_put("system", "user_rotation", 0)
    assert device(farm).observe()[0].shape == (2400, 1080, 3)


def test_half_size_screens_are_resized_by_the_device(farm: FarmState) -> None:
    env = MobileEnv("calendar.add_event", seed=0, farm=NAME, wait_seconds=0.0, screen_scale=2)
    try:
        assert env.device.shares_frames
        obs, _ = env.reset(seed=0)
        assert env.observation_space["screenshot"].shape == (1200, 540, 3)
        assert shows(obs["screenshot"], env.device, scale=2)
        # A device without the frame file gives the same pixels, resized by the client.
        png_only = device(farm, "")
        assert alike(png_only.screenshot_frame(2), obs["screenshot"], scale=2)
    finally:
        env.close()
    with pytest.raises(MgfarmError, match="screen_scale=3 is unsupported"):
        MobileEnv("calendar.add_event", farm=NAME, screen_scale=3)


def record_commands(wire: object, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The shell command lines `wire` (a Device's ShellClient) sends from now on, one per round trip."""
    lines: list[str] = []

    def recorded(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(cmd: str, *args: Any) -> Any:
            lines.append(cmd)
            return real(cmd, *args)

        return call

    for name in ("run", "run_raw", "run_streams"):
        monkeypatch.setattr(wire, name, recorded(getattr(wire, name)))
    return lines


def test_a_step_sends_its_input_with_the_observation_in_one_round_trip(
    farm: FarmState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tap, a scroll or a key and the screen after it: one shell command line. A round trip that
    breaks is the action's failure (`info["error"]`, the last observation again), a frame reply
    that is not whole the observation's (DeviceError), as each was when they went apart."""
    env = MobileEnv("calendar.add_event", seed=0, farm=NAME, wait_seconds=0.0)
    try:
        obs, _ = env.reset(seed=0)
        wire = env.device.wire
        lines = record_commands(wire, monkeypatch)
        actions = [{"action_type": "click", "index": 0}, {"action_type": "scroll", "direction": "down"}]
        for action in [*actions, {"action_type": "navigate_back"}]:
            lines.clear()
            obs, _, _, _, info = env.step(action)
            assert info["error"] is None and len(lines) == 1 and lines[0].startswith("{ input ")
            assert shows(obs["screenshot"], env.device)

        def broken(cmd: str, *args: object) -> tuple[bytes, bytes, int]:
            raise AdbError("the adb server closed the connection early")

        monkeypatch.setattr(wire, "run_streams", broken)
        again, _, terminated, truncated, info = env.step({"action_type": "navigate_back"})
        assert "failed during input" in info["error"] and not (terminated or truncated)
        assert np.array_equal(again["screenshot"], obs["screenshot"])
        monkeypatch.setattr(wire, "run_streams", lambda cmd, *a: (b"0\nframe 9 1 1\n", b"", 0))
        monkeypatch.setattr(wire, "run", lambda cmd, *a: (b"frame 9 1 1\n", 0))
        with pytest.raises(DeviceError, match="sent no whole frame"):
            env.step({"action_type": "navigate_back"})
    finally:
        env.close()


def test_typing_into_a_field_is_one_round_trip_too(farm: FarmState, monkeypatch: pytest.MonkeyPatch) -> None:
    """input_text's tap, clearing keys, text and ENTER between lines go with the observation."""
    env = MobileEnv("calendar.add_event", seed=0, farm=NAME, wait_seconds=0.0)
    try:
        env.reset(seed=0)
        obs, *_ = env.step({"action_type": "open_app", "app_name": "Contacts"})
        create = next(e["index"] for e in obs["ui_elements"] if e["content_desc"] == "Create contact")
        obs, *_ = env.step({"action_type": "click", "index": create})
        field = next(e["index"] for e in obs["ui_elements"] if "EditText" in e["class_name"])
        lines = record_commands(env.device.wire, monkeypatch)
        text = "Ada 'Lovelace'\nx"
        obs, _, _, _, info = env.step(
            {"action_type": "input_text", "index": field, "text": text, "clear_text": True}
        )
        assert info["error"] is None and len(lines) == 1
        typed = [e["text"] for e in obs["ui_elements"] if "EditText" in e["class_name"]]
        assert typed[:2] == ["Ada 'Lovelace'", "x"]  # ENTER moved on to the next field
        assert shows(obs["screenshot"], env.device)
    finally:
        env.close()
