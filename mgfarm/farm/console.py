"""Moved to `mgfarm.adb.console`; this name stays until every importer uses the new one."""

from mgfarm.adb.console import console_alive, console_command, snapshot_names
from mgfarm.adb.errors import ConsoleError

__all__ = ["ConsoleError", "console_alive", "console_command", "snapshot_names"]
