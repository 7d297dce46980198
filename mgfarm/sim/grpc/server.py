"""gRPC servers of one simulated device: EmulatorController and SnapshotService, as the emulator serves
them on its gRPC port (clients connect with `grpc.local_channel_credentials()` to localhost:PORT).

Served in the device's event loop (grpc.aio), so every call reaches the device as console and adb do.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf import empty_pb2

from mgfarm.sim import snapshot
from mgfarm.sim.grpc import emulator_controller_pb2 as pb
from mgfarm.sim.grpc import emulator_controller_pb2_grpc as pb_grpc
from mgfarm.sim.grpc import snapshot_service_pb2 as snap_pb
from mgfarm.sim.grpc import snapshot_service_pb2_grpc as snap_grpc
from mgfarm.sim.grpc.gestures import Gestures

if TYPE_CHECKING:
    import numpy as np

    from mgfarm.sim.device import SimDevice

log = logging.getLogger("mgfarm.sim.grpc")
VERSION = "34.1.14.0 (build_id 11137366)"
# Linux evdev key codes (XKB codes are these + 8) and W3C key names -> Android key codes.
EVDEV_KEYS = {
    1: 111,
    14: 67,
    15: 61,
    28: 66,
    57: 62,
    102: 3,
    103: 19,
    105: 21,
    106: 22,
    108: 20,
    116: 26,
    139: 82,
    158: 4,
    217: 84,
    580: 187,
}
KEY_NAMES = {
    "GoHome": 3, "Home": 3, "GoBack": 4, "Back": 4, "Enter": 66, "Backspace": 67, "Tab": 61, "Escape": 111,
    "AppSwitch": 187, "Power": 26, "ArrowUp": 19, "ArrowDown": 20, "ArrowLeft": 21, "ArrowRight": 22,
    "Menu": 82, "AudioVolumeUp": 24, "AudioVolumeDown": 25, "EndCall": 6, "Call": 5,
}  # fmt: skip


def android_key(event: Any) -> int | None:
    if event.key:
        return KEY_NAMES.get(event.key)
    code = event.keyCode
    if event.codeType == pb.KeyboardEvent.XKB:
        code -= 8
    if event.codeType in (pb.KeyboardEvent.XKB, pb.KeyboardEvent.Evdev):
        return EVDEV_KEYS.get(code)
    return None


class EmulatorController(pb_grpc.EmulatorControllerServicer):
    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.gestures = Gestures(device.services.window)
        self.mouse_down = False
        self.seq = 0
        self.rotation = [0.0, 0.0, 0.0]
        self._png: bytes | None = None
        self._rgb: np.ndarray | None = None

    async def getStatus(self, request: Any, context: Any) -> Any:
        config = self.device.config
        hardware = pb.EntryList(
            entry=[
                pb.Entry(key="hw.lcd.width", value=str(config.width)),
                pb.Entry(key="hw.lcd.height", value=str(config.height)),
                pb.Entry(key="hw.lcd.density", value=str(config.density)),
                pb.Entry(key="avd.name", value=config.name),
            ]
        )
        return pb.EmulatorStatus(
            version=VERSION,
            uptime=int((time.monotonic() - self.device.started_at) * 1000),
            booted=self.device.booted.is_set(),
            vmConfig=pb.VmConfiguration(
                hypervisorType=pb.VmConfiguration.KVM, numberOfCpuCores=4, ramSizeBytes=2 << 30
            ),
            hardwareConfig=hardware,
        )

    async def getScreenshot(self, request: Any, context: Any) -> Any:
        """PNG, RGBA8888 or RGB888, scaled when the request names a size (as the emulator does).

        Pixels come from the window manager's kept PNG (decoding it is several times cheaper than
        composing the screen again), and the last decoded frame is reused while the PNG is the same."""
        import numpy as np  # here, not at import: ~0.14 s of CPU and ~5 MiB a worker that never needs it

        png = self.device.services.window.screencap_png()
        if png is not self._png or self._rgb is None:
            self._png, self._rgb = png, decode_png(png)
        rgb = self._rgb
        turns = self._turns()
        if turns:
            rgb = np.ascontiguousarray(np.rot90(rgb, turns))
        height, width = rgb.shape[:2]
        want = (request.width or width, request.height or height)
        if want != (width, height):
            from PIL import Image

            rgb = np.asarray(Image.fromarray(rgb).resize(want, Image.Resampling.BILINEAR))
            height, width = rgb.shape[:2]
        if request.format == pb.ImageFormat.PNG:
            data = png if want == (rgb.shape[1], rgb.shape[0]) and rgb is self._rgb else encode_png(rgb)
        elif request.format == pb.ImageFormat.RGB888:
            data = rgb.tobytes()
        else:
            alpha = np.full((height, width, 1), 255, dtype=np.uint8)
            data = np.concatenate([rgb, alpha], axis=2).tobytes()
        self.seq += 1
        skin = pb.Rotation(rotation=pb.Rotation.SkinRotation.Name(self._sensor_turns()))
        fmt = pb.ImageFormat(format=request.format, width=width, height=height, rotation=skin)
        return pb.Image(
            format=fmt,
            width=width,
            height=height,
            image=data,
            seq=self.seq,
            timestampUs=int(time.time() * 1e6),
        )

    def _sensor_turns(self) -> int:
        """The device's coarse orientation from its sensor, in counter-clockwise quarter turns."""
        return -self.device.services.telephony.radio.rotation % 4

    def _turns(self) -> int:
        """Counter-clockwise quarter turns from the display's upright image to what gRPC shows.

        The framebuffer holds the display turned back by Android's rotation, and the emulator turns
        its image by the device's coarse orientation (the sensor), whatever Android's rotation lock
        says: with `user_rotation` 1 and the device upright the image is portrait, content sideways."""
        return (self._sensor_turns() - self.device.services.window.current_rotation()) % 4

    def _to_display(self, x: int, y: int) -> tuple[int, int]:
        """A point of the gRPC image (touches come in its coordinates) on the display."""
        width, height = self.device.services.window.display_size
        for turn in range(self._turns(), 0, -1):
            before = width if (turn - 1) % 2 == 0 else height  # the width of the image one turn back
            x, y = before - 1 - y, x
        return x, y

    async def sendTouch(self, request: Any, context: Any) -> Any:
        for touch in request.touches:
            x, y = self._to_display(touch.x, touch.y)
            self.gestures.event(touch.identifier, x, y, touch.pressure > 0)
        return empty_pb2.Empty()

    async def sendMouse(self, request: Any, context: Any) -> Any:
        pressed = bool(request.buttons & 1)
        if pressed or self.mouse_down:
            self.gestures.event(-1, *self._to_display(request.x, request.y), pressed)
        self.mouse_down = pressed
        return empty_pb2.Empty()

    async def sendKey(self, request: Any, context: Any) -> Any:
        window = self.device.services.window
        if request.text:
            window.text(request.text)
        elif request.eventType != pb.KeyboardEvent.keyup:
            code = android_key(request)
            if code is None:
                await context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT, f"unknown key {request.key or request.keyCode}"
                )
            window.key(code)
        return empty_pb2.Empty()

    async def setPhysicalModel(self, request: Any, context: Any) -> Any:
        if request.target == pb.PhysicalModelValue.ROTATION:
            self.rotation = [*request.value.data, 0.0, 0.0, 0.0][:3]
            # the device's sensor orientation, as `rotate` on the console sets it
            self.device.services.telephony.radio.rotation = round(-self.rotation[2] / 90) % 4
            self.device.changed()  # with auto-rotate on, the display follows the sensor
        return empty_pb2.Empty()

    async def getPhysicalModel(self, request: Any, context: Any) -> Any:
        value = pb.ParameterValue(
            data=self.rotation if request.target == pb.PhysicalModelValue.ROTATION else []
        )
        return pb.PhysicalModelValue(target=request.target, status=pb.PhysicalModelValue.OK, value=value)

    async def setVmState(self, request: Any, context: Any) -> Any:
        if request.state in (pb.VmRunState.SHUTDOWN, pb.VmRunState.TERMINATE):
            self.device.killed.set()  # as `kill` on the console: the host stops serving this device
        return empty_pb2.Empty()

    async def getVmState(self, request: Any, context: Any) -> Any:
        return pb.VmRunState(state=pb.VmRunState.RUNNING)


def decode_png(png: bytes) -> np.ndarray:
    """RGB pixels of a PNG (pyspng when installed, else Pillow)."""
    import numpy as np

    try:
        import pyspng

        pixels = pyspng.load(png)
    except ImportError:
        import io

        from PIL import Image

        pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    return np.ascontiguousarray(pixels[:, :, :3]) if pixels.ndim == 3 else np.dstack([pixels] * 3)


def encode_png(rgb: np.ndarray) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(rgb).save(out, "PNG")
    return out.getvalue()


class SnapshotService(snap_grpc.SnapshotServiceServicer):
    def __init__(self, device: SimDevice) -> None:
        self.device = device

    async def ListSnapshots(self, request: Any, context: Any) -> Any:
        rows = [
            snap_pb.SnapshotDetails(
                snapshot_id=info.name, size=info.size, status=snap_pb.SnapshotDetails.Compatible
            )
            for info in snapshot.list_snapshots(self.device)
        ]
        return snap_pb.SnapshotList(snapshots=rows)

    async def _act(self, request: Any, action: Any) -> Any:
        try:
            action(self.device, request.snapshot_id)
        except snapshot.SnapshotError as exc:
            return snap_pb.SnapshotPackage(
                snapshot_id=request.snapshot_id, success=False, err=str(exc).encode()
            )
        self.device.changed()
        return snap_pb.SnapshotPackage(snapshot_id=request.snapshot_id, success=True)

    async def LoadSnapshot(self, request: Any, context: Any) -> Any:
        return await self._act(request, snapshot.load)

    async def SaveSnapshot(self, request: Any, context: Any) -> Any:
        return await self._act(request, snapshot.save)

    async def DeleteSnapshot(self, request: Any, context: Any) -> Any:
        return await self._act(request, snapshot.delete)


async def start_grpc(device: SimDevice, host: str, port: int) -> grpc.aio.Server:
    """Serve the device's gRPC API on host:port (plain HTTP/2, as the emulator without TLS)."""
    server = grpc.aio.server(
        # grpcio sets SO_REUSEPORT by default: a second device could bind the same port and the
        # kernel would split clients between the two. A taken port must fail instead.
        options=[
            ("grpc.max_send_message_length", -1),
            ("grpc.max_receive_message_length", -1),
            ("grpc.so_reuseport", 0),
        ]
    )
    pb_grpc.add_EmulatorControllerServicer_to_server(EmulatorController(device), server)
    snap_grpc.add_SnapshotServiceServicer_to_server(SnapshotService(device), server)
    try:  # older grpcio returns 0 on a taken port, newer raises RuntimeError
        bound = server.add_insecure_port(f"{host}:{port}")
    except RuntimeError:
        bound = 0
    if bound == 0:
        raise OSError(f"gRPC could not listen on {host}:{port}: the port is taken")
    await server.start()
    return server
