"""Drives a device as an agent does: `uiautomator dump` for targets, `input` for actions, over adb."""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import adbutils

BOUNDS = re.compile(r"\[(\d+),(\d+)\]\[(\d+),(\d+)\]")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


class Phone:
    def __init__(self, device: adbutils.AdbDevice) -> None:
        self.d = device

    def sh(self, cmd: str) -> str:
        return str(self.d.shell(cmd))

    def dump(self) -> str:
        out = self.sh("uiautomator dump /sdcard/window_dump.xml")
        assert "UI hierchary dumped to" in out, out
        return self.sh("cat /sdcard/window_dump.xml")

    def node(
        self, text: str | None = None, desc: str | None = None, rid: str | None = None
    ) -> dict[str, str]:
        xml = self.dump()
        for el in ET.fromstring(xml).iter("node"):
            a = el.attrib
            if text is not None and a["text"] != text:
                continue
            if desc is not None and a["content-desc"] != desc:
                continue
            if rid is not None and a["resource-id"] != rid:
                continue
            return dict(a)
        raise AssertionError(f"nothing with text={text!r} desc={desc!r} rid={rid!r} on screen:\n{xml[:3000]}")

    def has(self, text: str) -> bool:
        return f'text="{text}"' in self.dump()

    def tap(self, text: str | None = None, desc: str | None = None, rid: str | None = None) -> None:
        m = BOUNDS.fullmatch(self.node(text, desc, rid)["bounds"])
        assert m
        x0, y0, x1, y1 = (int(v) for v in m.groups())
        self.sh(f"input tap {(x0 + x1) // 2} {(y0 + y1) // 2}")

    def type(self, value: str) -> None:
        self.sh("input text " + shlex.quote(value.replace(" ", "%s")))

    def key(self, name: str) -> None:
        self.sh(f"input keyevent {name}")

    def home(self) -> None:
        self.key("KEYCODE_HOME")

    def open_from_launcher(self, label: str) -> None:
        self.home()
        self.tap(text=label, desc=label)

    def save_screen(self, name: str) -> bytes:
        png = bytes(self.d.shell("screencap -p", encoding=None))
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / f"{name}.png").write_bytes(png)
        return png

    def content(self, uri: str, projection: str = "") -> str:
        extra = f" --projection {projection}" if projection else ""
        return self.sh(f"content query --uri {uri}{extra}")
