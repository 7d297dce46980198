"""The device clipboard (ClipboardManager's primary clip): one text that apps set and fields paste."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice


@dataclass
class Clipboard:
    """The primary clip; saved in snapshots, so a snapshot load also restores (or empties) it."""

    text: str = ""

    def export_state(self) -> dict[str, Any]:
        return {"text": self.text}

    def import_state(self, state: dict[str, Any]) -> None:
        self.text = str(state.get("text", ""))


def paste(device: SimDevice, fields: dict[str, str], key: str) -> None:
    """Paste the clip at the end of a field (fields have no cursor: typing appends there too)."""
    fields[key] = fields.get(key, "") + device.services.clipboard.text
