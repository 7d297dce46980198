"""Moved to `mgfarm.adb.shell`; this name stays until every importer uses the new one."""

from mgfarm.adb.errors import AdbError as AdbWireError
from mgfarm.adb.errors import SyncFailed
from mgfarm.adb.shell import ShellClient

__all__ = ["AdbWireError", "ShellClient", "SyncFailed"]
