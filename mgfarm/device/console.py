"""Moved to `mgfarm.adb.console`; this name stays until every importer uses the new one."""

from mgfarm.adb.console import DEFAULT_TOKEN_FILE, ConsoleClient, parse_snapshot_list, read_token
from mgfarm.adb.errors import ConsoleError

__all__ = ["DEFAULT_TOKEN_FILE", "ConsoleClient", "ConsoleError", "parse_snapshot_list", "read_token"]
