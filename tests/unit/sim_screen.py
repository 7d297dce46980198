"""Helpers for in-process UI tests: a booted simulated device and selectors over its uiautomator XML."""

from __future__ import annotations

import asyncio
import logging
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from mgfarm.sim.device import DeviceConfig, SimDevice
from mgfarm.sim.system.windows import LAUNCHER

BOUNDS = re.compile(r"\[(\d+),(\d+)\]\[(\d+),(\d+)\]")


def boot_device(tmp: Path, name: str = "t") -> SimDevice:
    device = SimDevice(DeviceConfig(name, 5555, tmp / name, tmp / "snapshots"))
    asyncio.run(device.boot())
    return device


@dataclass
class Node:
    attrs: dict[str, str]

    @property
    def center(self) -> tuple[int, int]:
        m = BOUNDS.fullmatch(self.attrs["bounds"])
        assert m, self.attrs["bounds"]
        x0, y0, x1, y1 = (int(v) for v in m.groups())
        return (x0 + x1) // 2, (y0 + y1) // 2


def nodes(xml: str) -> list[Node]:
    return [Node(dict(el.attrib)) for el in ET.fromstring(xml).iter("node")]


def find(xml: str, *, text: str | None = None, desc: str | None = None, rid: str | None = None) -> Node:
    for n in nodes(xml):
        if text is not None and n.attrs["text"] != text:
            continue
        if desc is not None and n.attrs["content-desc"] != desc:
            continue
        if rid is not None and n.attrs["resource-id"] != rid:
            continue
        return n
    raise AssertionError(f"no node text={text!r} desc={desc!r} rid={rid!r} on screen")


class Screen:
    """Drives a device's window manager the way `input` does, with targets found in its XML."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.wm = device.services.window
        self.am = device.services.activities

    def xml(self) -> str:
        return str(self.wm.dump_xml())

    def tap(self, **sel: str) -> None:
        x, y = find(self.xml(), **sel).center
        self.wm.tap(x, y)

    def type_into(self, value: str, **sel: str) -> None:
        self.tap(**sel)
        self.wm.text(value)

    def has(self, **sel: str) -> bool:
        try:
            find(self.xml(), **sel)
        except AssertionError:
            return False
        return True


def launchable(screen: Screen) -> list[str]:
    """Every app a launcher icon starts, the launcher aside (each is started once to tell)."""
    return sorted(p for p in screen.am.apps() if p != LAUNCHER and screen.am.launch(p) is None)


def crashes(records: list[logging.LogRecord], as_on_a_phone: frozenset[str] = frozenset()) -> list[str]:
    """The apps that stopped on an exception ("keeps stopping"), with it; `as_on_a_phone`: exception
    texts the real app stops on too."""
    return [
        f"{r.getMessage()}: {r.exc_info[1] if r.exc_info else ''}"
        for r in records
        if "crashed on" in r.getMessage() and not (r.exc_info and str(r.exc_info[1]) in as_on_a_phone)
    ]
