"""The emulator gRPC servicers of a simulated device, called in-process: formats, gestures, bad input."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

grpc = pytest.importorskip("grpc", reason="grpcio is not installed")

from mgfarm.sim.grpc import emulator_controller_pb2 as pb  # noqa: E402
from mgfarm.sim.grpc import snapshot_service_pb2 as snap_pb  # noqa: E402
from mgfarm.sim.grpc.gestures import Gestures  # noqa: E402
from mgfarm.sim.grpc.server import EmulatorController, SnapshotService, android_key  # noqa: E402
from tests.unit.shellkit import ShellDevice  # noqa: E402


class Aborted(Exception):
    pass


class Context:
    """What a servicer may do with its call context: abort with a status and a message."""

    async def abort(self, code: Any, details: str) -> None:
        raise Aborted(f"{code}: {details}")


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int, int, int]] = []

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int) -> None:
        self.calls.append((x1, y1, x2, y2, ms))


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("grpc"))
    yield dev
    dev.close()


def call(sh: ShellDevice, coro: Any) -> Any:
    return sh.loop.run_until_complete(coro)


def test_screenshot_formats(sh: ShellDevice) -> None:
    ctl = EmulatorController(sh.device)
    rgba = call(sh, ctl.getScreenshot(pb.ImageFormat(format=pb.ImageFormat.RGBA8888), Context()))
    assert (rgba.format.width, rgba.format.height, len(rgba.image)) == (1080, 2400, 1080 * 2400 * 4)
    rgb = call(sh, ctl.getScreenshot(pb.ImageFormat(format=pb.ImageFormat.RGB888), Context()))
    assert len(rgb.image) == 1080 * 2400 * 3 and rgb.image[:3] == rgba.image[:3]
    png = call(sh, ctl.getScreenshot(pb.ImageFormat(format=pb.ImageFormat.PNG), Context()))
    assert png.image.startswith(b"\x89PNG")
    small = call(
        sh, ctl.getScreenshot(pb.ImageFormat(format=pb.ImageFormat.RGB888, width=270, height=600), Context())
    )
    assert (small.format.width, small.format.height, len(small.image)) == (270, 600, 270 * 600 * 3)
    assert small.seq > png.seq


def test_status_and_keys(sh: ShellDevice) -> None:
    ctl = EmulatorController(sh.device)
    status = call(sh, ctl.getStatus(None, Context()))
    assert status.booted and {e.key for e in status.hardwareConfig.entry} >= {"hw.lcd.width", "hw.lcd.height"}
    sh.run("am start -n com.android.settings/.Settings")
    call(sh, ctl.sendKey(pb.KeyboardEvent(key="GoHome"), Context()))
    assert "QuickstepLauncher" in sh.run("dumpsys activity top").text
    with pytest.raises(Aborted):
        call(sh, ctl.sendKey(pb.KeyboardEvent(key="NoSuchKey"), Context()))


def test_key_codes() -> None:
    assert android_key(pb.KeyboardEvent(codeType=pb.KeyboardEvent.XKB, keyCode=102 + 8)) == 3
    assert android_key(pb.KeyboardEvent(codeType=pb.KeyboardEvent.Evdev, keyCode=158)) == 4
    assert android_key(pb.KeyboardEvent(key="Enter")) == 66
    assert android_key(pb.KeyboardEvent(codeType=pb.KeyboardEvent.Usb, keyCode=7)) is None


def test_gestures_tap_long_press_swipe() -> None:
    window = Recorder()
    g = Gestures(window)
    g.event(0, 10, 20, True, now=0.0)
    g.event(0, 10, 20, False, now=0.05)
    g.event(1, 10, 20, True, now=1.0)
    g.event(1, 10, 20, False, now=1.8)
    g.event(0, 100, 900, True, now=2.0)
    g.event(0, 100, 500, True, now=2.1)
    g.event(0, 100, 200, False, now=2.3)
    g.event(5, 1, 1, False, now=3.0)  # a lift without a touch (android_env's no-op) does nothing
    assert window.calls == [(10, 20, 10, 20, 50), (10, 20, 10, 20, 800), (100, 900, 100, 200, 300)]


def test_snapshots_over_the_service(sh: ShellDevice) -> None:
    svc = SnapshotService(sh.device)
    saved = call(sh, svc.SaveSnapshot(snap_pb.SnapshotPackage(snapshot_id="g1"), Context()))
    assert saved.success
    listed = call(sh, svc.ListSnapshots(snap_pb.SnapshotFilter(), Context()))
    assert "g1" in [s.snapshot_id for s in listed.snapshots]
    bad = call(sh, svc.LoadSnapshot(snap_pb.SnapshotPackage(snapshot_id="../x"), Context()))
    assert not bad.success and bad.err
    assert call(sh, svc.LoadSnapshot(snap_pb.SnapshotPackage(snapshot_id="g1"), Context())).success


FUZZ: list[ShellDevice] = []


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(-5, 3), st.integers(-(10**6), 10**6), st.integers(-(10**6), 10**6), st.integers(0, 2)
        ),
        max_size=6,
    ),
    st.integers(0, 400),
    st.integers(0, 400),
    st.sampled_from([0, 1, 2, 7]),
    st.text(max_size=8),
    st.integers(-(2**31), 2**31 - 1),
)
def test_servicers_survive_any_request(
    touches: list[tuple[int, int, int, int]], width: int, height: int, fmt: int, key: str, code: int
) -> None:
    import tempfile

    if not FUZZ:
        FUZZ.append(ShellDevice(Path(tempfile.mkdtemp(prefix="grpc-fuzz-"))))
    sh = FUZZ[0]
    ctl = EmulatorController(sh.device)
    event = pb.TouchEvent(touches=[pb.Touch(identifier=i, x=x, y=y, pressure=p) for i, x, y, p in touches])
    call(sh, ctl.sendTouch(event, Context()))
    call(sh, ctl.sendMouse(pb.MouseEvent(x=code % 5000, y=width, buttons=fmt), Context()))
    with contextlib.suppress(Aborted):  # an unknown key is refused with INVALID_ARGUMENT
        call(sh, ctl.sendKey(pb.KeyboardEvent(key=key, keyCode=code, codeType=fmt % 5), Context()))
    image = call(sh, ctl.getScreenshot(pb.ImageFormat(format=fmt % 3, width=width, height=height), Context()))
    assert image.image


def test_a_grpc_port_one_device_serves_cannot_be_bound_by_another(sh: ShellDevice) -> None:
    from mgfarm.sim.grpc.server import start_grpc

    with socket_free_port() as port:
        first = call(sh, start_grpc(sh.device, "127.0.0.1", port))
    try:
        with pytest.raises(OSError, match="could not listen"):  # not shared by SO_REUSEPORT
            call(sh, start_grpc(sh.device, "127.0.0.1", port))
    finally:
        call(sh, first.stop(None))


@contextlib.contextmanager
def socket_free_port() -> Iterator[int]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    yield port
