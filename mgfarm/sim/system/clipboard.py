"""The device clipboard (ClipboardManager's primary clip): one text that apps set and fields paste."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice


@dataclass
class Clipboard:
    text: str = ""


def clipboard(device: SimDevice) -> Clipboard:
    """The device's clipboard, empty until something copies (it lives as long as the device process)."""
    board: Clipboard = device.services.setdefault("clipboard", Clipboard())
    return board


def paste(device: SimDevice, fields: dict[str, str], key: str) -> None:
    """Paste the clip at the end of a field (fields have no cursor: typing appends there too)."""
    fields[key] = fields.get(key, "") + clipboard(device).text
