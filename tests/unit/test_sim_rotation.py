"""Display rotation and the soft keyboard's state, seen by clients over a real adb server.

The device runs in-process (`SimThread`) and is reached only through adb and the emulator console,
as AndroidWorld, adbutils and uiautomator2 reach one. Android 13 on a phone is the reference: the
display follows `user_rotation` while `accelerometer_rotation` is 0 and the sensor otherwise, except
under Launcher3, which asks for the natural orientation.
"""

from __future__ import annotations

import asyncio
import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import adbutils
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from mgfarm.sim.device import DeviceConfig, SimDevice
from tests.integration.conftest import AdbServer
from tests.simhost import SimThread
from tests.unit.shellkit import ShellDevice

SETTINGS = "com.android.settings/.Settings"
BOUNDS = re.compile(r"\[(\d+),(\d+)\]\[(\d+),(\d+)\]")


@pytest.fixture(scope="module")
def serial(adb_server: AdbServer, sim_thread: SimThread) -> str:
    sim = sim_thread.start()
    adb_server.adb("-s", sim.serial, "wait-for-device", timeout=30)
    return sim.serial


@pytest.fixture
def dev(adb_server: AdbServer, serial: str) -> Iterator[adbutils.AdbDevice]:
    d = adb_server.client().device(serial)
    yield d
    # Every test starts from the device's own defaults: portrait, rotation locked, at home.
    d.shell("settings put system accelerometer_rotation 0; settings put system user_rotation 0")
    d.shell("input keyevent 3")


def sh(d: adbutils.AdbDevice, cmd: str) -> str:
    return str(d.shell(cmd))


def current_rotation(d: adbutils.AdbDevice) -> int:
    """AndroidWorld's adb_utils.get_orientation: the first mCurrentRotation of `dumpsys window`."""
    found = re.findall(r"mCurrentRotation=ROTATION_(\d+)", sh(d, "dumpsys window | grep mCurrentRotation"))
    return int(found[0]) // 90


def node_center(xml: str, text: str) -> tuple[int, int]:
    for el in ET.fromstring(xml).iter("node"):
        if el.get("text") == text:
            m = BOUNDS.fullmatch(el.get("bounds", ""))
            assert m, el.get("bounds")
            x0, y0, x1, y1 = (int(v) for v in m.groups())
            return (x0 + x1) // 2, (y0 + y1) // 2
    raise AssertionError(f"no node with text {text!r}")


def dump(d: adbutils.AdbDevice) -> str:
    sh(d, "uiautomator dump /sdcard/window_dump.xml")
    return sh(d, "cat /sdcard/window_dump.xml")


def screenshot_size(d: adbutils.AdbDevice) -> tuple[int, int]:
    png = d.shell("screencap -p", encoding=None)
    assert isinstance(png, bytes)
    size: tuple[int, int] = Image.open(io.BytesIO(png)).size
    return size


def test_input_method_state_follows_the_keyboard(dev: adbutils.AdbDevice) -> None:
    sh(dev, f"am start -n {SETTINGS}")
    assert "mInputShown=false" in sh(dev, "dumpsys input_method")
    x, y = node_center(dump(dev), "Search Settings")
    sh(dev, f"input tap {x} {y}")  # the search field takes focus and the keyboard comes up
    shown = sh(dev, "dumpsys input_method")
    assert "mInputShown=true" in shown
    assert "mIsInputViewShown=true" in shown
    assert re.search(r"mServedInputConnection=\S+\{", shown)
    ime_window = sh(dev, "dumpsys window windows").split("InputMethod}:")[1]
    assert "isVisible=true" in ime_window.split("Window #")[0]
    top = sh(dev, "dumpsys activity top")
    sh(dev, "input keyevent 4")  # the first BACK only hides the keyboard
    hidden = sh(dev, "dumpsys input_method")
    assert "mInputShown=false" in hidden
    assert "mIsInputViewShown=false" in hidden
    assert "mServedInputConnection=null" in hidden
    assert sh(dev, "dumpsys activity top") == top


def test_user_rotation_turns_the_display_as_androidworld_sets_it(dev: adbutils.AdbDevice) -> None:
    sh(dev, f"am start -n {SETTINGS}")
    # adb_utils.change_orientation("landscape"): the accelerometer off, then the user rotation.
    sh(dev, "settings put system accelerometer_rotation 0")
    sh(dev, "settings put system user_rotation 1")
    assert current_rotation(dev) == 1
    frames = sh(dev, "dumpsys input | grep -E 'logicalFrame|SurfaceOrientation'")
    assert re.findall(r"logicalFrame=\[0, 0, (\d+), (\d+)\]", frames)[0] == ("2400", "1080")
    assert re.search(r"SurfaceOrientation:\s+(\d)", frames)[1] == "1"  # type: ignore[index]
    assert dev.rotation() == 1  # adbutils reads `dumpsys display`
    assert tuple(dev.window_size()) == (2400, 1080)
    assert "Physical size: 1080x2400" in sh(dev, "wm size")  # the panel does not change
    assert screenshot_size(dev) == (2400, 1080)
    xml = dump(dev)
    assert '<hierarchy rotation="1">' in xml
    right_edges = [int(m[2]) for m in BOUNDS.findall(xml)]
    assert max(right_edges) == 2400
    x, y = node_center(xml, "Network & internet")
    assert x > 1080 and y < 1080  # the row spans the long side: a place only landscape has
    sh(dev, f"input tap {x} {y}")  # taps are in the rotated display's coordinates, as on Android
    assert "NetworkDashboardActivity" in sh(dev, "dumpsys activity top")


def test_the_home_screen_stays_portrait(dev: adbutils.AdbDevice) -> None:
    sh(dev, "settings put system user_rotation 1")
    sh(dev, "input keyevent 3")
    assert current_rotation(dev) == 0  # Launcher3 on a phone asks for SCREEN_ORIENTATION_NOSENSOR
    assert screenshot_size(dev) == (1080, 2400)
    assert "mCurrentAppOrientation=SCREEN_ORIENTATION_NOSENSOR" in sh(dev, "dumpsys window displays")
    sh(dev, f"am start -n {SETTINGS}")
    assert current_rotation(dev) == 1


def test_the_sensor_turns_the_display_when_auto_rotate_is_on(
    adb_server: AdbServer, serial: str, dev: adbutils.AdbDevice
) -> None:
    def rotate() -> None:
        out = adb_server.adb("-s", serial, "emu", "rotate")
        assert out.returncode == 0, out.stderr

    sh(dev, f"am start -n {SETTINGS}")
    rotate()  # locked (accelerometer off): the display keeps the user rotation
    assert current_rotation(dev) == 0
    sh(dev, "settings put system accelerometer_rotation 1")
    # The device was turned a quarter clockwise: the content turns back, ROTATION_270 (seascape).
    assert current_rotation(dev) == 3
    assert "mUserRotationMode=USER_ROTATION_FREE" in sh(dev, "dumpsys window displays")
    rotate()  # upside down: a phone keeps the rotation it had
    assert current_rotation(dev) == 3
    rotate()  # three quarters clockwise = one counter-clockwise: ROTATION_90
    assert current_rotation(dev) == 1
    assert screenshot_size(dev) == (2400, 1080)
    rotate()
    assert current_rotation(dev) == 0


@pytest.fixture(scope="module")
def device(tmp_path_factory: pytest.TempPathFactory) -> SimDevice:
    tmp = tmp_path_factory.mktemp("rot")
    device = SimDevice(DeviceConfig("rot", 5555, tmp / "rot", tmp / "snapshots"))
    asyncio.run(device.boot())
    device.services.activities.launch("com.android.settings")
    return device


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    accel=st.one_of(st.sampled_from(["0", "1", "2", "-1", "", "x"]), st.text(max_size=6)),
    user=st.one_of(st.sampled_from(["0", "1", "2", "3", "4", "-1", " 1", "1.5", ""]), st.text(max_size=6)),
    sensor=st.integers(min_value=0, max_value=3),
)
def test_any_rotation_setting_gives_a_valid_display(
    device: SimDevice, accel: str, user: str, sensor: int
) -> None:
    """Settings hold text a client wrote; whatever it is, the display has a rotation 0-3 and a size."""
    store = device.services.settings
    store.put("system", "accelerometer_rotation", accel)
    store.put("system", "user_rotation", user)
    device.services.telephony.radio.rotation = sensor
    device.changed()
    wm = device.services.window
    rotation = wm.current_rotation()
    assert rotation in (0, 1, 2, 3)
    locked = not re.fullmatch(r"[+-]?\d{1,9}", accel) or int(accel) == 0  # Settings.System.getInt
    if locked:
        wanted = int(user) if re.fullmatch(r"[+-]?\d{1,9}", user) else 0
        assert rotation == (wanted if 0 <= wanted <= 3 else 0)
    width, height = wm.display_size
    assert (width, height) == ((2400, 1080) if rotation % 2 else (1080, 2400))
    assert f'<hierarchy rotation="{rotation}">' in wm.dump_xml()


def test_navigation_bar_keeps_to_the_physical_bottom_edge(device: SimDevice) -> None:
    """In landscape a phone's 3-button bar stands on the side that is the device's bottom edge, its
    buttons stacked (back nearest the corner that was bottom-left), and the app keeps out of it."""
    store = device.services.settings
    store.put("system", "accelerometer_rotation", "0")
    wm = device.services.window
    for user, nav_x, back_low in (("1", (2274, 2400), True), ("3", (0, 126), False)):
        store.put("system", "user_rotation", user)
        device.changed()
        frame = wm.frame()
        x0, y0, x1, y1 = frame.nav.bounds
        assert ((x0, x1), (y0, y1)) == (nav_x, (0, 1080))
        back = next(v for v in frame.nav.walk() if v.id.endswith("/back"))
        home = next(v for v in frame.nav.walk() if v.id.endswith("/home"))
        assert (back.bounds[1] > home.bounds[1]) == back_low
        ax0, _, ax1, _ = frame.app_root.children[0].bounds
        assert ax1 <= nav_x[0] or ax0 >= nav_x[1]
    store.put("system", "user_rotation", "0")
    device.changed()
    assert wm.frame().nav.bounds == (0, 2400 - 126, 1080, 2400)


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("grpc-rot"))
    yield dev
    dev.close()


class Context:
    async def abort(self, code: object, details: str) -> None:
        raise AssertionError(f"{code}: {details}")


def grpc_rgb(shell: ShellDevice, ctl: Any) -> np.ndarray:
    from mgfarm.sim.grpc import emulator_controller_pb2 as pb

    request = pb.ImageFormat(format=pb.ImageFormat.RGB888)
    image = shell.loop.run_until_complete(ctl.getScreenshot(request, Context()))
    return np.frombuffer(image.image, dtype=np.uint8).reshape(image.format.height, image.format.width, 3)


def screencap_rgb(shell: ShellDevice) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(shell.run("screencap -p").out)).convert("RGB"))


def test_grpc_screenshots_and_touches_follow_the_sensor_not_the_lock(shell: ShellDevice) -> None:
    """The emulator's gRPC image is the framebuffer turned by the device's coarse (sensor) orientation,
    whatever Android's rotation lock says: with `user_rotation` 1 and the device held upright it is
    portrait with the content sideways, and touches land where that image shows things."""
    pytest.importorskip("grpc", reason="grpcio is not installed")
    from mgfarm.sim.grpc import emulator_controller_pb2 as pb
    from mgfarm.sim.grpc.server import EmulatorController

    ctl = EmulatorController(shell.device)
    shell.run(f"am start -n {SETTINGS}")
    shell.run("settings put system accelerometer_rotation 0; settings put system user_rotation 1")
    upright = screencap_rgb(shell)
    assert upright.shape[:2] == (1080, 2400)
    framebuffer = grpc_rgb(shell, ctl)
    assert framebuffer.shape[:2] == (2400, 1080)
    assert np.array_equal(framebuffer, np.rot90(upright, -1))  # the display's top on the panel's right
    shell.run("uiautomator dump /sdcard/d.xml")
    x, y = node_center(shell.run("cat /sdcard/d.xml").text, "Network & internet")
    px, py = 1080 - 1 - y, x  # AndroidWorld's logical-to-physical mapping for rotation 1
    for pressed in (True, False):
        touch = pb.Touch(x=px, y=py, identifier=0, pressure=1 if pressed else 0)
        shell.loop.run_until_complete(ctl.sendTouch(pb.TouchEvent(touches=[touch]), Context()))
    assert "NetworkDashboardActivity" in shell.run("dumpsys activity top").text
    # Auto-rotate on and the device turned a quarter counter-clockwise: display and image agree.
    shell.run("settings put system accelerometer_rotation 1")
    model = pb.PhysicalModelValue(
        target=pb.PhysicalModelValue.ROTATION, value=pb.ParameterValue(data=[0.0, 0.0, 90.0])
    )
    shell.loop.run_until_complete(ctl.setPhysicalModel(model, Context()))
    assert shell.run("dumpsys window | grep mCurrentRotation").text.strip() == "mCurrentRotation=ROTATION_90"
    assert np.array_equal(grpc_rgb(shell, ctl), screencap_rgb(shell))


def test_uiautomator2_orientation_methods(shell: ShellDevice) -> None:
    """u2's `d.orientation = "left"` (UiDevice.setOrientationLeft freezes the user rotation at 90),
    `d.freeze_rotation(False)` (auto-rotate back on) and `d.info`'s rotated display size."""
    from mgfarm.sim.uiautomator.rpc import INVALID_PARAMS, RpcError, UiAutomatorRpc

    rpc = UiAutomatorRpc(shell.device)

    def call(method: str, *args: object) -> Any:
        return shell.loop.run_until_complete(rpc.call(method, list(args)))

    shell.run(f"am start -n {SETTINGS}")
    call("setOrientation", "left")
    info = call("deviceInfo")
    assert (info["displayRotation"], info["displayWidth"], info["displayHeight"]) == (1, 2400, 1080)
    assert shell.run("settings get system accelerometer_rotation").text == "0\n"
    call("freezeRotation", False)
    assert shell.run("settings get system accelerometer_rotation").text == "1\n"
    call("setOrientation", "n")
    info = call("deviceInfo")
    assert (info["displayRotation"], info["displayWidth"], info["displayHeight"]) == (0, 1080, 2400)
    with pytest.raises(RpcError) as bad:
        call("setOrientation", "sideways")
    assert bad.value.code == INVALID_PARAMS
