"""adbutils' everyday calls against a simulated device, through the real adb server."""

from __future__ import annotations

import io
import struct

from PIL import Image

from tests.integration.conftest import AdbServer, SimHandle


def test_adbutils_device_calls(adb_server: AdbServer, sim_device: SimHandle) -> None:
    device = adb_server.client().device(sim_device.serial)
    assert device.getprop("sys.boot_completed") == "1"
    size = device.window_size()
    assert (size.width, size.height) == (1080, 2400)
    assert "com.android.settings" in device.list_packages()
    current = device.app_current()
    assert current.package
    shot = device.screenshot()
    assert shot.size == (1080, 2400)


def test_framebuffer_service_matches_screencap(adb_server: AdbServer, sim_device: SimHandle) -> None:
    device = adb_server.client().device(sim_device.serial)
    conn = device.open_transport()
    conn.send_command("framebuffer:")
    conn.check_okay()
    data = b""
    while chunk := conn.conn.recv(1 << 20):
        data += chunk
    conn.close()
    header = struct.unpack_from("<14I", data)
    version, bpp, _cs, size, width, height = header[:6]
    assert (version, bpp, width, height) == (2, 32, 1080, 2400)
    assert size == width * height * 4 and len(data) == 56 + size
    framebuffer = Image.frombytes("RGBA", (width, height), data[56:]).convert("RGB")
    png = device.shell("screencap -p", encoding=None)
    assert isinstance(png, bytes)
    screencap = Image.open(io.BytesIO(png)).convert("RGB")
    assert framebuffer.tobytes() == screencap.tobytes()
