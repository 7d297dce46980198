"""The JSON-RPC methods of the uiautomator2 on-device server, acting on the window manager."""

from __future__ import annotations

import asyncio
import base64
import io
import time
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PIL import Image

from mgfarm.sim.uiautomator.selector import (
    UnsupportedSelector,
    center,
    describe,
    find_all,
    find_one,
    obj_info,
)

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice
    from mgfarm.sim.system.windows import WindowManager

NOT_FOUND = -32002
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_ERROR = -32001

KEY_NAMES: dict[str, int] = {
    "home": 3,
    "back": 4,
    "up": 19,
    "down": 20,
    "left": 21,
    "right": 22,
    "center": 23,
    "volume_up": 24,
    "volume_down": 25,
    "power": 26,
    "camera": 27,
    "enter": 66,
    "delete": 67,
    "del": 67,
    "menu": 82,
    "search": 84,
    "volume_mute": 164,
    "recent": 187,
}
KEY_DEL, KEY_MOVE_END = 67, 123
LONG_CLICK_MS = 500  # a press at least this long is a long click
POLL_S = 0.05


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _not_found(selector: dict[str, Any]) -> RpcError:
    return RpcError(NOT_FOUND, f"androidx.test.uiautomator.UiObjectNotFoundException: {describe(selector)}")


Method = Callable[[list[Any]], Awaitable[Any]]


# Methods that only look: after any other the device notes a change (see SimDevice.changed).
READ_METHODS = frozenset(
    {
        "deviceInfo", "dumpWindowHierarchy", "takeScreenshot", "waitForExists", "waitUntilGone",
        "exist", "count", "objInfo", "objInfoOfAllInstances", "getText", "getClipboard",
    }
)  # fmt: skip


class UiAutomatorRpc:
    """One running server's method table; the clipboard lives as long as the server."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.clipboard = ""
        self.methods: dict[str, Method] = {
            "deviceInfo": self.device_info,
            "dumpWindowHierarchy": self.dump_window_hierarchy,
            "click": self.click,
            "longClick": self.long_click,
            "swipe": self.swipe,
            "drag": self.swipe,
            "pressKey": self.press_key,
            "pressKeyCode": self.press_key_code,
            "takeScreenshot": self.take_screenshot,
            "waitForExists": self.wait_for_exists,
            "waitUntilGone": self.wait_until_gone,
            "exist": self.exist,
            "count": self.count,
            "objInfo": self.obj_info,
            "objInfoOfAllInstances": self.obj_info_all,
            "getText": self.get_text,
            "setText": self.set_text,
            "clearTextField": self.clear_text_field,
            "setClipboard": self.set_clipboard,
            "getClipboard": self.get_clipboard,
            "pasteClipboard": self.paste_clipboard,
            "wakeUp": self.no_op,
            "freezeRotation": self.freeze_rotation,
            "setOrientation": self.set_orientation,
        }

    async def call(self, method: str, params: Any) -> Any:
        fn = self.methods.get(method)
        if fn is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        args = params if isinstance(params, list) else []
        try:
            return await fn(args)
        except (IndexError, TypeError, ValueError, KeyError) as exc:
            raise RpcError(INVALID_PARAMS, f"Invalid params for {method}: {exc}") from exc
        except UnsupportedSelector as exc:
            raise RpcError(SERVER_ERROR, str(exc)) from exc
        finally:
            if method not in READ_METHODS:
                self.device.changed()

    # -- helpers -----------------------------------------------------------------------------
    @property
    def window(self) -> WindowManager:
        return self.device.services.window

    async def _root(self) -> ET.Element:
        xml = self.window.dump_xml()
        return ET.fromstring(str(xml).strip().encode("utf-8"))

    async def _find(self, selector: dict[str, Any]) -> ET.Element | None:
        return find_one(await self._root(), selector)

    async def _must_find(self, selector: dict[str, Any]) -> ET.Element:
        node = await self._find(selector)
        if node is None:
            raise _not_found(selector)
        return node

    async def _wait(self, selector: dict[str, Any], timeout_ms: int, present: bool) -> bool:
        deadline = time.monotonic() + max(0, timeout_ms) / 1000
        while True:
            if (await self._find(selector) is not None) == present:
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL_S)

    async def _type_replacing(self, node: ET.Element, text: str) -> None:
        window = self.window
        window.tap(*center(node))
        old = node.get("text", "")
        if old:
            window.key(KEY_MOVE_END)
            for _ in old:
                window.key(KEY_DEL)
        if text:
            window.text(text)

    # -- methods -----------------------------------------------------------------------------
    async def no_op(self, args: list[Any]) -> bool:
        return True

    async def device_info(self, args: list[Any]) -> dict[str, Any]:
        # UiDevice.getDisplayWidth/Height: the display in its current rotation.
        width, height = self.window.display_size
        density = int(self.window.density)
        resumed = self.device.services.activities.resumed()
        sdk = self.device.props.get("ro.build.version.sdk") or "0"
        return {
            "currentPackageName": resumed[0] if resumed else "",
            "displayHeight": height,
            "displayWidth": width,
            "displayRotation": self.window.current_rotation(),
            "displaySizeDpX": round(width * 160 / density),
            "displaySizeDpY": round(height * 160 / density),
            "naturalOrientation": True,
            "productName": self.device.props.get("ro.product.name") or "",
            "screenOn": True,
            "sdkInt": int(sdk) if str(sdk).isdigit() else 0,
        }

    def _freeze(self, rotation: int) -> None:
        """UiAutomation.setRotation(ROTATION_FREEZE_*): WindowManager.freezeRotation locks the user
        rotation, which it keeps in settings as the display's rotation policy does."""
        settings = self.device.services.settings
        settings.put("system", "accelerometer_rotation", "0")
        settings.put("system", "user_rotation", str(rotation))

    async def set_orientation(self, args: list[Any]) -> bool:
        """UiDevice.setOrientationLeft/Right/Natural (u2's `d.orientation = ...`)."""
        names = {"n": 0, "natural": 0, "l": 1, "left": 1, "u": 2, "upsidedown": 2, "r": 3, "right": 3}
        name = str(args[0]).lower()
        if name not in names:
            raise ValueError(f"unknown orientation {args[0]!r}")
        self._freeze(names[name])
        return True

    async def freeze_rotation(self, args: list[Any]) -> bool:
        """UiDevice.freezeRotation (at the current rotation) or unfreezeRotation (the sensor rules)."""
        if not args or args[0]:
            self._freeze(self.window.current_rotation())
        else:
            self.device.services.settings.put("system", "accelerometer_rotation", "1")
        return True

    async def dump_window_hierarchy(self, args: list[Any]) -> str:
        return str(self.window.dump_xml())

    async def click(self, args: list[Any]) -> bool:
        if args and isinstance(args[0], dict):  # click(selector): the old server-side click
            node = await self._find(args[0])
            if node is None:
                return False
            self.window.tap(*center(node))
            return True
        x, y = round(float(args[0])), round(float(args[1]))
        if len(args) > 2 and int(args[2]) >= LONG_CLICK_MS:
            self.window.long_press(x, y)
        else:
            self.window.tap(x, y)
        return True

    async def long_click(self, args: list[Any]) -> bool:
        node = await self._find(args[0])
        if node is None:
            return False
        self.window.long_press(*center(node))
        return True

    async def swipe(self, args: list[Any]) -> bool:
        fx, fy, tx, ty = (round(float(v)) for v in args[:4])
        steps = int(args[4]) if len(args) > 4 else 10
        # uiautomator throttles each step to 5 ms
        self.window.swipe(fx, fy, tx, ty, max(steps, 2) * 5)
        return True

    async def press_key(self, args: list[Any]) -> bool:
        name = str(args[0]).lower()
        if name not in KEY_NAMES:
            raise RpcError(INVALID_PARAMS, f"Unknown key name: {args[0]}")
        self.window.key(KEY_NAMES[name])
        return True

    async def press_key_code(self, args: list[Any]) -> bool:
        self.window.key(int(args[0]))
        return True

    async def take_screenshot(self, args: list[Any]) -> str:
        scale = float(args[0]) if args else 1.0
        quality = int(args[1]) if len(args) > 1 else 100
        png = self.window.screencap_png()
        image = Image.open(io.BytesIO(png)).convert("RGB")
        if 0 < scale < 1:
            image = image.resize((max(1, int(image.width * scale)), max(1, int(image.height * scale))))
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=max(1, min(quality, 100)))
        return base64.b64encode(out.getvalue()).decode("ascii")

    async def wait_for_exists(self, args: list[Any]) -> bool:
        return await self._wait(args[0], int(args[1]) if len(args) > 1 else 0, present=True)

    async def wait_until_gone(self, args: list[Any]) -> bool:
        return await self._wait(args[0], int(args[1]) if len(args) > 1 else 0, present=False)

    async def exist(self, args: list[Any]) -> bool:
        return await self._find(args[0]) is not None

    async def count(self, args: list[Any]) -> int:
        return len(find_all(await self._root(), args[0]))

    async def obj_info(self, args: list[Any]) -> dict[str, Any]:
        return obj_info(await self._must_find(args[0]))

    async def obj_info_all(self, args: list[Any]) -> list[dict[str, Any]]:
        return [obj_info(node) for node in find_all(await self._root(), args[0])]

    async def get_text(self, args: list[Any]) -> str:
        return (await self._must_find(args[0])).get("text", "")

    async def set_text(self, args: list[Any]) -> bool:
        await self._type_replacing(await self._must_find(args[0]), str(args[1]))
        return True

    async def clear_text_field(self, args: list[Any]) -> bool:
        await self._type_replacing(await self._must_find(args[0]), "")
        return True

    async def set_clipboard(self, args: list[Any]) -> None:
        self.clipboard = str(args[0]) if args else ""

    async def get_clipboard(self, args: list[Any]) -> str:
        return self.clipboard

    async def paste_clipboard(self, args: list[Any]) -> None:
        if self.clipboard:
            self.window.text(self.clipboard)
