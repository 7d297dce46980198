"""The one error family of the adb and console clients."""

from __future__ import annotations

from mgfarm.errors import MgfarmError


class AdbError(MgfarmError):
    """An adb server, a device or a console refused a request, or the connection broke."""


class SyncFailed(AdbError):
    """The device refused a sync request (FAIL), e.g. a missing file."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ConsoleError(AdbError):
    """The emulator console answered `KO: ...` or could not be reached."""
